package locks_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/dbview/dbtest"
)

// dbWatchFrame is one JSON line of `locks --watch --json` on a database.
type dbWatchFrame struct {
	Changes *bool
	Gone    []string
	Locks   []struct {
		Path, Recipe string
		Participants []struct {
			Session, State  string
			HeldSince       *string `json:"held_since"`
			HeldSinceSource *string `json:"held_since_source"`
		}
	}
}

func dbWatchFrames(out string) []dbWatchFrame {
	var frames []dbWatchFrame
	for _, line := range strings.Split(out, "\n") {
		var f dbWatchFrame
		if json.Unmarshal([]byte(line), &f) == nil {
			frames = append(frames, f)
		}
	}
	return frames
}

// startDBWatch runs the zkscope binary's locks --watch with args until the
// test ends; its stdout is returned.
func startDBWatch(t *testing.T, args ...string) *cmdtest.SyncBuffer {
	t.Helper()
	cmd := exec.Command(cmdtest.Binary(t), args...)
	var out, errOut cmdtest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("locks --watch: %v\n%s", err, errOut.String())
		}
	})
	return &out
}

// TestDBLocksWatch: `locks --watch --json` on a real PostgreSQL shows a
// psycopg2 holder of an advisory lock with a psycopg2 waiter behind it,
// then (the holder's connection closed) the waiter holding, seen to begin
// holding; --changes prints the whole report once, then only that lock
// changed. --record without --watch is refused in one line.
func TestDBLocksWatch(t *testing.T) {
	pg := dbtest.Server(t)
	dbEnv(t)
	db := pg.NewDatabase(t, "watchdb")
	url := pg.URL(db)
	a := pg.Python(t, db, "session", "SELECT pg_advisory_lock(7)", "holder-a")
	a.WaitHeld(t)
	b := pg.Python(t, db, "session", "SELECT pg_advisory_lock(7)", "waiter-b")
	all := startDBWatch(t, "-s", url, "locks", "--watch", "--json", "--interval", "1s")
	changes := startDBWatch(t, "-s", url, "locks", "7", "--watch", "--json", "--changes", "--interval", "1s")
	// seen: some frame of out shows lock DB/7 with holder and
	// waiter (waiter "": none), the holder seen to begin when seenBegin.
	seen := func(out *cmdtest.SyncBuffer, holder, waiter int64, seenBegin bool) func(context.Context) bool {
		return func(context.Context) bool {
			for _, f := range dbWatchFrames(out.String()) {
				if len(f.Locks) != 1 || f.Locks[0].Path != db+"/7" || f.Locks[0].Recipe != "postgres.advisory" {
					continue
				}
				ps := f.Locks[0].Participants
				want := 1
				if waiter != 0 {
					want = 2
				}
				if len(ps) != want || ps[0].Session != itoa(holder) || ps[0].State != "holding" ||
					(ps[0].HeldSinceSource != nil && *ps[0].HeldSinceSource == "seen") != seenBegin {
					continue
				}
				if waiter == 0 || ps[1].Session == itoa(waiter) && ps[1].State == "waiting" {
					return true
				}
			}
			return false
		}
	}
	dbtest.WaitFor(t, "a frame with holder-a and waiter-b", seen(all, a.PID, b.PID, false))
	dbtest.WaitFor(t, "--changes: holder-a and waiter-b", seen(changes, a.PID, b.PID, false))
	a.Stop()
	b.WaitHeld(t)
	dbtest.WaitFor(t, "a frame with waiter-b holding, seen to begin", seen(all, b.PID, 0, true))
	dbtest.WaitFor(t, "--changes: waiter-b holding", seen(changes, b.PID, 0, true))
	frames := dbWatchFrames(changes.String())
	if frames[0].Changes != nil {
		t.Errorf("--changes: the first line is not the whole report: %s", changes.String())
	}
	for _, f := range frames[1:] {
		if f.Changes == nil || !*f.Changes || len(f.Locks) != 1 || len(f.Gone) != 0 {
			t.Errorf("--changes: a line not of the one lock that changed: %+v\n%s", f, changes.String())
		}
	}
	if _, err := cmdtest.Run(t, "-s", url, "locks", "--record", t.TempDir()+"/r.jsonl"); err == nil || !strings.Contains(err.Error(), "add --watch") {
		t.Errorf("--record without --watch on a database: %v", err)
	}
	if _, err := cmdtest.Run(t, "-s", url, "locks", "--changes"); err == nil || !strings.Contains(err.Error(), "add --watch --json") {
		t.Errorf("--changes without --watch on a database: %v", err)
	}
}

// TestMySQLLocksWatch: `locks NAME --watch --json` on a real MariaDB shows
// a mariadb client holding a GET_LOCK lock with another waiting, then
// (the holder's connection closed) the waiter holding, seen to begin.
func TestMySQLLocksWatch(t *testing.T) {
	m := dbtest.SharedMariaDB(t)
	dbEnv(t)
	t.Setenv("ZKSCOPE_AUTH", dbtest.MariaDBUser+":"+dbtest.MariaDBPassword)
	name := "watch:" + t.Name()
	a, b := m.Client(t), m.Client(t)
	aID, bID := a.Query(t, "SELECT CONNECTION_ID()"), b.Query(t, "SELECT CONNECTION_ID()")
	if got := a.Query(t, "SELECT GET_LOCK('"+name+"', 0)"); got != "1" {
		t.Fatalf("GET_LOCK: %q", got)
	}
	b.Send(t, "SELECT GET_LOCK('"+name+"', 600)")
	out := startDBWatch(t, "-s", m.URL(), "locks", name, "--watch", "--json", "--interval", "1s")
	frame := func(want ...string) func(context.Context) bool {
		return func(context.Context) bool {
			for _, f := range dbWatchFrames(out.String()) {
				if len(f.Locks) != 1 || f.Locks[0].Recipe != "mysql.get_lock" {
					continue
				}
				var got []string
				for _, p := range f.Locks[0].Participants {
					s := p.Session + " " + p.State
					if p.HeldSinceSource != nil {
						s += " " + *p.HeldSinceSource
					}
					got = append(got, s)
				}
				if strings.Join(got, ",") == strings.Join(want, ",") {
					return true
				}
			}
			return false
		}
	}
	dbtest.WaitFor(t, "a holding, b waiting", frame(aID+" holding", bID+" waiting"))
	a.Close()
	dbtest.WaitFor(t, "b holding, seen to begin", frame(bID+" holding seen"))
}
