package treecache

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestTreeResyncAfterMemberLoss: the tree follows two open directories
// and a selected node; the member zkscope uses is killed and a real kazoo
// client changes all three through the other members meanwhile (a child
// deleted, one created, data set). Once zkscope is connected again the
// tree equals a fresh read: nothing deleted is left, nothing created is
// missing. restart: zkscope may use that member only, which is started
// again (the changes are surely made while it is disconnected); failover:
// zkscope moves to another member (maybe before the changes are made).
// The time from the reconnection, or the changes when they came after
// it, to equality is logged (the goal: within a second).
func TestTreeResyncAfterMemberLoss(t *testing.T) {
	cl := zktest.StartEnsemble(t, 3, zktest.Options{})
	addrs := cl.Addrs()
	fresh := dial(t, zkview.Config{Servers: addrs})
	for _, failover := range []bool{false, true} {
		name := map[bool]string{false: "restart", true: "failover"}[failover]
		t.Run(name, func(t *testing.T) {
			servers := addrs[:1]
			if failover {
				servers = addrs
			}
			c := dial(t, zkview.Config{Servers: servers, SessionTimeout: 30 * time.Second})
			resyncAfterLoss(t, cl, c, fresh, "/"+name, !failover)
		})
	}
}

// resyncAfterLoss runs TestTreeResyncAfterMemberLoss's round below root.
func resyncAfterLoss(t *testing.T, cl *zktest.Cluster, c, fresh *zkview.Client, root string, restart bool) {
	dirs := []string{root, root + "/jobs"}
	sel := root + "/config"
	zktest.MakePath(t, c.Conn(), root+"/jobs/old")
	create(t, c, sel, "v1")
	create(t, c, root+"/jobs/keep", "")
	tr := New(c)
	defer tr.Close()
	ctx := context.Background()
	for _, p := range dirs {
		if err := tr.Expand(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.Select(ctx, sel); err != nil {
		t.Fatal(err)
	}
	if !tr.Following(root+"/jobs") || !tr.Following(sel) {
		t.Fatal("the tree does not follow with persistent watches")
	}
	conn, unsub := c.Subscribe()
	defer unsub()

	srv := cl.ByAddr(c.Server())
	srv.Kill()
	defer srv.Start() // running again for the next round
	var others []string
	for _, a := range cl.Addrs() {
		if a != srv.ClientAddr {
			others = append(others, a)
		}
	}
	kazooChange(t, strings.Join(others, ","), `zk.delete("`+root+`/jobs/old")
zk.create("`+root+`/jobs/new", b"")
zk.create("`+root+`/extra", b"")
zk.set("`+sel+`", b"v2")`)
	changed := time.Now() // (failing over, zkscope may be back before)
	if restart {
		if freshMatches(tr, fresh.Conn(), dirs, sel) {
			t.Fatal("the tree matches the changed tree while disconnected: nothing was tested")
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
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
		return freshMatches(tr, fresh.Conn(), dirs, sel)
	})
	from := back
	if changed.After(back) {
		from = changed
	}
	t.Logf("the tree equalled a fresh read %s after the reconnection to %s or the changes, whichever was later (goal: within 1s)",
		time.Since(from).Round(time.Millisecond), c.Server())
	if n, _ := tr.Node(root + "/jobs/old"); n.HasStat && !n.Gone {
		t.Error("the deleted node is still shown with its stat")
	}
}
