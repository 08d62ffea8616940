package treecache

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// nextEvent waits for a tree event in which want(changes) holds, up to timeout.
func nextEvent(t *testing.T, tr *Tree, timeout time.Duration, what string, want func(map[string]Change) bool) map[string]Change {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev := <-tr.Events():
			if want(ev.Changes) {
				return ev.Changes
			}
		case <-deadline:
			t.Fatalf("timed out after %s waiting for a tree event: %s", timeout, what)
		}
	}
}

// noEventFor asserts that no event about p arrives for d (the absence of an
// event can only be checked over a window).
func noEventFor(t *testing.T, tr *Tree, d time.Duration, p string) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev := <-tr.Events():
			if c, ok := ev.Changes[p]; ok {
				t.Fatalf("unexpected event for %s: %s", p, c)
			}
		case <-deadline:
			return
		}
	}
}

func TestTreeExpandWatchCollapse(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, zkview.Config{Servers: cl.Addrs()})
	other := dial(t, zkview.Config{Servers: cl.Addrs()}) // another client makes the changes
	zktest.MakePath(t, c.Conn(), root)
	for _, n := range []string{"c", "a", "b"} {
		create(t, other, root+"/"+n, "v-"+n)
	}
	tr := New(c)
	defer tr.Close()
	ctx := context.Background()

	if err := tr.Expand(ctx, root); err != nil {
		t.Fatal(err)
	}
	names, ok := tr.Children(root)
	if !ok || strings.Join(names, ",") != "a,b,c" {
		t.Fatalf("children = %v %v, want sorted a,b,c", names, ok)
	}
	nextEvent(t, tr, 5*time.Second, "expand reported", func(m map[string]Change) bool { return m[root]&ChangeChildren != 0 })

	// Stats for the visible rows, in one bulk read.
	if err := tr.LoadStats(ctx, []string{root + "/a", root + "/b"}); err != nil {
		t.Fatal(err)
	}
	if n, ok := tr.Node(root + "/b"); !ok || !n.HasStat || string(n.Data) != "v-b" {
		t.Errorf("node b = %+v %v", n, ok)
	}

	// A child created by another client arrives as an event, and the watch
	// is re-armed: a second change arrives too.
	create(t, other, root+"/d", "")
	nextEvent(t, tr, 5*time.Second, "child d created", func(m map[string]Change) bool {
		names, _ := tr.Children(root)
		return m[root]&ChangeChildren != 0 && len(names) == 4
	})
	if err := other.Conn().Delete(root+"/a", -1); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, tr, 5*time.Second, "child a deleted", func(m map[string]Change) bool {
		names, _ := tr.Children(root)
		return strings.Join(names, ",") == "b,c,d"
	})

	// The selected node's data is watched and re-armed.
	if n, err := tr.Select(ctx, root+"/b"); err != nil || string(n.Data) != "v-b" {
		t.Fatalf("select: %+v %v", n, err)
	}
	for i := 1; i <= 2; i++ {
		want := fmt.Sprintf("new-%d", i)
		if _, err := other.Conn().Set(root+"/b", []byte(want), -1); err != nil {
			t.Fatal(err)
		}
		nextEvent(t, tr, 5*time.Second, "data change "+want, func(m map[string]Change) bool {
			n, _ := tr.Node(root + "/b")
			return m[root+"/b"]&ChangeData != 0 && string(n.Data) == want
		})
	}
	// The selected node deleted: marked gone.
	if err := other.Conn().Delete(root+"/b", -1); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, tr, 5*time.Second, "selected node gone", func(m map[string]Change) bool {
		return m[root+"/b"]&ChangeGone != 0
	})
	if n, _ := tr.Node(root + "/b"); !n.Gone {
		t.Errorf("deleted node not marked gone: %+v", n)
	}

	// Collapse: no more events for the directory, and its watch (which
	// fires once more on the server) is not re-armed.
	tr.Collapse(root)
	if _, ok := tr.Children(root); ok {
		t.Fatal("collapsed directory still has children")
	}
	create(t, other, root+"/e", "")
	noEventFor(t, tr, 500*time.Millisecond, root)
	create(t, other, root+"/f", "")
	noEventFor(t, tr, 300*time.Millisecond, root)
	tr.mu.Lock()
	armed := tr.armedKid[root]
	tr.mu.Unlock()
	if armed {
		t.Error("the collapsed directory's watch was re-armed")
	}
	// Expanding again sees the current list.
	if err := tr.Expand(ctx, root); err != nil {
		t.Fatal(err)
	}
	if names, _ := tr.Children(root); strings.Join(names, ",") != "c,d,e,f" {
		t.Errorf("re-expanded children = %v", names)
	}
}

func TestTreeDeletedMidRead(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, zkview.Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root+"/dir")
	create(t, c, root+"/x", "x")
	tr := New(c)
	defer tr.Close()
	ctx := context.Background()
	if err := tr.Expand(ctx, root); err != nil {
		t.Fatal(err)
	}
	// Listed, then deleted before its stat is read: marked gone, no error.
	if err := c.Conn().Delete(root+"/x", -1); err != nil {
		t.Fatal(err)
	}
	if err := tr.LoadStats(ctx, []string{root + "/dir", root + "/x"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := tr.Node(root + "/x"); !n.Gone || n.HasStat {
		t.Errorf("x = %+v, want gone", n)
	}
	if n, _ := tr.Node(root + "/dir"); n.Gone || !n.HasStat {
		t.Errorf("dir = %+v", n)
	}
	// Expanding a directory that vanished: gone, with a clear ErrNoNode.
	if err := c.Conn().Delete(root+"/dir", -1); err != nil {
		t.Fatal(err)
	}
	err := tr.Expand(ctx, root+"/dir")
	if !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("expand of a deleted node: %v", err)
	}
	if n, _ := tr.Node(root + "/dir"); !n.Gone || n.Expanded {
		t.Errorf("dir = %+v, want gone and not expanded", n)
	}
}

func TestTreeStaleRepliesDropped(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, zkview.Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root)
	create(t, c, root+"/new", "")
	tr := New(c)
	defer tr.Close()
	if err := tr.Expand(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	tr.mu.Lock()
	cur := tr.dirs[root].req
	tr.mu.Unlock()
	// A reply tagged with an older request id is dropped.
	st := &zk.Stat{}
	if err := tr.applyChildren(root, cur-1, []string{"old"}, st, nil); !errors.Is(err, ErrStale) {
		t.Errorf("stale apply: %v", err)
	}
	if names, _ := tr.Children(root); strings.Join(names, ",") != "new" {
		t.Errorf("children after a stale reply = %v", names)
	}
	// A reply for a directory collapsed meanwhile is dropped too.
	tr.Collapse(root)
	if err := tr.applyChildren(root, cur, []string{"old"}, st, nil); !errors.Is(err, ErrStale) {
		t.Errorf("apply after collapse: %v", err)
	}
	// Concurrent expands and collapses of the same path never leave a
	// collapsed directory loaded.
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr.Expand(context.Background(), root)
		}()
		tr.Collapse(root)
	}
	wg.Wait()
	tr.Collapse(root)
	if _, ok := tr.Children(root); ok {
		t.Error("a late reply re-expanded a collapsed directory")
	}
}

func TestTreeEventsCoalesced(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, zkview.Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root)
	tr := New(c)
	defer tr.Close()
	if err := tr.Expand(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	// Nobody reads Events during a burst of 200 creates: afterwards the
	// whole burst is waiting in at most a couple of events, and the list is
	// complete.
	for i := 0; i < 200; i++ {
		create(t, c, fmt.Sprintf("%s/n%03d", root, i), "")
	}
	events := 0
	deadline := time.After(10 * time.Second)
	for {
		names, _ := tr.Children(root)
		if len(names) == 200 {
			break
		}
		select {
		case <-tr.Events():
			events++
		case <-deadline:
			t.Fatalf("children never reached 200 (have %d)", len(names))
		}
	}
	t.Logf("200 creates delivered in %d events before the list was complete", events)
	if events > 50 {
		t.Errorf("%d events for a burst of 200 changes: not coalesced", events)
	}
}
