package lock_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/dbview/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

func dbTestEnv(t *testing.T) []string {
	return []string{"XDG_CONFIG_HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir(), "ZKSCOPE_SERVER=", "ZKSCOPE_CONTEXT=", "ZKSCOPE_AUTH="}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// startLockCmd starts `zkscope lock KEY -- sh -c SCRIPT` in the background;
// its exit status arrives on the channel.
func startLockCmd(t *testing.T, env []string, url, key, script string) (<-chan int, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(cmdtest.Binary(t), "-s", url, "lock", key, "--", "sh", "-c", script)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exit := make(chan int, 1)
	go func() { cmd.Wait(); exit <- cmd.ProcessState.ExitCode() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	return exit, &stderr
}

func waitExit(t *testing.T, exit <-chan int, stderr *strings.Builder) int {
	t.Helper()
	select {
	case code := <-exit:
		return code
	case <-time.After(90 * time.Second):
		t.Fatalf("zkscope lock did not end; stderr:\n%s", stderr.String())
	}
	return -1
}

// TestDBLockExcludesPsycopg2: while `zkscope lock 77 -- CMD` runs, a real
// psycopg2 client cannot take advisory lock 77; once CMD has ended it can.
// The other way round: while psycopg2 holds 78, zkscope --no-wait and
// --timeout exit 1 and leave nothing queued; when the connection holding
// zkscope's lock is ended, CMD is stopped and zkscope exits 75.
func TestDBLockExcludesPsycopg2(t *testing.T) {
	pg := dbtest.Server(t)
	env := dbTestEnv(t)
	db := pg.NewDatabase(t, "lockexcl")
	url := pg.URL(db)
	dir := t.TempDir()
	started, goOn := filepath.Join(dir, "started"), filepath.Join(dir, "go")
	exit, stderr := startLockCmd(t, env, url, "77", "touch "+started+"; while [ ! -e "+goOn+" ]; do sleep 0.1; done")
	dbtest.WaitFor(t, "CMD runs under the lock", func(context.Context) bool { return exists(started) })
	try := pg.Python(t, db, "session", "SELECT pg_try_advisory_lock(77)", "try-77")
	if l, ok := tryResult(t, try); !ok || l != "busy" {
		t.Fatalf("psycopg2's try while zkscope holds 77: %q", l)
	}
	os.WriteFile(goOn, nil, 0o600)
	if code := waitExit(t, exit, stderr); code != 0 {
		t.Fatalf("zkscope lock exited %d:\n%s", code, stderr.String())
	}
	after := pg.Python(t, db, "session", "SELECT pg_try_advisory_lock(77)", "try-77-after")
	after.WaitHeld(t)

	holder := pg.Python(t, db, "session", "SELECT pg_advisory_lock(78)", "holder-78")
	holder.WaitHeld(t)
	if code, _, errOut := cmdtest.RunBinary(t, env, "-s", url, "lock", "78", "--no-wait", "--", "true"); code != 1 {
		t.Errorf("--no-wait while psycopg2 holds: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := cmdtest.RunBinary(t, env, "-s", url, "lock", "78", "--timeout", "1s", "--", "true"); code != 1 || !strings.Contains(errOut, "timed out") {
		t.Errorf("--timeout while psycopg2 holds: exit %d\n%s", code, errOut)
	}
	n, err := pg.Psql(context.Background(), db, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 78 AND NOT granted")
	if err != nil || strings.TrimSpace(n) != "0" {
		t.Errorf("waiters left on 78 after zkscope gave up: %q %v", n, err)
	}

	exit, stderr = startLockCmd(t, env, url, "79", "touch "+started+"79; sleep 120")
	dbtest.WaitFor(t, "CMD runs under lock 79", func(context.Context) bool { return exists(started + "79") })
	if _, err := pg.Psql(context.Background(), db, "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = 79 AND granted"); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, exit, stderr); code != 75 || !strings.Contains(stderr.String(), "LOST") {
		t.Errorf("the connection holding 79 ended: exit %d\n%s", code, stderr.String())
	}
}

// tryResult is a try peer's answer: "held" or "busy".
func tryResult(t *testing.T, p *dbtest.Peer) (string, bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if l, ok := p.Line(); ok {
			return l, true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "", false
}

// TestDBEvictEndsOnlyTheHolder: evict shows the holder's session, refuses
// a waiter's pid, --read-only and an unconfirmed run, and ends the holder it
// showed; the waiter then holds.
func TestDBEvictEndsOnlyTheHolder(t *testing.T) {
	pg := dbtest.Server(t)
	env := dbTestEnv(t)
	db := pg.NewDatabase(t, "evictdb")
	url := pg.URL(db)
	a := pg.Python(t, db, "transaction", "SELECT pg_advisory_lock(80)", "holder-a")
	a.WaitHeld(t)
	b := pg.Python(t, db, "session", "SELECT pg_advisory_lock(80)", "waiter-b")
	dbtest.WaitFor(t, "b waits", func(ctx context.Context) bool {
		n, _ := pg.Psql(ctx, db, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 80 AND NOT granted")
		return strings.TrimSpace(n) == "1"
	})
	pa, pb := strconv.FormatInt(a.PID, 10), strconv.FormatInt(b.PID, 10)
	code, out, errOut := cmdtest.RunBinary(t, env, "-s", url, "evict", "80", "--expect-session", pb, "--yes")
	if code != 2 || !strings.Contains(errOut, "backend "+pb+" does not hold") {
		t.Errorf("evict a waiter: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = cmdtest.RunBinary(t, env, "-s", url, "evict", "80"); code != 2 || !strings.Contains(errOut, "stdin is not a terminal") ||
		!strings.Contains(out, "holder pid "+pa) || !strings.Contains(out, "holder-a") || !strings.Contains(out, "idle in transaction") {
		t.Errorf("evict without a terminal: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = cmdtest.RunBinary(t, env, "-s", url, "--read-only", "evict", "80", "--expect-session", pa, "--yes"); code == 0 || !strings.Contains(errOut, "read-only") {
		t.Errorf("evict --read-only: exit %d\n%s%s", code, out, errOut)
	}
	if b.Held() {
		t.Fatal("b holds before the eviction")
	}
	if code, out, errOut = cmdtest.RunBinary(t, env, "-s", url, "evict", "80", "--expect-session", pa, "--yes"); code != 0 || !strings.Contains(out, "ended backend "+pa) {
		t.Fatalf("evict the holder: exit %d\n%s%s", code, out, errOut)
	}
	b.WaitHeld(t)
	n, err := pg.Psql(context.Background(), db, "SELECT count(*) FROM pg_stat_activity WHERE pid = "+pa)
	if err != nil || strings.TrimSpace(n) != "0" {
		t.Errorf("the evicted backend %s still runs: %q %v", pa, n, err)
	}
}
