package lockrun

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestCLILockRunsCommand: `zkscope lock PATH -- sh -c 'exit 3'` exits 3 and
// leaves no node; a timeout exits 1 and leaves no node; both are audited.
func TestCLILockRunsCommand(t *testing.T) {
	cl := zktest.Shared(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	c := locktest.NewClient(t, cl.Addrs())
	lockPath := zktest.Path(t)

	cmd := locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", lockPath, "--recipe", "curator", "--", "sh", "-c", "echo ran; exit 3")
	var out bytes.Buffer
	cmd.Stdout = &out
	code, stderr := locktest.RunWithin(t, cmd, 60*time.Second)
	if code != 3 || out.String() != "ran\n" {
		t.Fatalf("exit %d, stdout %q, want 3 and \"ran\"; stderr:\n%s", code, out.String(), stderr)
	}
	if !strings.Contains(stderr, "holding "+lockPath) {
		t.Fatalf("stderr lacks the holding line:\n%s", stderr)
	}
	if kids := locktest.Children(t, c, lockPath); len(kids) != 0 {
		t.Fatalf("nodes left behind: %v", kids)
	}

	// A command that does not exist: 127 as in a shell, lock released.
	code, stderr = locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", lockPath, "--recipe", "curator", "--", "/nonexistent/zkscope-test-cmd"), 60*time.Second)
	if code != 127 || !strings.Contains(stderr, "released") {
		t.Fatalf("missing command: exit %d, want 127; stderr:\n%s", code, stderr)
	}

	// Someone else holds it: --timeout gives up, exit 1, no node left.
	h, err := take.Take(context.Background(), c, lockPath, take.Options{Library: lockops.Curator})
	if err != nil {
		t.Fatal(err)
	}
	code, stderr = locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", lockPath, "--timeout", "500ms", "--", "true"), 60*time.Second)
	if code != ExitNotAcquired || !strings.Contains(stderr, "timed out") || !strings.Contains(stderr, "no lock node was left behind") {
		t.Fatalf("exit %d, want %d with a timeout message; stderr:\n%s", code, ExitNotAcquired, stderr)
	}
	code, stderr = locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", lockPath, "--no-wait"), 60*time.Second)
	if code != ExitNotAcquired || !strings.Contains(stderr, "held by someone else") || strings.Contains(stderr, "position") {
		t.Fatalf("--no-wait: exit %d, want %d without a 'waiting… position' line; stderr:\n%s", code, ExitNotAcquired, stderr)
	}
	if kids := locktest.Children(t, c, lockPath); len(kids) != 1 {
		t.Fatalf("queue %v, want only the holder", kids)
	}
	h.Release(context.Background())

	entries := audittest.Read(t, filepath.Join(state, "zkscope", "audit.log"))
	if !audittest.Has(entries, lockops.OpTake, audit.OK, lockPath) || !audittest.Has(entries, lockops.OpRelease, audit.OK, lockPath) || !audittest.Has(entries, lockops.OpTake, audit.Failed, lockPath) {
		t.Fatalf("audit log lacks take/release/failed take: %+v", entries)
	}
}

// TestCLILockLostKillsCommand: the lock node is force-deleted while the
// command runs; zkscope stops the command (its whole process group) and
// exits 75.
func TestCLILockLostKillsCommand(t *testing.T) {
	cl := zktest.Shared(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	c := locktest.NewClient(t, cl.Addrs())
	lockPath := zktest.Path(t)
	cmd := locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", lockPath, "--recipe", "curator", "--kill-grace", "30s", "--",
		"sh", "-c", "echo started; sleep 600 & wait")
	stderr, exited := locktest.StartUnderLock(t, cmd)
	kids := locktest.Children(t, c, lockPath)
	if len(kids) != 1 {
		t.Fatalf("queue %v, want the CLI's node", kids)
	}
	p, err := evict.PreviewEvict(context.Background(), c, zkview.Join(lockPath, kids[0]), evict.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := evict.Evict(context.Background(), c, p.Node, p.Expect, evict.Options{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("zkscope did not stop the command after losing the lock; stderr:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != ExitLost {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitLost, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "LOST the lock") || !strings.Contains(s, "SIGTERM") {
		t.Fatalf("stderr lacks the lost message:\n%s", s)
	}
}

// TestCLIHoldUntilSignal: without a command zkscope holds until SIGINT,
// then releases and exits 0; with --revocable a revocation request makes it
// release and exit 75.
func TestCLIHoldUntilSignal(t *testing.T) {
	cl := zktest.Shared(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	c := locktest.NewClient(t, cl.Addrs())
	lockPath := zktest.Path(t)

	cmd := locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", lockPath, "--recipe", "curator", "--note", "by hand")
	stderr, exited := locktest.StartCLI(t, cmd, "Ctrl-C releases")
	if !strings.Contains(stderr.String(), "holding "+lockPath+" as ") || !strings.Contains(stderr.String(), "(session 0x") {
		t.Fatalf("holding line missing:\n%s", stderr.String())
	}
	if kids := locktest.Children(t, c, lockPath); len(kids) != 1 {
		t.Fatalf("queue %v, want the CLI's node", kids)
	}
	cmd.Process.Signal(os.Interrupt)
	if code := locktest.WaitExit(t, cmd, exited, stderr); code != 0 {
		t.Fatalf("exit %d after SIGINT; stderr:\n%s", code, stderr.String())
	}
	if kids := locktest.Children(t, c, lockPath); len(kids) != 0 {
		t.Fatalf("nodes left after SIGINT: %v", kids)
	}

	// Interrupted while waiting: gives up, exits 130 (128+SIGINT, as
	// shells report an interrupted command), leaves no node.
	h, err := take.Take(context.Background(), c, lockPath, take.Options{Library: lockops.Curator})
	if err != nil {
		t.Fatal(err)
	}
	cmd = locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", lockPath, "--", "true")
	stderr, exited = locktest.StartCLI(t, cmd, "waiting for "+lockPath)
	cmd.Process.Signal(os.Interrupt)
	if code := locktest.WaitExit(t, cmd, exited, stderr); code != 130 || !strings.Contains(stderr.String(), "giving up") {
		t.Fatalf("exit %d after SIGINT while waiting; stderr:\n%s", code, stderr.String())
	}
	locktest.WaitFor(t, "only the holder to remain", 30*time.Second, func() bool { return len(locktest.Children(t, c, lockPath)) == 1 })
	h.Release(context.Background())

	cmd = locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", lockPath, "--recipe", "curator", "--revocable")
	stderr, exited = locktest.StartCLI(t, cmd, "Ctrl-C releases")
	kids := locktest.Children(t, c, lockPath)
	if len(kids) != 1 {
		t.Fatalf("queue %v", kids)
	}
	res, err := evict.Revoke(context.Background(), c, zkview.Join(lockPath, kids[0]), 60*time.Second)
	if err != nil || !res.Released {
		t.Fatalf("revoke: %+v %v; stderr:\n%s", res, err, stderr.String())
	}
	if code := locktest.WaitExit(t, cmd, exited, stderr); code != ExitLost || !strings.Contains(stderr.String(), "revoked") {
		t.Fatalf("exit %d after revocation, want %d; stderr:\n%s", code, ExitLost, stderr.String())
	}
}
