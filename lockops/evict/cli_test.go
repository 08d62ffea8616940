package evict

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestCLIEvictConfirms: the evict command shows the preview; piped input
// never confirms, even the right sequence number (exit 2, nothing deleted,
// audited as refused, the message names --yes --expect-session with the
// owner's session); --yes needs --expect-session; --yes with it deletes.
func TestCLIEvictConfirms(t *testing.T) {
	cl := zktest.Shared(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	holder := locktest.NewClient(t, cl.Addrs())
	h, err := take.Take(context.Background(), holder, zktest.Path(t), take.Options{Library: lockops.Curator, Note: "nightly"})
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
		if code != lockops.ExitRefused || !strings.Contains(stderr, "not a terminal") || !strings.Contains(stderr, "--yes --expect-session "+lockops.FormatSession(h.Session)) ||
			!strings.Contains(out.String(), "nightly") || !strings.Contains(out.String(), lockops.FormatSession(h.Session)) {
			t.Fatalf("piped %q: exit %d\nstdout:\n%s\nstderr:\n%s", typed, code, out.String(), stderr)
		}
		if h.State() != hold.StateHeld {
			t.Fatalf("holder state %s after a refused evict", h.State())
		}
	}
	code, stderr := locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), "evict", h.Node, "--yes"), 60*time.Second)
	if code != lockops.ExitRefused || !strings.Contains(stderr, "--expect-session") {
		t.Fatalf("--yes without --expect-session: exit %d, stderr:\n%s", code, stderr)
	}
	if ok, _, _ := holder.Conn().Exists(h.Node); !ok {
		t.Fatal("a refused evict deleted the node")
	}
	cmd := locktest.ZkscopeCmd(t, state, cl.ConnectString(), "evict", h.Node, "--yes", "--expect-session", lockops.FormatSession(h.Session))
	code, stderr = locktest.RunWithin(t, cmd, 60*time.Second)
	if code != 0 {
		t.Fatalf("evict --yes --expect-session: exit %d, stderr:\n%s", code, stderr)
	}
	select {
	case <-h.LostCh():
	case <-time.After(30 * time.Second):
		t.Fatal("the holder did not notice the eviction")
	}
	entries := audittest.Read(t, filepath.Join(state, "zkscope", "audit.log"))
	if !audittest.Has(entries, lockops.OpForceDelete, audit.Refused, h.Node) || !audittest.Has(entries, lockops.OpForceDelete, audit.OK, h.Node) {
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
	if code != lockops.ExitRefused || !strings.Contains(stderr, "zkscope: refused to force-delete "+config+": it is not a lock node") || !strings.Contains(stderr, "--any-node") {
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
		if want := "zkscope: refused to revoke " + tc.node + ": " + tc.says; code != lockops.ExitRefused || !strings.HasPrefix(stderr, want) {
			t.Fatalf("revoke %s: exit %d, stderr:\n%s\nwant exit %d and %q", tc.node, code, stderr, lockops.ExitRefused, want)
		}
	}
	locktest.Unchanged(t, c, config, []byte("x=1"), 0)
	locktest.Unchanged(t, c, kazooHolder, data, st.Version)
	entries := audittest.Read(t, filepath.Join(state, "zkscope", "audit.log"))
	if !audittest.Has(entries, lockops.OpRevoke, audit.Refused, config) || !audittest.Has(entries, lockops.OpRevoke, audit.Refused, kazooHolder) {
		t.Fatalf("audit log lacks the refused revokes: %+v", entries)
	}
	kz.Release(t, "k1")
}
