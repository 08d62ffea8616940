package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLiveWatchedParticipantIsNoEphemeralLock: the holder node of a real
// kazoo lock, watched by the lock's real waiter, is a participant of that
// lock: moving onto it neither tags it as a plain ephemeral lock nor opens
// it as one, before or after the servers list the waiter's watch.
func TestLiveWatchedParticipantIsNoEphemeralLock(t *testing.T) {
	cl := zktest.Shared(t)
	c := liveClient(t)
	dir := zktest.Path(t) + "/locks/t2"
	kz := zktest.StartKazoo(t, cl.ConnectString())
	kz.Acquire(t, "holder", "lock", dir)
	kz.Await(t, "holder", "acquired")
	kz.Acquire(t, "waiter", "lock", dir)
	var kids []string
	for deadline := time.Now().Add(90 * time.Second); len(kids) != 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the kazoo waiter never queued: %v", kids)
		}
		kids, _, _ = c.Conn().Children(c.Abs(dir))
	}
	slices.SortFunc(kids, func(a, b string) int { return strings.Compare(a[len(a)-10:], b[len(b)-10:]) })
	holder := dir + "/" + kids[0]
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if ens := c.Introspect(context.Background()); len(ens.Watchers(holder)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the servers never listed the waiter's watch on the holder")
		}
	}

	if msg, _ := lockCmd(c, 1, holder)().(lockMsg); msg.isDir || msg.err != nil {
		t.Errorf("the watched holder node read as a lock: %+v", msg)
	}
	m := New(Options{Client: c, Start: holder, Theme: "dark"})
	n, err := c.Get(holder)
	if err != nil {
		t.Fatal(err)
	}
	m.detail.Select(n.Path, common.Node{}, false, false)
	m.detail.OnSelect(common.Node{Path: n.Path, Stat: n.Stat, Data: n.Data, HasStat: true}, nil, nil)
	m.ens = c.Introspect(context.Background())
	cmd := m.ephemeralLockNow()
	if cmd == nil {
		return // not asked: not read as a lock either
	}
	msg, _ := cmd().(lockMsg)
	m.onLock(msg)
	if msg.isDir || m.detail.IsLock() {
		t.Errorf("the watched holder node opened as a %s", msg.queue.Kind)
	}
	if _, tagged := m.tree.Lock(holder); tagged {
		t.Error("the watched holder node is tagged as a lock in the tree")
	}
}
