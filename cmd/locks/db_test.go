package locks_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/dbview/dbtest"
)

type dbDoc struct {
	Servers []string
	Locks   []struct {
		Path, Recipe string
		Participants []struct {
			Node, Mode, State, Session, Watches string
			Position                            int
			Client, Ctime, Level                *string
			WatchKind                           *string `json:"watch_kind"`
			BlockedBy                           []int64 `json:"blocked_by"`
			Backend                             *struct{ Application, State string }
		}
		Problems []struct{ Kind, Node string }
	}
}

func dbEnv(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("ZKSCOPE_SERVER", "")
	t.Setenv("ZKSCOPE_CONTEXT", "")
	t.Setenv("ZKSCOPE_AUTH", "")
}

func readDBDoc(t *testing.T, args ...string) dbDoc {
	t.Helper()
	out, err := cmdtest.Run(t, append(args, "--json")...)
	if err != nil {
		t.Fatalf("locks --json: %v\n%s", err, out)
	}
	var doc dbDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc
}

// TestDBLocksGrantOrder: real psycopg2 and psql clients hold and wait for
// advisory locks on a real PostgreSQL; `locks --json` shows the holder, the
// waiters in the order they came (the server grants them so) with their
// addresses and the backend each waits for, the two-int4 key, the levels
// that can be known; `locks` prints the table; doctor flags the holder idle
// in its transaction.
func TestDBLocksGrantOrder(t *testing.T) {
	pg := dbtest.Server(t)
	dbEnv(t)
	db := pg.NewDatabase(t, "grantorder")
	url := pg.URL(db)
	a := pg.Python(t, db, "session", "SELECT pg_advisory_lock(42)", "holder-a")
	a.WaitHeld(t)
	b := pg.PsqlPeer(t, db, "SELECT pg_advisory_lock(42)")
	waiting := func(n int) func(context.Context) bool {
		return func(context.Context) bool {
			doc := readDBDoc(t, "-s", url, "locks", db+"/42")
			return len(doc.Locks) == 1 && len(doc.Locks[0].Participants) == n
		}
	}
	dbtest.WaitFor(t, "psql waits for 42", waiting(2))
	c := pg.Python(t, db, "session", "SELECT pg_advisory_lock_shared(42)", "waiter-c")
	dbtest.WaitFor(t, "psycopg2 waits for 42 after psql", waiting(3))
	d := pg.Python(t, db, "transaction", "SELECT pg_advisory_xact_lock(1, 2)", "holder-d")
	d.WaitHeld(t)

	doc := readDBDoc(t, "-s", url, "locks")
	var got []string
	for _, l := range doc.Locks {
		if !strings.HasPrefix(l.Path, db+"/") {
			continue // (another test's, or a run's before, ending)
		}
		for _, p := range l.Participants {
			level := "?"
			if p.Level != nil {
				level = *p.Level
			}
			got = append(got, strings.Join([]string{l.Path, l.Recipe, p.Node, p.Session, p.State, p.Mode, level, p.Watches}, " "))
			if p.Client == nil || !regexp.MustCompile(`^127\.0\.0\.1:\d+$`).MatchString(*p.Client) {
				t.Errorf("%s %s: client %v, want the peer's address", l.Path, p.Session, p.Client)
			}
		}
	}
	want := []string{
		db + "/1/2 postgres.advisory 1/2 " + itoa(d.PID) + " holding exclusive ? ",
		db + "/42 postgres.advisory 42 " + itoa(a.PID) + " holding exclusive session ",
		db + "/42 postgres.advisory 42 " + itoa(b.PID) + " waiting exclusive ? " + itoa(a.PID),
		db + "/42 postgres.advisory 42 " + itoa(c.PID) + " waiting shared ? " + itoa(a.PID) + "," + itoa(b.PID),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("locks --json:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	out, err := cmdtest.Run(t, "-s", url, "locks", db+"/42")
	if err != nil || !regexp.MustCompile(`2 +waiting +exclusive +42 +`+itoa(b.PID)+` +127\.0\.0\.1:\d+ .* backend `+itoa(a.PID)).MatchString(out) {
		t.Errorf("table: %v\n%s", err, out)
	}

	out, err = cmdtest.Run(t, "-s", url, "doctor", "--idle-longer-than", "1ms")
	var ee cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(out, "idle-in-transaction "+db+"/1/2: holder backend "+itoa(d.PID)) {
		t.Errorf("doctor: %v\n%s", err, out)
	}
	if out, err := cmdtest.Run(t, "-s", "postgres://postgres:pw@"+pg.Addr()+"/"+db, "locks"); err == nil || !strings.Contains(err.Error(), "--server holds a password") {
		t.Errorf("a password in --server: %v\n%s", err, out)
	}
	if _, err := cmdtest.Run(t, "-s", url, "locks", "--interval", "1s"); err == nil || !strings.Contains(err.Error(), "use locks --watch") {
		t.Errorf("--interval without --watch on a database: %v", err)
	}
	if _, err := cmdtest.Run(t, "-s", url, "get", "/"); err == nil || !strings.Contains(err.Error(), "this command reads ZooKeeper") {
		t.Errorf("a ZooKeeper command against a database: %v", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
