package dbtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Peer is a real client (psycopg2 or psql) holding or waiting for a lock
// on its own connection.
type Peer struct {
	PID   int64 // its backend's pid
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	done  chan struct{}
}

// pyPeer connects with psycopg2 (application_name app), prints its
// backend pid, runs stmt (blocking while it waits), prints "held", and
// ends on a line or EOF on stdin (committing first in a transaction).
const pyPeer = `
import sys, psycopg2
dsn, mode, stmt, app = sys.argv[1:5]
conn = psycopg2.connect(dsn, application_name=app)
conn.autocommit = (mode == "session")
cur = conn.cursor()
cur.execute("SELECT pg_backend_pid()")
print("pid", cur.fetchone()[0], flush=True)
cur.execute(stmt)
r = cur.fetchone()
print("held" if r is None or r[0] is not False else "busy", flush=True)
sys.stdin.readline()
if mode != "session":
    conn.commit()
conn.close()
`

// Python starts a psycopg2 client running stmt on database db: in
// autocommit (mode "session", a session-level lock) or in a transaction
// left open (mode "transaction": after stmt it is idle in transaction).
func (p *Postgres) Python(t testing.TB, db, mode, stmt, app string) *Peer {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", "-c", pyPeer, p.DSN(db), mode, stmt, app)
	return startPeer(t, cmd, nil)
}

// Psql starts psql on database db running stmt (e.g. "SELECT
// pg_advisory_lock(7)") in autocommit: a session-level hold or wait.
func (p *Postgres) PsqlPeer(t testing.TB, db, stmt string) *Peer {
	t.Helper()
	cmd := exec.Command(filepath.Join(p.Bin, "psql"), "-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", p.DSN(db)+" application_name=psql-peer")
	return startPeer(t, cmd, []string{`SELECT 'pid ' || pg_backend_pid();`, stmt + `; SELECT 'held';`})
}

func startPeer(t testing.TB, cmd *exec.Cmd, script []string) *Peer {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		Unavailable(t, fmt.Sprintf("%s: %v", cmd.Path, err))
	}
	pe := &Peer{cmd: cmd, stdin: stdin, lines: make(chan string, 16), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			pe.lines <- sc.Text()
		}
		close(pe.lines)
	}()
	go func() { cmd.Wait(); close(pe.done) }()
	t.Cleanup(pe.Stop)
	for _, line := range script {
		fmt.Fprintln(stdin, line)
	}
	line, ok := pe.next(60 * time.Second)
	if !ok || !strings.HasPrefix(line, "pid ") {
		pe.Stop()
		t.Fatalf("%s did not start: %q\n%s", filepath.Base(cmd.Path), line, stderr.String())
	}
	pe.PID, _ = strconv.ParseInt(strings.TrimPrefix(line, "pid "), 10, 64)
	return pe
}

func (pe *Peer) next(limit time.Duration) (string, bool) {
	select {
	case l, ok := <-pe.lines:
		return l, ok
	case <-time.After(limit):
		return "", false
	}
}

// WaitHeld waits (generously) until the peer says it holds its lock.
func (pe *Peer) WaitHeld(t testing.TB) {
	t.Helper()
	l, ok := pe.next(60 * time.Second)
	for ok && l == "" { // psql prints pg_advisory_lock's void as an empty line
		l, ok = pe.next(60 * time.Second)
	}
	if !ok || l != "held" {
		t.Fatalf("peer %d: %q, want held", pe.PID, l)
	}
}

// Line is the peer's next line, without waiting (false: none yet).
func (pe *Peer) Line() (string, bool) {
	select {
	case l, ok := <-pe.lines:
		return l, ok
	default:
		return "", false
	}
}

// Held reports, without waiting, whether the peer said it holds its lock.
func (pe *Peer) Held() bool {
	select {
	case l := <-pe.lines:
		return l == "held"
	default:
		return false
	}
}

// Done is closed when the peer's process has ended.
func (pe *Peer) Done() <-chan struct{} { return pe.done }

// Stop ends the peer (its lock released with its session) and waits.
func (pe *Peer) Stop() {
	select {
	case <-pe.done:
		return
	default:
	}
	pe.stdin.Close()
	select {
	case <-pe.done:
	case <-time.After(10 * time.Second):
		pe.cmd.Process.Kill()
		<-pe.done
	}
}

// WaitFor polls cond until it holds or a generous limit passes.
func WaitFor(t testing.TB, what string, cond func(ctx context.Context) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for !cond(ctx) {
		if ctx.Err() != nil {
			t.Fatalf("not true within 60s: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
