package ui

import (
	"testing"
	"time"

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
