package treecache

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestTreeResyncAfterMemberRestart: the tree follows two open directories
// and a selected node through the one member it may use; the member is
// killed, a real kazoo client changes all three through the other two
// members meanwhile (a child deleted, one created, data set), and the
// member is started again. Once zkscope is back, the tree equals a fresh
// read: nothing deleted is left, nothing created is missing. The time from
// the reconnection to that is logged (the goal: within a second).
func TestTreeResyncAfterMemberRestart(t *testing.T) {
	cl := zktest.StartEnsemble(t, 3, zktest.Options{})
	addrs := cl.Addrs()
	c := dial(t, zkview.Config{Servers: addrs[:1], SessionTimeout: 30 * time.Second})
	fresh := dial(t, zkview.Config{Servers: addrs[1:]})
	dirs := []string{"/app", "/app/jobs"}
	zktest.MakePath(t, c.Conn(), "/app/jobs/old")
	create(t, c, "/app/config", "v1")
	create(t, c, "/app/jobs/keep", "")
	tr := New(c)
	defer tr.Close()
	ctx := context.Background()
	for _, p := range dirs {
		if err := tr.Expand(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.Select(ctx, "/app/config"); err != nil {
		t.Fatal(err)
	}
	if !tr.Following("/app/jobs") || !tr.Following("/app/config") {
		t.Fatal("the tree does not follow with persistent watches")
	}
	conn, unsub := c.Subscribe()
	defer unsub()

	srv := cl.ByAddr(addrs[0])
	srv.Kill()
	waitFor(t, "zkscope to see its member gone", 60*time.Second, func() bool {
		return c.State().State != zkview.StateConnected
	})
	kazooChange(t, strings.Join(addrs[1:], ","), `zk.delete("/app/jobs/old")
zk.create("/app/jobs/new", b"")
zk.create("/app/extra", b"")
zk.set("/app/config", b"v2")`)
	if freshMatches(tr, fresh.Conn(), dirs, "/app/config") {
		t.Fatal("the tree matches the changed tree while disconnected: nothing was tested")
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	var back time.Time
	down := false // the channel starts with the state at Subscribe
	waitFor(t, "zkscope connected again", 120*time.Second, func() bool {
		for {
			select {
			case ev := <-conn:
				down = down || ev.State != zkview.StateConnected
				if ev.State == zkview.StateConnected && down && back.IsZero() {
					back = ev.Time
				}
				continue
			default:
			}
			return !back.IsZero()
		}
	})
	waitFor(t, "the tree to equal a fresh read", 30*time.Second, func() bool {
		return freshMatches(tr, fresh.Conn(), dirs, "/app/config")
	})
	t.Logf("the tree equalled a fresh read %s after the reconnection (goal: within 1s)", time.Since(back).Round(time.Millisecond))
	if n, _ := tr.Node("/app/jobs/old"); n.HasStat && !n.Gone {
		t.Error("the deleted node is still shown with its stat")
	}
}
