package lockpane

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/dialog"
)

// TestHoldFenceAndCountdown: the held lock shows its fence (our node's
// creation zxid); SUSPENDED counts down to the moment the lock must be
// treated as lost, on its own tick.
func TestHoldFenceAndCountdown(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(mutexQueue(), lockT0)
	h := &take.Held{Path: lockDir, Node: mutexQueue().Participants[0].Node, Mode: lockops.ModeExclusive,
		Session: 0x1234, Czxid: 4294967301, Acquired: lockT0.Add(-5 * time.Second)}
	p.act.held, p.act.holdState = h, hold.StateHeld
	if out := paneScreen(p); !strings.Contains(out, "fence 4294967301 · session 0x1234") {
		t.Fatalf("no fence shown:\n%s", out)
	}
	cmd := p.Update(holdChangeMsg{held: h, ok: true, ch: hold.Change{State: hold.StateSuspended,
		Reason: "no answer from ZooKeeper for 1.2s", Deadline: lockT0.Add(2500 * time.Millisecond)}})
	if cmd == nil {
		t.Fatal("SUSPENDED started no countdown tick")
	}
	if out := paneScreen(p); !strings.Contains(out, "Treated as LOST in 2.5s") {
		t.Fatalf("no countdown:\n%s", out)
	}
	if cmd := p.Update(holdTickMsg{held: h, at: lockT0.Add(time.Second)}); cmd == nil {
		t.Fatal("the countdown tick did not re-arm while suspended")
	}
	if out := paneScreen(p); !strings.Contains(out, "Treated as LOST in 1.5s") || !strings.Contains(ansi.Strip(p.HeaderBadge()), "lost in 1.5s") {
		t.Fatalf("countdown did not move:\n%s\n%s", out, p.HeaderBadge())
	}
	p.Update(holdChangeMsg{held: h, ok: true, ch: hold.Change{State: hold.StateHeld, Deadline: lockT0.Add(4 * time.Second)}})
	if cmd := p.Update(holdTickMsg{held: h, at: lockT0.Add(1100 * time.Millisecond)}); cmd != nil {
		t.Fatal("the countdown ticks on after the lock is held again")
	}
}

// TestLostStaysLostNote: after LOST (and u, which finds nothing to
// release) the deletion of our node on the session's return is still
// reported.
func TestLostStaysLostNote(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(mutexQueue(), lockT0)
	h := &take.Held{Path: lockDir, Node: mutexQueue().Participants[0].Node, Mode: lockops.ModeExclusive, Acquired: lockT0}
	p.act.held, p.act.holdState = h, hold.StateHeld
	p.Update(holdChangeMsg{held: h, ok: true, ch: hold.Change{State: hold.StateLost, Reason: "no answer from ZooKeeper", WatchingForReturn: true}})
	if box := dialogBox(p); !strings.Contains(box, "stays lost") {
		t.Fatalf("the LOST alert does not say the node will be deleted:\n%s", box)
	}
	press(p, "enter")
	p.Update(releaseDoneMsg{held: h, err: fmt.Errorf("release: %w", hold.ErrLost)})
	if p.act.held != nil {
		t.Fatal("u after LOST kept the lock")
	}
	p.Update(holdChangeMsg{held: h, ok: true, ch: hold.Change{State: hold.StateLost, NodeDeleted: true,
		Reason: "deleted our node " + h.Node + " after session 0x1 came back: the lock had been declared lost, so nothing holds it now"}})
	if !strings.Contains(p.note.Text, "Deleted our node") {
		t.Fatalf("the deletion is not reported: %q", p.note.Text)
	}
}

// TestRejoinAfterLostPlace: a wait cut short by a new session offers to
// take the lock again with the same options.
func TestRejoinAfterLostPlace(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(mutexQueue(), lockT0)
	p.client = liveClient(t)
	opts := take.Options{Mode: lockops.ModeExclusive, Library: lockops.Kazoo, Note: "deploy"}
	p.act.taking = &takeState{id: 3, path: lockDir, mode: lockops.ModeExclusive, cancel: func() {}}
	p.Update(takeDoneMsg{id: 3, path: lockDir, opts: opts, err: fmt.Errorf("take %s: the session ended while waiting: %w; our place in the queue of %s is lost: take the lock again to rejoin", lockDir, hold.ErrLost, lockDir)})
	if _, ok := front[*dialog.RejoinOffer](p); !ok || !p.Modal() {
		t.Fatal("no rejoin offered")
	}
	if box := dialogBox(p); !strings.Contains(box, "rejoin") || !strings.Contains(box, "lost our place") {
		t.Fatalf("rejoin dialog:\n%s", box)
	}
	if cmd := press(p, "y"); cmd == nil || p.act.taking == nil || p.act.taking.path != lockDir {
		t.Fatal("y did not take again")
	}
	t.Cleanup(p.Close)
}
