package follow_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestFollowEqualsFreshRead: a tree followed incrementally (each
// snapshot only the locks that changed, applied to a follow.Locks; from
// the events alone, with and without ScanCaches, and with a look at the
// locks every second and the path scanned beside the events every ten) under
// churn from real clients — kazoo processes taking and releasing three
// locks in a loop, Curator holding a mutex with a waiter and a semaphore —
// and a session-deadlock across two directories made, broken and made
// again: each time the kazoo workers pause, the followed locks equal
// those of a fresh follow.Read (what only following can know, when a
// wait or hold was first seen, left out).
func TestFollowEqualsFreshRead(t *testing.T) {
	srv := zktest.Shared(t)
	root := zktest.Path(t)
	c, err := zkview.Connect(context.Background(), zkview.Config{Servers: srv.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var procs []*zktest.KazooProc
	for i := range 3 {
		dir := fmt.Sprintf("%s/kz/lock-%d", root, i)
		zktest.MakePath(t, c.Conn(), dir)
		for w := range 2 {
			procs = append(procs, zktest.KazooLoop(t, srv.ConnectString(), dir, fmt.Sprintf("w%d%d", i, w), 5*time.Millisecond))
		}
	}
	cu := zktest.StartCurator(t, srv.ConnectString())
	cu.Acquire(t, "holder", "mutex", root+"/cu/mutex")
	cu.Await(t, "holder", "acquired")
	cu.Acquire(t, "waiter", "mutex", root+"/cu/mutex")
	cu.Acquire(t, "s", "semaphore", root+"/cu/sem", "2")

	// Three follows: one from the events alone (an interval of an hour),
	// one that also looks at the locks every second and scans the
	// path beside the events every ten, and one from the events alone
	// applied to what its first scan read (ScanCaches).
	var (
		mu     sync.Mutex
		models [3]follow.Locks
		snaps  int
	)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, len(models))
	for i, o := range []follow.Options{{Interval: time.Hour}, {Interval: time.Second}, {Interval: time.Hour, ScanCaches: true}} {
		o.NoVerify = true
		go func() {
			done <- follow.Follow(ctx, c, root, o, func(s follow.Snapshot) error {
				mu.Lock()
				models[i].Apply(s)
				snaps++
				mu.Unlock()
				return nil
			}, func(err error) { t.Errorf("scan failed: %v", err) })
		}()
	}
	defer func() {
		cancel()
		for range len(models) {
			if err := <-done; err != nil {
				t.Errorf("Follow: %v", err)
			}
		}
	}()

	x, y := root+"/dl/x", root+"/dl/y"
	a, b := dialSession(t, srv.Addrs()), dialSession(t, srv.Addrs())
	zktest.MakePath(t, c.Conn(), x)
	zktest.MakePath(t, c.Conn(), y)
	node := func(conn *zk.Conn, dir, uuid string) string {
		t.Helper()
		p, err := conn.Create(dir+"/_c_"+uuid+"-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	node(a, x, "aaaaaaaa-0000-4000-8000-00000000000a")
	node(b, y, "bbbbbbbb-0000-4000-8000-00000000000b")
	aWaits := node(a, y, "aaaaaaaa-0000-4000-8000-00000000000a")
	node(b, x, "bbbbbbbb-0000-4000-8000-00000000000b")

	for round := range 3 {
		switch round {
		case 1: // the deadlock broken
			if err := a.Delete(aWaits, -1); err != nil {
				t.Fatal(err)
			}
		case 2: // and made again
			aWaits = node(a, y, "aaaaaaaa-0000-4000-8000-00000000000a")
		}
		for _, p := range procs {
			p.Continue(t)
		}
		before := procs[0].Count("w00 acquired")
		waitFor(t, "the kazoo workers to take the lock again", func() bool { return procs[0].Count("w00 acquired") >= before+15 })
		for _, p := range procs {
			p.Stop(t)
		}
		t.Logf("round %d: w00 acquired %d times", round, procs[0].Count("w00 acquired"))
		var fresh []lockops.Queue
		waitFor(t, fmt.Sprintf("round %d: the followed locks to equal a fresh read's", round), func() bool {
			s, err := follow.Read(ctx, c, root, follow.Options{NoVerify: true})
			if err != nil {
				t.Fatal(err)
			}
			fresh = comparable(s.Queues)
			mu.Lock()
			defer mu.Unlock()
			for i := range models {
				if !reflect.DeepEqual(comparable(models[i].Queues()), fresh) {
					return false
				}
			}
			return true
		})
		deadlock := 0
		for _, q := range fresh {
			for _, pr := range q.Problems {
				if pr.Kind == lockops.ProblemSessionDeadlock {
					deadlock++
				}
			}
		}
		// The kazoo workers, stopped at any moment, may all be between a
		// release and their next node: a directory without a lock node is
		// no lock, to both reads alike.
		if want := map[bool]int{true: 1, false: 0}[round != 1]; deadlock != want || len(fresh) < 4 {
			t.Fatalf("round %d: %d locks, %d session-deadlock problems (want 4 or more, %d)", round, len(fresh), deadlock, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d snapshots", snaps)
}

// comparable is queues without what only a follow knows (when a wait or
// hold was first seen) or that differs between two reads (when read).
func comparable(queues []lockops.Queue) []lockops.Queue {
	out := make([]lockops.Queue, len(queues))
	for i, q := range queues {
		q = q.Clone()
		q.ReadAt = time.Time{}
		for j := range q.Participants {
			p := &q.Participants[j]
			p.WaitSeen, p.HeldSince, p.HeldSource = time.Time{}, time.Time{}, ""
		}
		out[i] = q
	}
	return out
}

// dialSession is a session of its own.
func dialSession(t *testing.T, addrs []string) *zk.Conn {
	t.Helper()
	conn, _, err := zk.Connect(addrs, 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// waitFor polls ok with a deadline generous for a loaded machine.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
