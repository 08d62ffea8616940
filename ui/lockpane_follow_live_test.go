package ui

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLivePaneFollowsOrPolls: on a real 3.8 server the lock pane follows
// the shown lock with a persistent watch and shows a new waiter from its
// events; told to poll, it shows the same through children watches.
func TestLivePaneFollowsOrPolls(t *testing.T) {
	for _, poll := range []bool{false, true} {
		lockPath := zktest.Path(t) + "/locks/job"
		contender(t, lockPath, "first")()
		m := New(Options{Client: liveClient(t), Start: lockPath, Theme: "dark"})
		m.lock.SetPolling(poll)
		d := newLiveDriver(m, 140, 40)
		d.until(t, 30*time.Second, "the holder, read by the pane", func(d *liveDriver) bool {
			return d.m.lock != nil && len(d.m.lock.Queue().Participants) == 1 && (poll || d.m.lock.Following())
		})
		if poll && d.m.lock.Following() {
			t.Fatal("told to poll, the pane follows")
		}
		contender(t, lockPath, "second")
		d.until(t, 30*time.Second, "the new waiter", func(d *liveDriver) bool {
			return len(d.m.lock.Queue().Participants) == 2
		})
		d.Close()
	}
}

// TestLivePaneResyncAfterRestart: the server restarts under a followed
// lock pane; once the watch is set again on a new session, a node deleted
// and one created show as a fresh read has them.
func TestLivePaneResyncAfterRestart(t *testing.T) {
	cl := zktest.StartStandalone(t, zktest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := zkview.Connect(ctx, zkview.Config{Servers: cl.Addrs(), SessionTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lockPath := "/locks/job"
	zktest.MakePath(t, c.Conn(), lockPath)
	node := func(uuid string) string {
		return liveCreate(t, c.Conn(), lockPath+"/_c_"+uuid+"-lock-", nil, zk.FlagSequence)
	}
	first := node("11111111-0000-4000-8000-000000000001")
	d := newLiveDriver(New(Options{Client: c, Start: lockPath, Theme: "dark"}), 140, 40)
	defer d.Close()
	d.until(t, 30*time.Second, "the pane following the lock", func(d *liveDriver) bool {
		return d.m.lock != nil && d.m.lock.Following() && len(d.m.lock.Queue().Participants) == 1
	})
	before := c.WatchSessionID()
	srv := cl.ByAddr(cl.Addrs()[0])
	srv.Kill()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	d.until(t, 90*time.Second, "the watch session open again, the main session back", func(*liveDriver) bool {
		id := c.WatchSessionID()
		return id != 0 && id != before && c.State().State == zkview.StateConnected
	})
	if err := c.Conn().Delete(first, -1); err != nil {
		t.Fatal(err)
	}
	second := node("22222222-0000-4000-8000-000000000002")
	d.until(t, 30*time.Second, "the queue as a fresh read has it", func(d *liveDriver) bool {
		q := d.m.lock.Queue().Participants
		return d.m.lock.Following() && len(q) == 1 && q[0].Node == second
	})
}
