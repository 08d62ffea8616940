package lockops

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
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
	h, err := Take(context.Background(), c, lockPath, TakeOptions{Library: Curator})
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

	entries := readAudit(t, filepath.Join(state, "zkscope", "audit.log"))
	if !hasAudit(entries, OpTake, AuditOK, lockPath) || !hasAudit(entries, OpRelease, AuditOK, lockPath) || !hasAudit(entries, OpTake, AuditFailed, lockPath) {
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
	p, err := PreviewEvict(context.Background(), c, zkview.Join(lockPath, kids[0]), EvictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Evict(context.Background(), c, p.Node, p.Expect, EvictOptions{}); err != nil {
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

// TestCLIEvictConfirms: the evict command shows the preview; piped input
// never confirms, even the right sequence number (exit 2, nothing deleted,
// audited as refused, the message names --yes --expect-session with the
// owner's session); --yes needs --expect-session; --yes with it deletes.
func TestCLIEvictConfirms(t *testing.T) {
	cl := zktest.Shared(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	holder := locktest.NewClient(t, cl.Addrs())
	h, err := Take(context.Background(), holder, zktest.Path(t), TakeOptions{Library: Curator, Note: "nightly"})
	if err != nil {
		t.Fatal(err)
	}
	seq := h.Node[len(h.Node)-10:]

	for _, typed := range []string{"0000000999\n", seq + "\n"} {
		cmd := locktest.ZkscopeCmd(t, state, cl.ConnectString(), "evict", h.Node)
		cmd.Stdin = strings.NewReader(typed)
		var out bytes.Buffer
		cmd.Stdout = &out
		code, stderr := locktest.RunWithin(t, cmd, 60*time.Second)
		if code != ExitRefused || !strings.Contains(stderr, "not a terminal") || !strings.Contains(stderr, "--yes --expect-session "+FormatSession(h.Session)) ||
			!strings.Contains(out.String(), "nightly") || !strings.Contains(out.String(), FormatSession(h.Session)) {
			t.Fatalf("piped %q: exit %d\nstdout:\n%s\nstderr:\n%s", typed, code, out.String(), stderr)
		}
		if h.State() != StateHeld {
			t.Fatalf("holder state %s after a refused evict", h.State())
		}
	}
	code, stderr := locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), "evict", h.Node, "--yes"), 60*time.Second)
	if code != ExitRefused || !strings.Contains(stderr, "--expect-session") {
		t.Fatalf("--yes without --expect-session: exit %d, stderr:\n%s", code, stderr)
	}
	if ok, _, _ := holder.Conn().Exists(h.Node); !ok {
		t.Fatal("a refused evict deleted the node")
	}
	cmd := locktest.ZkscopeCmd(t, state, cl.ConnectString(), "evict", h.Node, "--yes", "--expect-session", FormatSession(h.Session))
	code, stderr = locktest.RunWithin(t, cmd, 60*time.Second)
	if code != 0 {
		t.Fatalf("evict --yes --expect-session: exit %d, stderr:\n%s", code, stderr)
	}
	select {
	case <-h.LostCh():
	case <-time.After(30 * time.Second):
		t.Fatal("the holder did not notice the eviction")
	}
	entries := readAudit(t, filepath.Join(state, "zkscope", "audit.log"))
	if !hasAudit(entries, OpForceDelete, AuditRefused, h.Node) || !hasAudit(entries, OpForceDelete, AuditOK, h.Node) {
		t.Fatalf("audit log lacks the refused and the done force-delete: %+v", entries)
	}
}

// TestCLIEvictRefusesNonParticipant: evict of a plain node exits 2 and
// deletes nothing; with --any-node it deletes it.
func TestCLIEvictRefusesNonParticipant(t *testing.T) {
	cl := zktest.Shared(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	c := locktest.NewClient(t, cl.Addrs())
	config := locktest.MkNode(t, c, zktest.Path(t)+"/app/config", []byte("x=1"), 0)
	code, stderr := locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), "evict", config, "--yes", "--expect-session", "0x0"), 60*time.Second)
	if code != ExitRefused || !strings.Contains(stderr, "zkscope: refused to force-delete "+config+": it is not a lock node") || !strings.Contains(stderr, "--any-node") {
		t.Fatalf("evict of a plain node: exit %d, stderr:\n%s", code, stderr)
	}
	locktest.Unchanged(t, c, config, []byte("x=1"), 0)
	code, stderr = locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), "evict", config, "--any-node", "--yes", "--expect-session", "0x0"), 60*time.Second)
	if code != 0 {
		t.Fatalf("evict --any-node: exit %d, stderr:\n%s", code, stderr)
	}
	if ok, _, _ := c.Conn().Exists(config); ok {
		t.Fatal("evict --any-node left the node")
	}
}

// TestCLIRevokeRefuses: revoke of a plain config node and of a real kazoo
// holder exits 2, leaves the data as it was, and is audited as refused.
func TestCLIRevokeRefuses(t *testing.T) {
	cl := zktest.Shared(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	c := locktest.NewClient(t, cl.Addrs())
	dir := zktest.Path(t)
	config := locktest.MkNode(t, c, dir+"/app/config", []byte("x=1"), 0)

	kz := zktest.StartKazoo(t, cl.ConnectString())
	kz.Acquire(t, "k1", "lock", dir+"/kazoo")
	kz.Await(t, "k1", "acquired")
	kids := locktest.Children(t, c, dir+"/kazoo")
	if len(kids) != 1 {
		t.Fatalf("kazoo lock children %v, want the holder's", kids)
	}
	kazooHolder := zkview.Join(dir+"/kazoo", kids[0])
	data, st, err := c.Conn().Get(kazooHolder)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ node, says string }{
		{config, "it is not a lock node"},
		{kazooHolder, "it is a kazoo.lock holder: kazoo locks cannot be revoked"},
	} {
		code, stderr := locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), "revoke", tc.node, "--wait", "1s"), 60*time.Second)
		if want := "zkscope: refused to revoke " + tc.node + ": " + tc.says; code != ExitRefused || !strings.HasPrefix(stderr, want) {
			t.Fatalf("revoke %s: exit %d, stderr:\n%s\nwant exit %d and %q", tc.node, code, stderr, ExitRefused, want)
		}
	}
	locktest.Unchanged(t, c, config, []byte("x=1"), 0)
	locktest.Unchanged(t, c, kazooHolder, data, st.Version)
	entries := readAudit(t, filepath.Join(state, "zkscope", "audit.log"))
	if !hasAudit(entries, OpRevoke, AuditRefused, config) || !hasAudit(entries, OpRevoke, AuditRefused, kazooHolder) {
		t.Fatalf("audit log lacks the refused revokes: %+v", entries)
	}
	kz.Release(t, "k1")
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
	h, err := Take(context.Background(), c, lockPath, TakeOptions{Library: Curator})
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
	res, err := Revoke(context.Background(), c, zkview.Join(lockPath, kids[0]), 60*time.Second)
	if err != nil || !res.Released {
		t.Fatalf("revoke: %+v %v; stderr:\n%s", res, err, stderr.String())
	}
	if code := locktest.WaitExit(t, cmd, exited, stderr); code != ExitLost || !strings.Contains(stderr.String(), "revoked") {
		t.Fatalf("exit %d after revocation, want %d; stderr:\n%s", code, ExitLost, stderr.String())
	}
}
