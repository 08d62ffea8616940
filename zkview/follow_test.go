package zkview

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/fourlw"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// nextEvents waits (a deadline generous for a loaded machine) until f
// has given n events, and returns them.
func nextEvents(t *testing.T, f *Follow, n int) []FollowEvent {
	t.Helper()
	var got []FollowEvent
	deadline := time.After(20 * time.Second)
	for len(got) < n {
		select {
		case <-f.Ready():
			got = append(got, f.Take()...)
		case <-deadline:
			t.Fatalf("%d events of %d: %v", len(got), n, got)
		}
	}
	return got
}

func follow(t *testing.T, c *Client, p string, recursive bool) *Follow {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	f, err := c.Follow(ctx, p, recursive)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Stop)
	return f
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestFollowEventsInOrder: a recursive Follow gives a resync, then every
// creation, data change and deletion below its root in the server's
// order; a non-recursive one its root's children changes.
func TestFollowEventsInOrder(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root)
	rec := follow(t, c, root, true)
	one := follow(t, c, root, false)
	if got := nextEvents(t, rec, 1); got[0] != (FollowEvent{FollowResync, root}) {
		t.Fatalf("first event %v, want a resync", got)
	}
	nextEvents(t, one, 1)
	conn, acl := c.Conn(), zk.WorldACL(zk.PermAll)
	a, b := root+"/a", root+"/a/b"
	_, err := conn.Create(a, nil, 0, acl)
	mustDo(t, err)
	_, err = conn.Set(a, []byte("x"), -1)
	mustDo(t, err)
	_, err = conn.Create(b, nil, zk.FlagEphemeral, acl)
	mustDo(t, err)
	mustDo(t, conn.Delete(b, -1))
	mustDo(t, conn.Delete(a, -1))
	want := []FollowEvent{{FollowCreated, a}, {FollowDataChanged, a}, {FollowCreated, b}, {FollowDeleted, b}, {FollowDeleted, a}}
	if got := nextEvents(t, rec, len(want)); !slices.Equal(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	// The non-recursive Follow saw its root's children change (twice).
	if got := nextEvents(t, one, 2); !slices.Equal(got[:2], []FollowEvent{{FollowChildrenChanged, root}, {FollowChildrenChanged, root}}) {
		t.Fatalf("non-recursive events %v", got)
	}
	// The recursive follower stops: the persistent watch takes the path
	// over on the server.
	rec.Stop()
	_, err = conn.Create(root+"/c", nil, 0, acl)
	mustDo(t, err)
	if got := nextEvents(t, one, 1); got[len(got)-1] != (FollowEvent{FollowChildrenChanged, root}) {
		t.Fatalf("after the recursive follower stopped: %v", got)
	}
	if ok, known := c.FollowSupported(); !ok || !known {
		t.Fatalf("FollowSupported = %v, %v", ok, known)
	}
	if id := c.WatchSessionID(); id == 0 || id == c.SessionID() {
		t.Fatalf("watch session %#x (main %#x): want one of its own", id, c.SessionID())
	}
}

// TestFollowChroot: the watch is set below the chroot and events come in
// the caller's view.
func TestFollowChroot(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	plain := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, plain.Conn(), root)
	c := dial(t, Config{Servers: cl.Addrs(), Chroot: root})
	f := follow(t, c, "/", true)
	nextEvents(t, f, 1)
	_, err := plain.Conn().Create(root+"/n", nil, 0, zk.WorldACL(zk.PermAll))
	mustDo(t, err)
	if got := nextEvents(t, f, 1); got[0] != (FollowEvent{FollowCreated, "/n"}) {
		t.Fatalf("event %v, want /n created", got)
	}
}

// TestFollowResyncAfterRestart: the server restarts under a Follow; the
// watch is set again on a new session and a resync comes before the
// events after it.
func TestFollowResyncAfterRestart(t *testing.T) {
	cl := zktest.StartStandalone(t, zktest.Options{})
	c := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), "/r")
	f := follow(t, c, "/r", true)
	nextEvents(t, f, 1)
	before := c.WatchSessionID()
	srv := cl.ByAddr(cl.Addrs()[0])
	srv.Kill()
	mustDo(t, srv.Start())
	// A JVM starting on a loaded machine can take most of a minute: wait
	// for it to serve before timing the client.
	mustDo(t, srv.WaitServing(90*time.Second))
	waitFor(t, "the main session to come back", 60*time.Second, func() bool { return c.State().State == StateConnected })
	got := nextEvents(t, f, 1)
	if got[0] != (FollowEvent{FollowResync, "/r"}) {
		t.Fatalf("after the restart: %v, want a resync first", got)
	}
	if after := c.WatchSessionID(); after == before {
		t.Errorf("the watch session %#x was not opened again", after)
	}
	_, err := c.Conn().Create("/r/after", nil, 0, zk.WorldACL(zk.PermAll))
	mustDo(t, err)
	if got := nextEvents(t, f, 1); got[0] != (FollowEvent{FollowCreated, "/r/after"}) {
		t.Fatalf("event after the resync: %v", got)
	}
}

// watchedBy lists the paths the server's wchc says session id watches.
func watchedBy(t *testing.T, addr string, id int64) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := fourlw.FourLetterWord(ctx, nil, addr, "wchc", 10*time.Second)
	mustDo(t, err)
	w, err := fourlw.ParseWchc(out)
	mustDo(t, err)
	return w[id]
}

// TestFollowStopRemovesWatch: Stop removes the watch from the server
// (wchc no longer lists it) while other Follows keep theirs; the last Stop
// closes the session.
func TestFollowStopRemovesWatch(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	x, y := root+"/x", root+"/y"
	zktest.MakePath(t, c.Conn(), x)
	zktest.MakePath(t, c.Conn(), y)
	fx, fy := follow(t, c, x, true), follow(t, c, y, false)
	fx2 := follow(t, c, x, true) // a second follower of the same watch
	id := c.WatchSessionID()
	addr := c.follow.w.Session().Addr()
	if w := watchedBy(t, addr, id); !slices.Contains(w, x) || !slices.Contains(w, y) {
		t.Fatalf("wchc lists %v for the watch session, want %s and %s", w, x, y)
	}
	fx.Stop()
	if w := watchedBy(t, addr, id); !slices.Contains(w, x) {
		t.Fatalf("the watch on %s went with one of its two followers: %v", x, w)
	}
	fx2.Stop()
	if w := watchedBy(t, addr, id); slices.Contains(w, x) || !slices.Contains(w, y) {
		t.Fatalf("after Stop: wchc lists %v, want %s only", w, y)
	}
	fy.Stop()
	waitFor(t, "the watch session to close", 10*time.Second, func() bool { return len(watchedBy(t, addr, id)) == 0 })
	if c.WatchSessionID() != 0 {
		t.Error("a watch session is open with nothing followed")
	}
}

// TestFollowUnsupportedRemembered makes the real server refuse addWatch as
// unimplemented (what a server before 3.6 answers) by sending an op code no
// version knows: Follow says so once and remembers it.
func TestFollowUnsupportedRemembered(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root)
	c.follow.op = 99
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Follow(ctx, root, true); !errors.Is(err, ErrFollowUnsupported) {
		t.Fatalf("Follow with an unknown op code: %v", err)
	}
	if ok, known := c.FollowSupported(); ok || !known {
		t.Fatalf("FollowSupported = %v, %v; want remembered as refused", ok, known)
	}
	if _, err := c.Follow(ctx, root, true); !errors.Is(err, ErrFollowUnsupported) {
		t.Fatalf("second Follow: %v", err)
	}
	if c.State().State != StateConnected {
		t.Errorf("main connection: %v", c.State().State)
	}
}

// TestIntrospectLeavesOwnWatchesOut: the members list the watch session
// watching what it follows, but Introspect leaves it out of every list
// (it is zkscope's own, never a waiter) and names it in Own.
func TestIntrospectLeavesOwnWatchesOut(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root)
	follow(t, c, root, true)
	id := c.WatchSessionID()
	if w := watchedBy(t, c.follow.w.Session().Addr(), id); !slices.Contains(w, root) {
		t.Fatalf("wchc lists %v for the watch session, want %s", w, root)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e := c.Introspect(ctx)
	if !slices.Contains(e.Own, id) {
		t.Fatalf("Own = %v, want the watch session %#x", e.Own, id)
	}
	for _, m := range e.Members {
		if !m.WatchesKnown {
			t.Fatalf("member %s: watches unknown", m.Addr)
		}
		for p, ids := range m.Watches {
			if slices.Contains(ids, id) {
				t.Errorf("member %s lists the watch session watching %s", m.Addr, p)
			}
		}
	}
}

// TestFollowPausedInOrder: with FollowPause the events of a burst come
// together, every one, in the server's order.
func TestFollowPausedInOrder(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs(), FollowPause: 20 * time.Millisecond})
	zktest.MakePath(t, c.Conn(), root)
	rec := follow(t, c, root, true)
	nextEvents(t, rec, 1) // the resync
	conn, acl := c.Conn(), zk.WorldACL(zk.PermAll)
	var want []FollowEvent
	for _, name := range []string{"a", "b", "c", "d"} {
		_, err := conn.Create(root+"/"+name, nil, 0, acl)
		mustDo(t, err)
		want = append(want, FollowEvent{FollowCreated, root + "/" + name})
	}
	for _, name := range []string{"b", "d"} {
		mustDo(t, conn.Delete(root+"/"+name, -1))
		want = append(want, FollowEvent{FollowDeleted, root + "/" + name})
	}
	if got := nextEvents(t, rec, len(want)); !slices.Equal(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
}
