package history_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/dbview/dbtest"
)

// dbHistoryEnv makes the zkscope processes a test starts see no config,
// context or credentials but the test's (a database's password: auth).
func dbHistoryEnv(t *testing.T, auth string) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("ZKSCOPE_SERVER", "")
	t.Setenv("ZKSCOPE_CONTEXT", "")
	t.Setenv("ZKSCOPE_AUTH", auth)
}

// startDBRecorder runs `-s url locks KEY --watch --record FILE` until the
// returned func stops it (SIGINT) and waits for its header.
func startDBRecorder(t *testing.T, url, key, file string) func() {
	t.Helper()
	cmd := exec.Command(cmdtest.Binary(t), "-s", url, "locks", key, "--watch", "--json", "--interval", "1s", "--record", file)
	var errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the recorder: %v\n%s", err, errOut.String())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("the recorder did not stop on SIGINT; stderr:\n%s", errOut.String())
		}
	}
	t.Cleanup(stop)
	awaitRecorded(t, file, `"zkscope_recording":2`, 1)
	return stop
}

// checkDBHistory reads `history --recording FILE --json` (args: more
// flags) and checks the lock at path: its holders, in the order they held,
// are the backends ids (each arriving, holding and leaving after the one
// before), each gone; every waiter waited behind the holder before it.
// It returns the table history prints.
func checkDBHistory(t *testing.T, recording, path, recipe string, ids []int64, args ...string) string {
	t.Helper()
	doc, out := historyJSON(t, append([]string{"--recording", recording}, args...)...)
	if len(doc.Locks) != 1 || doc.Locks[0].Path != path || doc.Locks[0].Recipe != recipe {
		t.Fatalf("history --json: want the one lock %s (%s):\n%s", path, recipe, out)
	}
	l := doc.Locks[0]
	var held []string
	for _, tn := range l.Tenures {
		if tn.Held != nil {
			held = append(held, tn.Session)
		}
		if tn.End != "gone" || tn.HeldMs == nil {
			t.Errorf("tenure of %s: ended %q, held %v: want held, then gone\n%s", tn.Session, tn.End, tn.HeldMs, out)
		}
	}
	var want []string
	for _, id := range ids {
		want = append(want, itoa(id))
	}
	if strings.Join(held, " ") != strings.Join(want, " ") {
		t.Fatalf("holders in the order they held: %v, want %v\n%s", held, want, out)
	}
	for i := 0; i+1 < len(l.Tenures); i++ {
		if b := l.Tenures[i].Behind; len(b) == 0 || b[0].Session != l.Tenures[i+1].Session {
			t.Errorf("behind holder %s: %+v, want its successor %s waiting\n%s", l.Tenures[i].Session, b, l.Tenures[i+1].Session, out)
		}
	}
	code, table, stderr := cmdtest.RunBinary(t, nil, append([]string{"history", "--recording", recording}, args...)...)
	if code != 0 {
		t.Fatalf("history --recording: exit %d: %s", code, stderr)
	}
	return table
}

// TestHistoryPostgresRecording: a psycopg2 client holds advisory lock 7
// on a real PostgreSQL, a psql client then a second psycopg2 client wait
// for it, and each holder in turn ends its session; `locks 7 --watch
// --record` records it, and `history --recording` gives the three in the
// order the server granted them, with when each arrived, held and left,
// and the waits behind each holder. A zxid is refused on such a recording.
func TestHistoryPostgresRecording(t *testing.T) {
	pg := dbtest.Server(t)
	dbHistoryEnv(t, "")
	db := pg.NewDatabase(t, "historydb")
	recording := filepath.Join(t.TempDir(), "pg.jsonl")
	a := pg.Python(t, db, "session", "SELECT pg_advisory_lock(7)", "holder-a")
	a.WaitHeld(t)
	stop := startDBRecorder(t, pg.URL(db), "7", recording)
	awaitRecorded(t, recording, `"op":"hold"`, 1)
	b := pg.PsqlPeer(t, db, "SELECT pg_advisory_lock(7)")
	awaitRecorded(t, recording, `"op":"wait"`, 1)
	c := pg.Python(t, db, "session", "SELECT pg_advisory_lock(7)", "waiter-c")
	awaitRecorded(t, recording, `"op":"wait"`, 2)
	at := time.Now().UTC() // the queue stands: a holds, b and c wait
	a.Stop()
	b.WaitHeld(t)
	awaitRecorded(t, recording, `"op":"hold"`, 2)
	b.Stop()
	c.WaitHeld(t)
	awaitRecorded(t, recording, `"op":"hold"`, 3)
	c.Stop()
	awaitRecorded(t, recording, `"op":"gone"`, 3)
	stop()

	table := checkDBHistory(t, recording, db+"/7", "postgres.advisory", []int64{a.PID, b.PID, c.PID})
	for _, s := range []string{"history of postgres.advisory locks from", db + "/7  postgres.advisory  3 backends, 3 held",
		"pid " + strconv.FormatInt(b.PID, 10), "postgres/waiter-c 127.0.0.1:", "behind #1: #2 waited"} {
		if !strings.Contains(table, s) {
			t.Errorf("history lacks %q:\n%s", s, table)
		}
	}
	checkDBHistory(t, recording, db+"/7", "postgres.advisory", []int64{a.PID, b.PID, c.PID}, db+"/7")
	code, locksAt, stderr := cmdtest.RunBinary(t, nil, "history", "--recording", recording, "--at", at.Format(time.RFC3339Nano), "--json")
	var doc struct {
		Locks []struct {
			Path         string
			Participants []struct{ Session, State string }
		}
	}
	if code != 0 || json.Unmarshal([]byte(locksAt), &doc) != nil || len(doc.Locks) != 1 || len(doc.Locks[0].Participants) != 3 {
		t.Fatalf("history --at --json: exit %d: %s\n%s", code, stderr, locksAt)
	}
	var queue []string
	for _, p := range doc.Locks[0].Participants {
		queue = append(queue, p.Session+" "+p.State)
	}
	if want := []string{itoa(a.PID) + " holding", itoa(b.PID) + " waiting", itoa(c.PID) + " waiting"}; strings.Join(queue, ",") != strings.Join(want, ",") {
		t.Errorf("history --at: the queue %v, want %v", queue, want)
	}
	code, _, stderr = cmdtest.RunBinary(t, nil, "history", "--recording", recording, "--since", "0x10")
	if code != 2 || !strings.Contains(stderr, "no zxids") {
		t.Errorf("--since a zxid on a database recording: exit %d: %s", code, stderr)
	}
}

// TestHistoryMariaDBRecording: three mariadb clients take a GET_LOCK lock
// on a real MariaDB in turn (the second and third waiting), each leaving
// by closing its connection; the recording replays them in that order.
func TestHistoryMariaDBRecording(t *testing.T) {
	m := dbtest.SharedMariaDB(t)
	dbHistoryEnv(t, dbtest.MariaDBUser+":"+dbtest.MariaDBPassword)
	name := "history:" + strconv.FormatInt(time.Now().UnixNano(), 36) // (a name of this run: -count=N)
	recording := filepath.Join(t.TempDir(), "mysql.jsonl")
	a, b, c := m.Client(t), m.Client(t), m.Client(t)
	if got := a.Query(t, "SELECT GET_LOCK('"+name+"', 0)"); got != "1" {
		t.Fatalf("GET_LOCK: %q", got)
	}
	stop := startDBRecorder(t, m.URL(), name, recording)
	awaitRecorded(t, recording, `"op":"hold"`, 1)
	b.Send(t, "SELECT GET_LOCK('"+name+"', 600)")
	awaitRecorded(t, recording, `"op":"wait"`, 1)
	c.Send(t, "SELECT GET_LOCK('"+name+"', 600)")
	awaitRecorded(t, recording, `"op":"wait"`, 2)
	a.Close()
	if got := b.Line(t); got != "1" {
		t.Fatalf("b's GET_LOCK: %q", got)
	}
	awaitRecorded(t, recording, `"op":"hold"`, 2)
	b.Close()
	if got := c.Line(t); got != "1" {
		t.Fatalf("c's GET_LOCK: %q", got)
	}
	awaitRecorded(t, recording, `"op":"hold"`, 3)
	c.Close()
	awaitRecorded(t, recording, `"op":"gone"`, 3)
	stop()

	table := checkDBHistory(t, recording, name, "mysql.get_lock", []int64{a.ID, b.ID, c.ID})
	if s := "connection " + strconv.FormatInt(c.ID, 10); !strings.Contains(table, s) {
		t.Errorf("history lacks %q:\n%s", s, table)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
