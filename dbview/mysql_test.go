package dbview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkscope/zkscope/dbview/dbtest"
)

var myNameSeq atomic.Int64

// myName is a lock name of t's own on the shared server.
func myName(t *testing.T) string {
	return fmt.Sprintf("zkscope-test:%s:%d", t.Name(), myNameSeq.Add(1))
}

// myClient opens zkscope's client on the shared MariaDB as the test user.
func myClient(t *testing.T) (*dbtest.MariaDB, *Client) {
	t.Helper()
	m := dbtest.SharedMariaDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Open(ctx, Config{Kind: KindMySQL, Host: "127.0.0.1", Port: m.Port, User: dbtest.MariaDBUser,
		Password: dbtest.MariaDBPassword, DialTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return m, c
}

// myRowsOf are snap's rows of key, in their order.
func myRowsOf(snap *Snapshot, key string) []LockRow {
	var out []LockRow
	for _, r := range snap.Rows {
		if r.Key == key {
			out = append(out, r)
		}
	}
	return out
}

// myEventually reads c's locks from src until ok says yes (a minute at
// most) and returns that snapshot.
func myEventually(t *testing.T, c *Client, src string, what string, ok func(*Snapshot) bool) *Snapshot {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		snap, err := readMySQLFrom(ctx, c, src)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if ok(snap) {
			return snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute, still not %s: %+v", what, snap.Rows)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// myWaiting reports whether id waits for key in snap.
func myWaiting(snap *Snapshot, key string, id int64) bool {
	for _, r := range myRowsOf(snap, key) {
		if r.Holder == id && !r.Granted {
			return true
		}
	}
	return false
}

// TestMySQLHoldersAndWaiters: a real mariadb client holds a lock, two
// more wait for it one after the other, and a third waits with a name
// computed in SQL. Both sources give the holder, then the waiters in the
// order they came, each with its client's address and the holder as what
// it waits for; the plugin's source does not guess the computed name.
func TestMySQLHoldersAndWaiters(t *testing.T) {
	m, c := myClient(t)
	if !mysqlIsMariaDB(c.Version()) {
		t.Fatalf("version %q: not MariaDB", c.Version())
	}
	for _, src := range []string{mySourcePS, mySourcePlugin} {
		t.Run(strings.Split(src, ".")[0], func(t *testing.T) {
			name := myName(t)
			holder := m.Client(t)
			if got := holder.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 0)", name)); got != "1" {
				t.Fatalf("holder's GET_LOCK: %q", got)
			}
			var waiters []int64
			for i := 0; i < 2; i++ {
				w := m.Client(t)
				w.Send(t, fmt.Sprintf("SELECT GET_LOCK('%s', 600)", name))
				myEventually(t, c, src, "waiting", func(s *Snapshot) bool { return myWaiting(s, name, w.ID) })
				waiters = append(waiters, w.ID)
			}
			computed := m.Client(t)
			half := len(name) / 2
			computed.Send(t, fmt.Sprintf("DO GET_LOCK(CONCAT('%s', '%s'), 600)", name[:half], name[half:]))
			snap := myEventually(t, c, src, "the computed waiter in the process list", func(s *Snapshot) bool {
				_, ok := s.Backends[computed.ID]
				return ok
			})
			rows := myRowsOf(snap, name)
			var order []int64
			for _, r := range rows {
				order = append(order, r.Holder)
			}
			want := []int64{holder.ID, waiters[0], waiters[1]}
			if src == mySourcePS {
				want = append(want, computed.ID)
			}
			if fmt.Sprint(order) != fmt.Sprint(want) {
				t.Fatalf("order %v, want %v (holder, then waiters as they came); rows %+v", order, want, rows)
			}
			if !rows[0].Granted || rows[0].Mode != "exclusive" || rows[0].Level != "session" {
				t.Errorf("holder row %+v", rows[0])
			}
			for _, r := range rows[1:] {
				if r.Granted || r.WaitStart.IsZero() || fmt.Sprint(r.BlockedBy) != fmt.Sprint([]int64{holder.ID}) {
					t.Errorf("waiter row %+v: want waiting since a known time, blocked by %d", r, holder.ID)
				}
				b := snap.Backends[r.Holder]
				if !strings.HasPrefix(b.ClientAddr, "127.0.0.1:") || b.User != dbtest.MariaDBUser || !strings.Contains(b.Query, "GET_LOCK") {
					t.Errorf("waiter %d's backend %+v", r.Holder, b)
				}
			}
			if src == mySourcePlugin {
				unknown := false
				for _, r := range snap.Rows {
					unknown = unknown || r.Key == "" && r.Holder == computed.ID
				}
				if !unknown {
					t.Errorf("the computed waiter %d is not a waiter with an unknown lock: %+v", computed.ID, snap.Rows)
				}
			}
			hb := snap.Backends[holder.ID]
			if !strings.HasPrefix(hb.ClientAddr, "127.0.0.1:") || !strings.HasPrefix(hb.State, "Sleep") {
				t.Errorf("holder's backend %+v: want an idle (Sleep) connection from 127.0.0.1", hb)
			}
		})
	}
}

// TestMySQLReadChoosesSource: the server offers both; the reader takes
// performance_schema's, which shows waiters without reading statements.
func TestMySQLReadChoosesSource(t *testing.T) {
	_, c := myClient(t)
	src, err := mysqlSource(context.Background(), c.sqlDB, true)
	if err != nil || src != mySourcePS {
		t.Fatalf("source %q, %v; want %s", src, err, mySourcePS)
	}
	if _, err := c.Locks(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestMySQLHoldSession: zkscope's session excludes a real client and is
// excluded by it; a wait ends when the client releases; a wait given up
// leaves nothing waiting on the server.
func TestMySQLHoldSession(t *testing.T) {
	m, c := myClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := myName(t)
	s, err := c.HoldSession(ctx, name, HoldOptions{Try: true})
	if err != nil {
		t.Fatal(err)
	}
	other := m.Client(t)
	if got := other.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 0)", name)); got != "0" {
		t.Fatalf("a real client took the lock zkscope holds: GET_LOCK = %q", got)
	}
	if got := other.Query(t, fmt.Sprintf("SELECT IS_USED_LOCK('%s')", name)); got != fmt.Sprint(s.ID) {
		t.Fatalf("IS_USED_LOCK = %q, want zkscope's connection %d", got, s.ID)
	}
	if err := s.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if got := other.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 0)", name)); got != "1" {
		t.Fatalf("released, the client could not take it: %q", got)
	}
	if _, err := c.HoldSession(ctx, name, HoldOptions{Try: true}); !errors.Is(err, ErrBusy) {
		t.Fatalf("try on a held lock: %v, want ErrBusy", err)
	}
	got := make(chan *Session, 1)
	go func() {
		s, err := c.HoldSession(ctx, name, HoldOptions{})
		if err != nil {
			t.Error(err)
		}
		got <- s
	}()
	myEventually(t, c, mySourcePS, "zkscope waiting", func(s *Snapshot) bool { return len(myRowsOf(s, name)) == 2 })
	other.Query(t, fmt.Sprintf("SELECT RELEASE_LOCK('%s')", name))
	s2 := <-got
	if s2 == nil {
		t.FailNow()
	}
	defer s2.Release(ctx)
	other.Send(t, fmt.Sprintf("SELECT GET_LOCK('%s', 600)", name))
	myEventually(t, c, mySourcePS, "the client waiting", func(s *Snapshot) bool { return myWaiting(s, name, other.ID) })

	wctx, wcancel := context.WithCancel(ctx)
	res := make(chan error, 1)
	name2 := myName(t)
	s3, err := c.HoldSession(ctx, name2, HoldOptions{Try: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Release(ctx)
	go func() { _, err := c.HoldSession(wctx, name2, HoldOptions{}); res <- err }()
	myEventually(t, c, mySourcePS, "a second zkscope waiting", func(s *Snapshot) bool { return len(myRowsOf(s, name2)) == 2 })
	wcancel()
	if err := <-res; err == nil {
		t.Fatal("a wait given up took the lock")
	}
	myEventually(t, c, mySourcePS, "the given-up wait gone", func(s *Snapshot) bool { return len(myRowsOf(s, name2)) == 1 })
}

// TestMySQLLostAndTerminate: Terminate refuses a waiter and ends the
// holder; a session whose connection is killed is lost, and stays lost.
func TestMySQLLostAndTerminate(t *testing.T) {
	m, c := myClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := myName(t)
	holder := m.Client(t)
	holder.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 0)", name))
	waiter := m.Client(t)
	waiter.Send(t, fmt.Sprintf("SELECT GET_LOCK('%s', 600)", name))
	myEventually(t, c, mySourcePS, "waiting", func(s *Snapshot) bool { return myWaiting(s, name, waiter.ID) })
	if ended, err := c.Terminate(ctx, waiter.ID, TerminateIf{Key: name}); err != nil || ended {
		t.Fatalf("Terminate(waiter) = %v, %v; want refused", ended, err)
	}
	if ended, err := c.Terminate(ctx, holder.ID, TerminateIf{Key: name}); err != nil || !ended {
		t.Fatalf("Terminate(holder) = %v, %v", ended, err)
	}
	snap := myEventually(t, c, mySourcePS, "the holder gone", func(s *Snapshot) bool {
		_, ok := s.Backends[holder.ID]
		return !ok && s.Backends[waiter.ID].State == "Sleep"
	})
	if rows := myRowsOf(snap, name); len(rows) != 1 || rows[0].Holder != waiter.ID || !rows[0].Granted {
		t.Errorf("after the holder was ended: %+v, want %d holding", rows, waiter.ID)
	}
	if got := waiter.Line(t); got != "1" {
		t.Fatalf("the waiter's GET_LOCK after the holder was ended: %q", got)
	}
	waiter.Query(t, fmt.Sprintf("SELECT RELEASE_LOCK('%s')", name))

	s, err := c.HoldSession(ctx, name, HoldOptions{Try: true})
	if err != nil {
		t.Fatal(err)
	}
	waiter.Query(t, fmt.Sprintf("KILL CONNECTION %d; SELECT 'killed'", s.ID))
	select {
	case <-s.Lost():
	case <-ctx.Done():
		t.Fatal("the session was killed but not lost")
	}
	if s.Err() == nil || s.Release(ctx) == nil {
		t.Fatalf("lost, yet Err %v and Release nil", s.Err())
	}
}

// TestMySQLWithoutProcess: an account without PROCESS sees the locks of
// others (performance_schema) but not their connections: such a holder is
// listed with its id only, not left out and not called gone.
func TestMySQLWithoutProcess(t *testing.T) {
	m, _ := myClient(t)
	m.Root(t, "CREATE USER IF NOT EXISTS 'limited'@'%' IDENTIFIED BY 'limited-pw'; GRANT SELECT ON performance_schema.* TO 'limited'@'%'")
	c, err := Open(context.Background(), Config{Kind: KindMySQL, Host: "127.0.0.1", Port: m.Port, User: "limited",
		Password: "limited-pw", DialTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	name := myName(t)
	holder := m.Client(t)
	holder.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 0)", name))
	snap := myEventually(t, c, mySourcePS, "listed", func(s *Snapshot) bool { return len(myRowsOf(s, name)) == 1 })
	if b, ok := snap.Backends[holder.ID]; !ok || b.User != "" || b.ClientAddr != "" {
		t.Fatalf("holder's backend %+v (listed %v): want its id only", b, ok)
	}
}

// TestMySQLSourceChoice: with performance_schema's instrument off, MariaDB
// is read through its plugin, and a server with neither is refused in one
// line naming both.
func TestMySQLSourceChoice(t *testing.T) {
	m, c := myClient(t)
	m.Root(t, "UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME = 'wait/lock/metadata/sql/mdl'")
	defer m.Root(t, "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' WHERE NAME = 'wait/lock/metadata/sql/mdl'")
	ctx := context.Background()
	if src, err := mysqlSource(ctx, c.sqlDB, true); err != nil || src != mySourcePlugin {
		t.Errorf("MariaDB, instrument off: %q, %v; want %s", src, err, mySourcePlugin)
	}
	_, err := mysqlSource(ctx, c.sqlDB, false) // as MySQL, which has no such plugin
	if !errors.Is(err, errMySQLNoSource) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "wait/lock/metadata/sql/mdl") || !strings.Contains(err.Error(), "metadata_lock_info") {
		t.Errorf("neither source: %v", err)
	}
}
