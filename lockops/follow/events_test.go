package follow_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// followTree runs Follow on root (interval: an hour, so every change
// shown comes from a watch) and returns its snapshots, each made whole
// (every lock, through a follow.Locks), and its notes.
func followTree(t *testing.T, c *zkview.Client, root string, o follow.Options) (<-chan follow.Snapshot, func() []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	snaps := make(chan follow.Snapshot, 1024)
	var mu sync.Mutex
	var notes []string
	o.NoVerify, o.Interval = true, time.Hour
	o.Note = func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }
	done := make(chan error, 1)
	var all follow.Locks
	go func() {
		done <- follow.Follow(ctx, c, root, o, func(s follow.Snapshot) error {
			all.Apply(s)
			s.Queues, s.Changes, s.Gone = all.Queues(), false, nil
			select {
			case snaps <- s:
			default:
			}
			return nil
		}, func(err error) { t.Errorf("scan failed: %v", err) })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Follow: %v", err)
		}
	})
	return snaps, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), notes...) }
}

// contender queues a Curator mutex contender (uuid) in dir, as conn's
// session; its node's path.
func contender(t *testing.T, conn *zk.Conn, dir, uuid string) string {
	t.Helper()
	p, err := conn.Create(dir+"/_c_"+uuid+"-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// awaitSnapshot waits for a snapshot ok accepts.
func awaitSnapshot(t *testing.T, snaps <-chan follow.Snapshot, what string, ok func(map[string]lockops.Queue) bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case s := <-snaps:
			m := map[string]lockops.Queue{}
			for _, q := range s.Queues {
				m[q.Path] = q
			}
			if ok(m) {
				return
			}
		case <-deadline:
			t.Fatalf("no snapshot with %s", what)
		}
	}
}

// TestFollowTreeWithEvents: on a tree followed with one persistent
// recursive watch, a lock directory made after the first scan appears, a
// new waiter shows, and a vanished directory leaves, all before any
// rescan (the interval is an hour); with ScanCaches too (the waiter
// applied to what the first scan read).
func TestFollowTreeWithEvents(t *testing.T) {
	for _, caches := range []bool{false, true} {
		t.Run(fmt.Sprintf("ScanCaches=%v", caches), func(t *testing.T) { followTreeWithEvents(t, follow.Options{ScanCaches: caches}) })
	}
}

func followTreeWithEvents(t *testing.T, o follow.Options) {
	srv := zktest.Shared(t)
	root := zktest.Path(t)
	c, err := zkview.Connect(context.Background(), zkview.Config{Servers: srv.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, b := root+"/app/a", root+"/app/b"
	zktest.MakePath(t, c.Conn(), a)
	contend := func(dir, uuid string) string { return contender(t, c.Conn(), dir, uuid) }
	contend(a, "11111111-0000-4000-8000-000000000001")
	snaps, notes := followTree(t, c, root, o)
	awaitSnapshot(t, snaps, "lock a", func(m map[string]lockops.Queue) bool { return len(m[a].Participants) == 1 })
	if n := notes(); len(n) != 0 {
		t.Fatalf("notes while following with a persistent watch: %q", n)
	}

	zktest.MakePath(t, c.Conn(), b)
	nb := contend(b, "22222222-0000-4000-8000-000000000002")
	awaitSnapshot(t, snaps, "the new lock b", func(m map[string]lockops.Queue) bool { return len(m[b].Participants) == 1 })
	contend(a, "33333333-0000-4000-8000-000000000003")
	awaitSnapshot(t, snaps, "a waiter on a", func(m map[string]lockops.Queue) bool { return len(m[a].Participants) == 2 })
	if err := c.Conn().Delete(nb, -1); err != nil {
		t.Fatal(err)
	}
	if err := c.Conn().Delete(b, -1); err != nil {
		t.Fatal(err)
	}
	awaitSnapshot(t, snaps, "lock b gone", func(m map[string]lockops.Queue) bool {
		_, ok := m[b]
		return !ok && len(m[a].Participants) == 2
	})
}

// TestFollowTreeFirehose: above the event rate the persistent watch is
// dropped, said once, and the locks are still followed (children
// watches).
func TestFollowTreeFirehose(t *testing.T) {
	srv := zktest.Shared(t)
	root := zktest.Path(t)
	c, err := zkview.Connect(context.Background(), zkview.Config{Servers: srv.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lock := root + "/lock"
	zktest.MakePath(t, c.Conn(), lock)
	contend := func(uuid string) { contender(t, c.Conn(), lock, uuid) }
	contend("44444444-0000-4000-8000-000000000004")
	snaps, notes := followTree(t, c, root, follow.Options{MaxEventRate: 10})
	awaitSnapshot(t, snaps, "the first scan", func(m map[string]lockops.Queue) bool { return len(m[lock].Participants) == 1 })
	// 100 creations in one multi-request: their events come at once.
	zktest.MakePath(t, c.Conn(), root+"/noise")
	var reqs []*zk.CreateRequest
	for i := 0; i < 100; i++ {
		reqs = append(reqs, &zk.CreateRequest{Path: root + "/noise/" + strings.Repeat("n", i+1), Acl: zk.WorldACL(zk.PermAll)})
	}
	if err := zktest.CreateAll(c.Conn(), reqs); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(notes()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the firehose guard never said anything")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := notes(); len(n) != 1 || !strings.Contains(n[0], "over 10 events a second") {
		t.Fatalf("notes %q", n)
	}
	contend("55555555-0000-4000-8000-000000000005")
	awaitSnapshot(t, snaps, "a waiter after the guard", func(m map[string]lockops.Queue) bool { return len(m[lock].Participants) == 2 })
}
