package follow_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestFollowAfterLostEvents: the network between zkscope and the server
// is cut while a followed lock changes (the watch session misses the
// event of a new waiter), then comes back; after the resync the waiter
// shows, and stays through the lock's later events (a cache kept from
// before the resync would lack it and drop it at each of them). With and
// without ScanCaches.
func TestFollowAfterLostEvents(t *testing.T) {
	for _, caches := range []bool{false, true} {
		t.Run(fmt.Sprintf("ScanCaches=%v", caches), func(t *testing.T) { followAfterLostEvents(t, follow.Options{ScanCaches: caches}) })
	}
}

func followAfterLostEvents(t *testing.T, o follow.Options) {
	cl := zktest.Shared(t)
	proxy := zktest.StartProxy(t, cl.Servers[0].ClientAddr)
	root := zktest.Path(t)
	other, err := zkview.Connect(context.Background(), zkview.Config{Servers: cl.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock := root + "/app/lock"
	zktest.MakePath(t, other.Conn(), lock)
	contend := func(uuid string) string { return contender(t, other.Conn(), lock, uuid) }
	names := func(q lockops.Queue) map[string]bool {
		m := map[string]bool{}
		for _, p := range q.Participants {
			m[lock+"/"+p.Name] = true
		}
		return m
	}
	first := contend("11111111-0000-4000-8000-000000000001")
	c, err := zkview.Connect(context.Background(), zkview.Config{Servers: []string{proxy.Addr()}, SessionTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	snaps, _ := followTree(t, c, root, o)
	awaitSnapshot(t, snaps, "the lock", func(m map[string]lockops.Queue) bool { return len(m[lock].Participants) == 1 })
	// An event of the lock first: its cache (if any) made from events.
	second := contend("22222222-0000-4000-8000-000000000002")
	awaitSnapshot(t, snaps, "the second waiter", func(m map[string]lockops.Queue) bool { return len(m[lock].Participants) == 2 })

	proxy.Block()
	lost := contend("33333333-0000-4000-8000-000000000003") // no event reaches zkscope
	time.Sleep(500 * time.Millisecond)                      // the scenario: cut for a while
	proxy.Unblock()
	awaitSnapshot(t, snaps, "the waiter that came while cut off, after the resync", func(m map[string]lockops.Queue) bool {
		return names(m[lock])[lost]
	})

	// The lock's later events apply to what the resync read.
	fourth := contend("44444444-0000-4000-8000-000000000004")
	if err := other.Conn().Delete(first, -1); err != nil {
		t.Fatal(err)
	}
	awaitSnapshot(t, snaps, "the queue as it is after later events", func(m map[string]lockops.Queue) bool {
		n := names(m[lock])
		return len(n) == 3 && n[second] && n[lost] && n[fourth]
	})
	// And it stays so: nothing later drops the waiter the events missed.
	fifth := contend("55555555-0000-4000-8000-000000000005")
	awaitSnapshot(t, snaps, "the fifth waiter beside the others", func(m map[string]lockops.Queue) bool {
		n := names(m[lock])
		return len(n) == 4 && n[second] && n[lost] && n[fourth] && n[fifth]
	})
}
