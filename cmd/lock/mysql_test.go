package lock_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/dbview/dbtest"
)

func myTestEnv(t *testing.T) []string {
	return append(dbTestEnv(t), "ZKSCOPE_AUTH="+dbtest.MariaDBUser+":"+dbtest.MariaDBPassword)
}

// myCount is a number MariaDB's root answers.
func myCount(t *testing.T, m *dbtest.MariaDB, query string) string {
	t.Helper()
	return m.Root(t, query)
}

// TestMySQLLockExcludesMariaDBClient: while `zkscope lock NAME -- CMD`
// runs, a real mariadb client cannot take GET_LOCK(NAME); once CMD has
// ended it can. The other way round: while the client holds it, zkscope
// --no-wait and --timeout exit 1 and leave nothing waiting; when the
// connection holding zkscope's lock is killed, CMD is stopped and zkscope
// exits 75. --mode shared is refused.
func TestMySQLLockExcludesMariaDBClient(t *testing.T) {
	m := dbtest.SharedMariaDB(t)
	env := myTestEnv(t)
	url := m.URL()
	name := "lock-excl:" + t.Name()
	dir := t.TempDir()
	started, goOn := filepath.Join(dir, "started"), filepath.Join(dir, "go")
	exit, stderr := startLockCmd(t, env, url, name, "touch "+started+"; while [ ! -e "+goOn+" ]; do sleep 0.1; done")
	dbtest.WaitFor(t, "CMD runs under the lock", func(context.Context) bool { return exists(started) })
	client := m.Client(t)
	if got := client.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 0)", name)); got != "0" {
		t.Fatalf("the mariadb client's GET_LOCK while zkscope holds the lock: %q", got)
	}
	os.WriteFile(goOn, nil, 0o600)
	if code := waitExit(t, exit, stderr); code != 0 {
		t.Fatalf("zkscope lock exited %d:\n%s", code, stderr.String())
	}
	if got := client.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 30)", name)); got != "1" {
		t.Fatalf("the mariadb client's GET_LOCK after zkscope released: %q", got)
	}

	if code, _, errOut := cmdtest.RunBinary(t, env, "-s", url, "lock", name, "--no-wait", "--", "true"); code != 1 {
		t.Errorf("--no-wait while the client holds: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := cmdtest.RunBinary(t, env, "-s", url, "lock", name, "--timeout", "1s", "--", "true"); code != 1 || !strings.Contains(errOut, "timed out") {
		t.Errorf("--timeout while the client holds: exit %d\n%s", code, errOut)
	}
	dbtest.WaitFor(t, "no GET_LOCK waiting after zkscope gave up", func(context.Context) bool {
		return myCount(t, m, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE = 'User lock'") == "0"
	})
	if code, _, errOut := cmdtest.RunBinary(t, env, "-s", url, "lock", name, "--mode", "shared", "--", "true"); code != 2 || !strings.Contains(errOut, "exclusive only") {
		t.Errorf("--mode shared: exit %d\n%s", code, errOut)
	}

	lost := name + ":lost"
	exit, stderr = startLockCmd(t, env, url, lost, "touch "+started+"-lost; sleep 120")
	dbtest.WaitFor(t, "CMD runs under the second lock", func(context.Context) bool { return exists(started + "-lost") })
	id := client.Query(t, fmt.Sprintf("SELECT IS_USED_LOCK('%s')", lost))
	client.Query(t, "KILL CONNECTION "+id+"; SELECT 'killed'")
	if code := waitExit(t, exit, stderr); code != 75 || !strings.Contains(stderr.String(), "LOST") {
		t.Errorf("the connection holding the lock killed: exit %d\n%s", code, stderr.String())
	}
}

// TestMySQLEvictEndsOnlyTheHolder: evict shows the holder's connection,
// refuses a waiter's id, --read-only and an unconfirmed run, and ends the
// holder it showed; the waiter then holds.
func TestMySQLEvictEndsOnlyTheHolder(t *testing.T) {
	m := dbtest.SharedMariaDB(t)
	env := myTestEnv(t)
	url := m.URL()
	name := "evict:" + t.Name()
	a := m.Client(t)
	a.Query(t, fmt.Sprintf("SELECT GET_LOCK('%s', 0)", name))
	b := m.Client(t)
	b.Send(t, fmt.Sprintf("SELECT GET_LOCK('%s', 600)", name))
	pa, pb := strconv.FormatInt(a.ID, 10), strconv.FormatInt(b.ID, 10)
	dbtest.WaitFor(t, "b waits", func(context.Context) bool {
		return myCount(t, m, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE = 'User lock' AND ID = "+pb) == "1"
	})
	code, out, errOut := cmdtest.RunBinary(t, env, "-s", url, "evict", name, "--expect-session", pb, "--yes")
	if code != 2 || !strings.Contains(errOut, "backend "+pb+" does not hold") {
		t.Errorf("evict a waiter: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = cmdtest.RunBinary(t, env, "-s", url, "evict", name); code != 2 || !strings.Contains(errOut, "stdin is not a terminal") ||
		!strings.Contains(out, "holder connection "+pa) || !strings.Contains(out, "Sleep") || !strings.Contains(out, "127.0.0.1:") {
		t.Errorf("evict without a terminal: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = cmdtest.RunBinary(t, env, "-s", url, "--read-only", "evict", name, "--expect-session", pa, "--yes"); code == 0 || !strings.Contains(errOut, "read-only") {
		t.Errorf("evict --read-only: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = cmdtest.RunBinary(t, env, "-s", url, "evict", name, "--expect-session", pa, "--yes"); code != 0 || !strings.Contains(out, "ended backend "+pa) {
		t.Fatalf("evict the holder: exit %d\n%s%s", code, out, errOut)
	}
	if got := b.Line(t); got != "1" {
		t.Fatalf("the waiter's GET_LOCK after the holder was ended: %q", got)
	}
	if n := myCount(t, m, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = "+pa); n != "0" {
		t.Errorf("the evicted connection %s still runs (%s)", pa, n)
	}
}
