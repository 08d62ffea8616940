package ui

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// The lock pane says only what it knows, on real kazoo clients: watches
// the servers do not list are unknown until two answers judge them, a
// holder's "held" is what the pane saw, and a holder whose process is
// stopped is not answering.

// TestLiveChurnNoWatchMissing: four real kazoo workers loop on one lock
// (hold 0.3 s) while the lock pane shows it for 20 s: none of its waiters
// is ever marked ✗ or watch-missing, though some are confirmed ✓. Then,
// on a lock held by a real kazoo holder, a real kazoo client's node that
// never set a watch is.
func TestLiveChurnNoWatchMissing(t *testing.T) {
	s := zktest.Shared(t).ConnectString()
	base := zktest.Path(t)
	churn, stuck := base+"/churn", base+"/stuck"
	for _, id := range []string{"w1", "w2", "w3", "w4"} {
		zktest.KazooLoop(t, s, churn, id, 300*time.Millisecond).Await(t, id+" acquired")
	}
	zktest.KazooHolder(t, s, stuck, "holder", 30*time.Second)
	_, stuckNode := zktest.KazooNodeWithoutWatch(t, s, stuck)

	d := newLiveDriver(New(Options{Client: liveClient(t), Start: churn, Theme: "dark"}), 140, 40)
	defer d.Close()
	end, queues, judged := time.Now().Add(20*time.Second), 0, 0
	var last uint64
	d.until(t, 60*time.Second, "20 s of the churning lock", func(d *liveDriver) bool {
		if n := d.m.lock.Shown(); n != last {
			last, queues = n, queues+1
			q := d.m.lock.Queue()
			for _, x := range q.Participants {
				if x.WatchObserved != nil {
					judged++
					if !*x.WatchObserved {
						t.Errorf("waiter %s marked ✗ under churn", x.Node)
					}
				}
			}
			for _, pr := range q.Problems {
				if pr.Kind == lockops.ProblemWatchMissing {
					t.Errorf("watch-missing under churn: %s", pr.Detail)
				}
			}
		}
		return time.Now().After(end) && queues > 10
	})
	if judged == 0 {
		t.Errorf("in %d queues shown, no waiter's watch was ever confirmed: the servers' view was never applied", queues)
	}

	d2 := newLiveDriver(New(Options{Client: liveClient(t), Start: stuck, Theme: "dark"}), 140, 40)
	defer d2.Close()
	d2.until(t, 60*time.Second, "the waiter that never watched marked watch-missing", func(d *liveDriver) bool {
		for _, pr := range d.m.lock.Queue().Problems {
			if pr.Kind == lockops.ProblemWatchMissing && pr.Node == stuckNode {
				return strings.Contains(d.screen(), "✗")
			}
		}
		return false
	})
}

// heldPattern finds the pane's words for a holder: "held 3s", "node age
// 1m05s".
var heldPattern = regexp.MustCompile(`(held|node age) (\d+)s\b`)

// TestLiveHeldIsWhatThePaneSaw: a real kazoo holder is shown by its node's
// age ("node age", it held before the pane looked); a real kazoo waiter
// that waited behind it for a few seconds and then acquired is shown
// "held" for no longer than since its turn came — not its node's age.
func TestLiveHeldIsWhatThePaneSaw(t *testing.T) {
	s := zktest.Shared(t).ConnectString()
	lock := zktest.Path(t) + "/job"
	kz := zktest.StartKazoo(t, s)
	kz.Acquire(t, "first", "lock", lock)
	kz.Await(t, "first", "acquired")
	kz.Acquire(t, "second", "lock", lock)
	kz.Await(t, "second", "started")
	waitingSince := time.Now()

	d := newLiveDriver(New(Options{Client: liveClient(t), Start: lock, Theme: "dark"}), 140, 40)
	defer d.Close()
	d.until(t, 30*time.Second, "the holder by its node's age and the waiter", func(d *liveDriver) bool {
		q := d.m.lock.Queue()
		return len(q.Participants) == 2 && q.Participants[1].State == lockops.StateWaiting && strings.Contains(d.screen(), "node age ")
	})
	if strings.Contains(d.screen(), "held ") {
		t.Fatalf("a holder present at the pane's first read is shown held:\n%s", d.screen())
	}
	// Let the waiter wait a few seconds: its node is that much older than
	// its hold will be.
	d.until(t, 30*time.Second, "three seconds of waiting", func(d *liveDriver) bool { return time.Since(waitingSince) > 3*time.Second })
	released := time.Now()
	kz.Release(t, "first")
	kz.Await(t, "second", "acquired")
	d.until(t, 30*time.Second, "the second holding, shown held", func(d *liveDriver) bool {
		q := d.m.lock.Queue()
		return len(q.Participants) == 1 && strings.Contains(d.screen(), "held ")
	})
	m := heldPattern.FindStringSubmatch(d.screen())
	if m == nil || m[1] != "held" {
		t.Fatalf("no held time on screen:\n%s", d.screen())
	}
	held, _ := strconv.Atoi(m[2])
	if since := time.Since(released); time.Duration(held)*time.Second > since {
		t.Errorf("held %ds, but its turn came %s ago (its node is %s old): node age shown as held\n%s",
			held, since.Round(time.Second), time.Since(waitingSince).Round(time.Second), d.screen())
	}
}

// TestLiveStoppedHolderNotAnswering: a real kazoo holder (30 s session)
// whose process is stopped (SIGSTOP: its client sends nothing, not even
// pings) is flagged by the lock pane as not answering (session-hung) as
// soon as the servers' connection samples show it (two thirds of its
// timeout without a packet), long before the minute a holder that only
// pings is given, and before its session expires; never as "answered only
// pings".
func TestLiveStoppedHolderNotAnswering(t *testing.T) {
	s := zktest.Shared(t).ConnectString()
	lock := zktest.Path(t) + "/job"
	holder, node := zktest.KazooHolder(t, s, lock, "stopped", 30*time.Second)

	d := newLiveDriver(New(Options{Client: liveClient(t), Start: lock, Theme: "dark"}), 160, 40)
	defer d.Close()
	d.until(t, 30*time.Second, "the holder shown", func(d *liveDriver) bool {
		q := d.m.lock.Queue()
		return len(q.Participants) == 1 && q.Participants[0].Node == node
	})
	holder.Stop(t)
	defer holder.Continue(t)
	d.until(t, 60*time.Second, "the stopped holder flagged not answering", func(d *liveDriver) bool {
		for _, pr := range d.m.lock.Queue().Problems {
			if pr.Kind != lockops.ProblemSessionHung {
				continue
			}
			if strings.Contains(pr.Detail, "only pings") {
				t.Fatalf("a stopped holder is described as answering only pings: %s", pr.Detail)
			}
			return strings.Contains(pr.Detail, "not answering") && strings.Contains(d.screen(), "session-hung")
		}
		if q := d.m.lock.Queue(); len(q.Participants) == 0 {
			t.Fatalf("the stopped holder's session expired before the pane flagged it:\n%s", d.screen())
		}
		return false
	})
}
