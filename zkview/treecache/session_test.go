package treecache

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// The tree over a chrooted client shows, and reports events with, paths
// relative to the chroot.
func TestTreeChroot(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	raw := dial(t, zkview.Config{Servers: cl.Addrs()})
	zktest.MakePath(t, raw.Conn(), root+"/app/a/b")
	servers, chroot, err := zkview.ParseConnectString(cl.ConnectString() + root + "/app")
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, zkview.Config{Servers: servers, Chroot: chroot})
	tr := New(c)
	defer tr.Close()
	if err := tr.Expand(context.Background(), "/a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := tr.Children("/a"); strings.Join(got, ",") != "b" {
		t.Errorf("tree children of /a = %v", got)
	}
	// Watch events arrive with chroot-relative paths.
	if _, err := raw.Conn().Create(root+"/app/a/c", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ch := nextEvent(t, tr, 5*time.Second, "child created under the chroot", func(m map[string]Change) bool {
		got, _ := tr.Children("/a")
		return strings.Join(got, ",") == "b,c"
	})
	for p := range ch {
		if strings.HasPrefix(p, root) {
			t.Errorf("event path %s is not relative to the chroot", p)
		}
	}
}

// When the session expires and the client opens a new one, the tree
// reports a reset and re-arms its watches on the new session.
func TestTreeAfterSessionExpiry(t *testing.T) {
	cl := zktest.Shared(t)
	proxy := zktest.StartProxy(t, cl.Servers[0].ClientAddr)
	root := zktest.Path(t)
	observer := dial(t, zkview.Config{Servers: cl.Addrs()})
	zktest.MakePath(t, observer.Conn(), root)

	c := dial(t, zkview.Config{Servers: []string{proxy.Addr()}, SessionTimeout: 2 * time.Second})
	sid := c.SessionID()
	eph := root + "/eph"
	if _, err := c.Conn().Create(eph, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	tr := New(c)
	defer tr.Close()
	if err := tr.Expand(context.Background(), root); err != nil {
		t.Fatal(err)
	}

	// Partition the client from the server past the session timeout.
	proxy.Block()
	waitFor(t, "the server to expire the session (its ephemeral node gone)", 15*time.Second, func() bool {
		ok, _, err := observer.Conn().Exists(eph)
		return err == nil && !ok
	})
	proxy.Unblock()

	nextEvent(t, tr, 15*time.Second, "the reset on the new session", func(m map[string]Change) bool {
		return m["/"]&ChangeReset != 0
	})
	if got := c.SessionID(); got == sid || got == 0 {
		t.Fatalf("session after the reset = %#x, want a new one replacing %#x", uint64(got), uint64(sid))
	}
	// The watches were re-armed on the new session: a change is seen.
	if _, err := observer.Conn().Create(root+"/after", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, tr, 10*time.Second, "child created after the new session", func(m map[string]Change) bool {
		names, _ := tr.Children(root)
		return len(names) == 1 && names[0] == "after"
	})
}
