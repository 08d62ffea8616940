package treecache

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/fourlw"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// watchedBy is what the member at addr lists session id watching (wchc:
// data watches, where persistent watches are listed too).
func watchedBy(t testing.TB, addr string, id int64) []string {
	t.Helper()
	out, err := zktest.FourLetterWord(addr, "wchc", 10*time.Second)
	if err != nil {
		t.Fatalf("wchc: %v", err)
	}
	m, err := fourlw.ParseWchc(out)
	if err != nil {
		t.Fatalf("wchc: %v", err)
	}
	return m[id]
}

// TestTreeFollowsOpenDirs: on a 3.8 server the open directories and the
// selected node carry persistent watches on zkscope's watch session (the
// main session sets none), changes arrive through them, and a collapse
// removes the directory's watch from the server.
func TestTreeFollowsOpenDirs(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, zkview.Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root+"/a/x")
	create(t, c, root+"/b", "one")
	tr := New(c)
	defer tr.Close()
	ctx := context.Background()
	for _, p := range []string{root, root + "/a"} {
		if err := tr.Expand(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.Select(ctx, root+"/b"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{root, root + "/a", root + "/b"} {
		if !tr.Following(p) {
			t.Errorf("%s is not followed with a persistent watch", p)
		}
	}
	addr := c.Server()
	id := c.WatchSessionID()
	if w := watchedBy(t, addr, id); !slices.Contains(w, root) || !slices.Contains(w, root+"/a") || !slices.Contains(w, root+"/b") {
		t.Errorf("wchc for the watch session lists %v", w)
	}
	if w := watchedBy(t, addr, c.SessionID()); len(w) != 0 {
		t.Errorf("the main session watches %v, want nothing", w)
	}

	create(t, c, root+"/a/y", "")
	nextEvent(t, tr, 10*time.Second, "the new child of a", func(map[string]Change) bool {
		got, _ := tr.Children(root + "/a")
		return strings.Join(got, ",") == "x,y"
	})
	if _, err := c.Conn().Set(root+"/b", []byte("two"), -1); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, tr, 10*time.Second, "the selected node's new data", func(map[string]Change) bool {
		n, _ := tr.Node(root + "/b")
		return string(n.Data) == "two"
	})

	tr.Collapse(root + "/a")
	waitFor(t, "the collapsed directory's watch removed", 10*time.Second, func() bool {
		return !slices.Contains(watchedBy(t, addr, id), root+"/a")
	})
	if err := c.Conn().Delete(root+"/b", -1); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, tr, 10*time.Second, "the selected node gone", func(map[string]Change) bool {
		n, _ := tr.Node(root + "/b")
		return n.Gone
	})
}

// TestTreePollingOneShot: told to poll, the tree opens no watch session
// and keeps current with one-shot watches, as before persistent watches.
func TestTreePollingOneShot(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, zkview.Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root+"/a")
	tr := New(c)
	defer tr.Close()
	tr.SetPolling(true)
	if err := tr.Expand(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	if tr.Following(root) || c.WatchSessionID() != 0 {
		t.Fatalf("told to poll, the tree follows (watch session %#x)", c.WatchSessionID())
	}
	create(t, c, root+"/b", "")
	nextEvent(t, tr, 10*time.Second, "the new child through a one-shot watch", func(map[string]Change) bool {
		got, _ := tr.Children(root)
		return strings.Join(got, ",") == "a,b"
	})
}

// freshMatches says whether every open directory's children and the
// selected node's data are what a fresh read through fresh has.
func freshMatches(tr *Tree, fresh *zk.Conn, dirs []string, sel string) bool {
	for _, p := range dirs {
		want, _, err := fresh.Children(p)
		got, ok := tr.Children(p)
		if err != nil || !ok {
			return false
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return false
		}
	}
	data, _, err := fresh.Get(sel)
	n, _ := tr.Node(sel)
	return err == nil && n.HasStat && !n.Gone && string(n.Data) == string(data)
}

// kazooChange runs a real kazoo client against connect: deletes, creates
// and sets (as the script says), then closes.
func kazooChange(t *testing.T, connect, ops string) {
	t.Helper()
	script := "import sys\nfrom kazoo.client import KazooClient\nzk = KazooClient(hosts=sys.argv[1])\nzk.start(timeout=60)\n" +
		ops + "\nzk.stop()\nzk.close()\n"
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "/usr/bin/python3", "-c", script, connect).CombinedOutput(); err != nil {
		t.Fatalf("kazoo: %v: %s", err, out)
	}
}

// TestTreeWatchSessionIsOwn: the tree's persistent watches are on a
// session the servers list watching what the tree shows, and Introspect
// names it (with the multi-read session a bulk listing opened)
// among zkscope's own and leaves its watches out of every member's list:
// the tree is never taken for a waiter or watcher.
func TestTreeWatchSessionIsOwn(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, zkview.Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root+"/lock")
	create(t, c, root+"/lock/_c_0a1b2c3d-0000-4000-8000-000000000001-lock-0000000000", "")
	tr := New(c)
	defer tr.Close()
	ctx := context.Background()
	if err := tr.Expand(ctx, root+"/lock"); err != nil {
		t.Fatal(err)
	}
	kids, _ := tr.Children(root + "/lock")
	if err := tr.LoadStats(ctx, []string{root + "/lock/" + kids[0]}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ListChildren(ctx, root+"/lock"); err != nil { // through the multi-read session
		t.Fatal(err)
	}
	id := c.WatchSessionID()
	if w := watchedBy(t, c.Server(), id); !slices.Contains(w, root+"/lock") {
		t.Fatalf("wchc lists %v for the tree's watch session, want %s", w, root+"/lock")
	}
	ictx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	e := c.Introspect(ictx)
	if !slices.Contains(e.Own, id) {
		t.Fatalf("Own = %v lacks the tree's watch session %#x", e.Own, uint64(id))
	}
	t.Logf("own sessions: %#x", e.Own)
	if ok, _ := c.MultiReadSupported(); ok && len(e.Own) != 2 {
		t.Errorf("Own = %v, want the watch session and the multi-read one", e.Own)
	}
	for _, m := range e.Members {
		for p, ids := range m.Watches {
			for _, own := range e.Own {
				if slices.Contains(ids, own) {
					t.Errorf("member %s lists zkscope's own session %#x watching %s", m.Addr, uint64(own), p)
				}
			}
		}
	}
}

// TestTreeUnfollowsClosedAndDeleted: collapsing a directory removes the
// watches of every directory open below it too, and a deleted open
// directory's watch is removed with it: with nothing followed, the watch
// session closes.
func TestTreeUnfollowsClosedAndDeleted(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, zkview.Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root+"/a/x/leaf")
	zktest.MakePath(t, c.Conn(), root+"/gone/leaf")
	tr := New(c)
	defer tr.Close()
	ctx := context.Background()
	for _, p := range []string{root, root + "/a", root + "/a/x", root + "/gone"} {
		if err := tr.Expand(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	addr, id := c.Server(), c.WatchSessionID()
	if w := watchedBy(t, addr, id); len(w) != 4 {
		t.Fatalf("wchc lists %v for the watch session, want the 4 open directories", w)
	}
	tr.Collapse(root + "/a")
	waitFor(t, "the watches of a and a/x removed", 10*time.Second, func() bool {
		w := watchedBy(t, addr, id)
		slices.Sort(w)
		return slices.Equal(w, []string{root, root + "/gone"})
	})
	for _, p := range []string{root + "/gone/leaf", root + "/gone"} {
		if err := c.Conn().Delete(p, -1); err != nil {
			t.Fatal(err)
		}
	}
	nextEvent(t, tr, 10*time.Second, "the open directory gone", func(map[string]Change) bool {
		n, _ := tr.Node(root + "/gone")
		return n.Gone
	})
	waitFor(t, "the deleted directory's watch removed", 10*time.Second, func() bool {
		return slices.Equal(watchedBy(t, addr, id), []string{root})
	})
	tr.Collapse(root)
	waitFor(t, "the watch session closed, nothing followed", 10*time.Second, func() bool {
		return c.WatchSessionID() == 0
	})
}
