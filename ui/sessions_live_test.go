package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLiveSessionsJumpToLock: on the real server, a real kazoo client
// holds a lock; `:sessions PATH` lists its session with the lock it holds
// and its client address, the filter keeps it, ⏎ on its lock goes to the
// lock in the tree with the holder's node selected in the lock pane, and
// S there comes back to the session.
func TestLiveSessionsJumpToLock(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	lockPath := base + "/locks/orders"
	kz := zktest.StartKazoo(t, zktest.Shared(t).ConnectString())
	kz.Acquire(t, "holder", "lock", lockPath)
	kz.Await(t, "holder", "acquired")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := scan.ReadDir(ctx, c, lockPath)
	if err != nil {
		t.Fatal(err)
	}
	q := lockops.Decode(raw, lockops.DecodeOptions{})
	if len(q.Participants) != 1 {
		t.Fatalf("the kazoo lock has %d nodes", len(q.Participants))
	}
	holder := q.Participants[0]

	d := openLiveSessions(t, c, base, "locks", 160)
	defer d.Close()
	d.until(t, 60*time.Second, "the kazoo session holding the lock, with its client", func(d *liveDriver) bool {
		s := d.screen()
		return d.m.screen == screenSessions && strings.Contains(s, lockops.FormatSession(holder.Session)) &&
			strings.Contains(s, "holds") && strings.Contains(s, lockPath) && strings.Contains(s, "127.0.0.1:")
	})

	// Filter on the lock, then move onto the lock row.
	d.apply(keyMsg("/"))
	typeLive(d, "orders")
	d.apply(keyMsg("enter"))
	for i := 0; i < 10; i++ {
		if s, l, ok := d.m.sessView.Selected(); ok && l != nil {
			if s.ID != holder.Session || l.Node != holder.Node || l.Lock != lockPath {
				t.Fatalf("the first lock row is %s of session %s, want the holder %s", l.Node, lockops.FormatSession(s.ID), holder.Node)
			}
			break
		}
		d.apply(keyMsg("down"))
	}
	if _, l, _ := d.m.sessView.Selected(); l == nil {
		t.Fatalf("no lock row under the cursor after the filter:\n%s", d.screen())
	}
	d.apply(keyMsg("enter"))
	d.until(t, 30*time.Second, "the lock pane on the lock with the holder selected", func(d *liveDriver) bool {
		x, ok := d.m.lock.Selected()
		return d.m.screen == screenTree && ok && x.Node == holder.Node && strings.Contains(d.screen(), "lock "+lockPath)
	})

	// And back to its session.
	d.apply(keyMsg("S"))
	d.until(t, 60*time.Second, "the session view on the holder's session", func(d *liveDriver) bool {
		s, _, ok := d.m.sessView.Selected()
		return d.m.screen == screenSessions && ok && s.ID == holder.Session
	})
}

// openLiveSessions starts the TUI at base, waits for the tree to show
// child, and types :sessions base.
func openLiveSessions(t *testing.T, c *zkview.Client, base, child string, width int) *liveDriver {
	t.Helper()
	d := newLiveDriver(New(Options{Client: c, Start: base, Theme: "dark"}), width, 40)
	d.until(t, 30*time.Second, "the tree at the start path", func(d *liveDriver) bool {
		return strings.Contains(d.screen(), child)
	})
	typeLive(d, ":sessions "+base)
	d.apply(keyMsg("enter"))
	return d
}

// typeLive types s into the live model, one key press per character.
func typeLive(d *liveDriver, s string) {
	for _, r := range s {
		d.apply(keyMsg(string(r)))
	}
}

// TestLiveSessionsEphemeralWait: a real kazoo client waiting on a plain
// ephemeral lock owns no node (it watches the holder's with exists); the
// session view still lists its wait, by the node it watches.
func TestLiveSessionsEphemeralWait(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	lockPath := base + "/leader"
	kz := zktest.StartKazoo(t, zktest.Shared(t).ConnectString())
	kz.Acquire(t, "a", "ephemeral", lockPath)
	kz.Await(t, "a", "acquired")
	kz.Acquire(t, "b", "ephemeral", lockPath)
	kz.Await(t, "b", "waiting")

	d := openLiveSessions(t, c, base, "leader", 200)
	defer d.Close()
	d.until(t, 60*time.Second, "the waiter's wait by watch next to the holder's hold", func(d *liveDriver) bool {
		s := d.screen()
		return d.m.screen == screenSessions && strings.Contains(s, "holds    "+lockPath) &&
			strings.Contains(s, "waits on "+lockPath) && strings.Contains(s, "watching "+lockPath)
	})
	waiters := 0
	for _, s := range d.m.sessView.All() {
		for _, l := range s.WaitsOn {
			if l.WatchOnly && l.Node == lockPath {
				waiters++
			}
		}
	}
	if waiters != 1 {
		t.Errorf("%d sessions wait by watch on %s, want 1:\n%s", waiters, lockPath, d.screen())
	}
}
