package locks_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/dbview/dbtest"
)

// TestMySQLLocksGrantOrder: real mariadb clients hold and wait for
// GET_LOCK locks on a real MariaDB; `locks --json` shows each holder, the
// waiters in the order they came with their addresses and the holder
// each waits for; doctor flags the holder idle in its transaction
// (idle-in-transaction) and the one idle without (holder-idle).
func TestMySQLLocksGrantOrder(t *testing.T) {
	m := dbtest.SharedMariaDB(t)
	dbEnv(t)
	t.Setenv("ZKSCOPE_AUTH", dbtest.MariaDBUser+":"+dbtest.MariaDBPassword)
	url := m.URL()
	name, other := "grant-order:"+t.Name(), "idle:"+t.Name()
	a := m.Client(t)
	a.Send(t, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
	if got := a.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 0)", name)); got != "1" {
		t.Fatalf("GET_LOCK: %q", got)
	}
	waiting := func(n int) func(context.Context) bool {
		return func(context.Context) bool {
			doc := readDBDoc(t, "-s", url, "locks", name)
			return len(doc.Locks) == 1 && len(doc.Locks[0].Participants) == n
		}
	}
	b := m.Client(t)
	b.Send(t, fmt.Sprintf("SELECT GET_LOCK('%s', 600)", name))
	dbtest.WaitFor(t, "b waits", waiting(2))
	c := m.Client(t)
	c.Send(t, fmt.Sprintf("SELECT GET_LOCK('%s', 600)", name))
	dbtest.WaitFor(t, "c waits after b", waiting(3))
	d := m.Client(t)
	d.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 0)", other))

	doc := readDBDoc(t, "-s", url, "locks")
	var got []string
	for _, l := range doc.Locks {
		if l.Path != name && l.Path != other {
			continue // another test's
		}
		for _, p := range l.Participants {
			got = append(got, strings.Join([]string{l.Path, l.Recipe, p.Node, p.Session, p.State, p.Mode, p.Watches}, " "))
			if p.Client == nil || !regexp.MustCompile(`^127\.0\.0\.1:\d+$`).MatchString(*p.Client) {
				t.Errorf("%s %s: client %v, want the mariadb client's address", l.Path, p.Session, p.Client)
			}
		}
	}
	want := []string{
		name + " mysql.get_lock " + name + " " + itoa(a.ID) + " holding exclusive ",
		name + " mysql.get_lock " + name + " " + itoa(b.ID) + " waiting exclusive " + itoa(a.ID),
		name + " mysql.get_lock " + name + " " + itoa(c.ID) + " waiting exclusive " + itoa(a.ID),
		other + " mysql.get_lock " + other + " " + itoa(d.ID) + " holding exclusive ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("locks --json:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// InnoDB answers INNODB_TRX from a cache it refreshes only when nobody
	// read it for 100 ms (trx_i_s_cache): the reads above may have kept
	// a's transaction out of it. Each try waits longer than that first.
	var out string
	var err error
	dbtest.WaitFor(t, "doctor sees a's transaction", func(context.Context) bool {
		time.Sleep(150 * time.Millisecond)
		out, err = cmdtest.Run(t, "-s", url, "doctor", "--idle-longer-than", "1ms", "--wait-longer-than", "1h")
		return strings.Contains(out, "idle-in-transaction "+name)
	})
	var ee cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != 1 ||
		!strings.Contains(out, "idle-in-transaction "+name+": holder connection "+itoa(a.ID)) ||
		!strings.Contains(out, "holder-idle "+other+": holder connection "+itoa(d.ID)) {
		t.Errorf("doctor: %v\n%s", err, out)
	}
}

// TestMySQLLocksThroughPlugin: with performance_schema's instrument off,
// MariaDB's metadata_lock_info plugin gives the holder and the process
// list the waiters: one naming the lock as a literal is in its queue, one
// computing the name is named on stderr as a waiter of an unknown lock.
func TestMySQLLocksThroughPlugin(t *testing.T) {
	m := dbtest.SharedMariaDB(t)
	dbEnv(t)
	t.Setenv("ZKSCOPE_AUTH", dbtest.MariaDBUser+":"+dbtest.MariaDBPassword)
	m.Root(t, "UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME = 'wait/lock/metadata/sql/mdl'")
	defer m.Root(t, "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' WHERE NAME = 'wait/lock/metadata/sql/mdl'")
	name := "plugin:" + t.Name()
	a := m.Client(t)
	a.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 0)", name))
	b := m.Client(t)
	b.Send(t, fmt.Sprintf("SELECT GET_LOCK('%s', 600)", name))
	c := m.Client(t)
	c.Send(t, fmt.Sprintf("DO GET_LOCK(CONCAT('%s', ''), 600)", name))
	var out string
	dbtest.WaitFor(t, "both waiters listed", func(context.Context) bool {
		out, _ = cmdtest.Run(t, "-s", m.URL(), "locks", name)
		return strings.Contains(out, "1 holding, 1 waiting") && strings.Contains(out, "connections "+itoa(c.ID)+" wait")
	})
	if !regexp.MustCompile(`2 +waiting +exclusive +` + regexp.QuoteMeta(name) + ` +` + itoa(b.ID) + ` +127\.0\.0\.1:\d+ .* backend ` + itoa(a.ID)).MatchString(out) {
		t.Errorf("locks through the plugin:\n%s", out)
	}
}
