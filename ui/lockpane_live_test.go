package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// contender takes lockPath on its own session (a real contender in
// Curator's format) and returns once it holds or waits there.
func contender(t *testing.T, lockPath, note string) (held func() *take.Held) {
	t.Helper()
	return contenderWith(t, liveClient(t), lockPath, note)
}

// contenderWith is [contender] on the connection c.
func contenderWith(t *testing.T, c *zkview.Client, lockPath, note string) (held func() *take.Held) {
	t.Helper()
	ch := make(chan *take.Held, 1)
	queued := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		h, err := take.Take(ctx, c, lockPath, take.Options{Library: lockops.Curator, Note: note,
			Progress: func(take.Progress) {
				select {
				case queued <- struct{}{}:
				default:
				}
			}})
		if err != nil {
			ch <- nil
			return
		}
		ch <- h
	}()
	select {
	case <-queued:
	case <-time.After(15 * time.Second):
		t.Fatalf("contender %s never queued", note)
	}
	var h *take.Held
	return func() *take.Held {
		if h == nil {
			select {
			case h = <-ch:
			case <-time.After(15 * time.Second):
				t.Fatalf("contender %s never got the lock", note)
			}
		}
		return h
	}
}

// TestLiveTeatestLockQueue runs the whole program (teatest) on a lock
// directory of the real server: alpha holds, beta waits; alpha releases
// and the pane shows alpha's node released and beta holding.
func TestLiveTeatestLockQueue(t *testing.T) {
	c := liveClient(t)
	lockPath := zktest.Path(t) + "/locks/deploy"
	alpha := contender(t, lockPath, "alpha")
	alpha() // holds
	beta := contender(t, lockPath, "beta")

	m := New(Options{Client: c, Start: lockPath, Theme: "dark"})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(140, 40))
	t.Cleanup(func() { tm.Quit() })
	wait := func(subs ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, s := range subs {
				if !strings.Contains(string(b), s) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	wait("curator.mutex", "alpha", "beta", "watches")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := alpha().Release(ctx); err != nil {
		t.Fatal(err)
	}
	beta()
	wait("released")
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	q := fm.lock.Queue()
	hs := q.Holders()
	if len(q.Participants) != 1 || len(hs) != 1 || !strings.HasSuffix(string(hs[0].Data), ": beta") {
		t.Fatalf("after alpha's release the pane shows %+v", q.Participants)
	}
}

// TestLiveTakeForceDeleteQuit drives the root model against the real
// server: we take a lock held by alpha (our node shown, our position and
// whom we wait on), force-delete alpha's node with the typed sequence
// number (alpha sees LOST, we get the lock), then quit, which asks and
// releases.
func TestLiveTakeForceDeleteQuit(t *testing.T) {
	c := liveClient(t)
	lockPath := zktest.Path(t) + "/locks/batch"
	alpha := contender(t, lockPath, "alpha")
	alphaHeld := alpha()

	d := newLiveDriver(New(Options{Client: c, Start: lockPath, Theme: "light"}), 120, 35)
	defer d.Close()
	d.until(t, 20*time.Second, "alpha holding in the lock pane", func(d *liveDriver) bool {
		return d.m.detail.IsLock() && len(d.m.lock.Queue().Participants) == 1 && strings.Contains(d.screen(), "alpha")
	})

	// Take: t, then enter (exclusive, auto recipe: Curator's format here).
	d.apply(tea.KeyPressMsg{Code: 't', Text: "t"})
	if !d.m.lock.Modal() {
		t.Fatalf("t did not open the take dialog; screen:\n%s", d.screen())
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 20*time.Second, "our node waiting behind alpha", func(d *liveDriver) bool {
		s := d.screen()
		return strings.Contains(s, "We wait at position 2 of 2 on H1") && strings.Contains(s, " you ") && len(d.m.lock.Queue().Participants) == 2
	})

	// Force-delete alpha's node (H1, under the pane's cursor).
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab})
	d.apply(tea.KeyPressMsg{Code: 'X', ShiftedCode: 'X', Text: "X", Mod: tea.ModShift})
	d.until(t, 15*time.Second, "the force-delete preview", func(d *liveDriver) bool {
		fd, ok := d.m.dialogs.Front().(*dialog.ForceDelete)
		return ok && fd.Preview() != nil
	})
	pv := d.m.dialogs.Front().(*dialog.ForceDelete).Preview()
	if pv.Node != alphaHeld.Node || !pv.Holding || len(pv.NextHolders) != 1 {
		t.Fatalf("preview = %+v", pv)
	}
	if s := d.screen(); !strings.Contains(s, "NOT told") || !strings.Contains(s, "Type "+pv.SequenceSuffix()) {
		t.Fatalf("the dialog lacks the warning or the prompt:\n%s", s)
	}
	for _, r := range pv.SequenceSuffix() {
		d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 20*time.Second, "alpha deleted and our lock held", func(d *liveDriver) bool {
		s := d.screen()
		return strings.Contains(s, "We hold this lock") && d.m.lock.Holding() && len(d.m.lock.Queue().Participants) == 1
	})
	deadline := time.Now().Add(10 * time.Second)
	for alphaHeld.State() != hold.StateLost {
		if time.Now().After(deadline) {
			t.Fatalf("alpha's lock is %s after the force-delete, want lost", alphaHeld.State())
		}
		time.Sleep(20 * time.Millisecond)
	}
	ours := d.m.lock.Held().Node

	// q asks; y releases and quits.
	d.apply(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if !d.m.lock.Modal() || !strings.Contains(d.screen(), "Quit while holding a lock?") {
		t.Fatalf("q while holding did not ask; screen:\n%s", d.screen())
	}
	nm, cmd := d.m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	d.m = nm.(Model)
	// The release runs (among the batch); its result quits the program.
	msgs := []tea.Msg{cmd()}
	if b, ok := msgs[0].(tea.BatchMsg); ok {
		msgs = msgs[:0]
		for _, c := range b {
			if c != nil {
				msgs = append(msgs, c())
			}
		}
	}
	quit := false
	for _, msg := range msgs {
		if msg == nil {
			continue
		}
		nm, next := d.m.Update(msg)
		d.m = nm.(Model)
		quit = quit || isQuit(next)
	}
	if !quit || d.m.lock.Holding() {
		t.Fatalf("y did not release and quit (holding %v)", d.m.lock.Holding())
	}
	if _, _, err := c.Conn().Get(ours); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("our node %s still exists after release and quit (%v)", ours, err)
	}
}

// TestLiveHeldRevokedThenLost: we hold a lock in the TUI; another client
// asks for it (a Curator revocation request: we are told), then
// force-deletes our node: the pane says LOST at once, never "held", and
// an alert opens; quitting no longer asks.
func TestLiveHeldRevokedThenLost(t *testing.T) {
	c := liveClient(t)
	other := liveClient(t)
	lockPath := zktest.Path(t) + "/locks/maint"

	d := newLiveDriver(New(Options{Client: c, Start: "/", Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 20*time.Second, "the first frame", func(d *liveDriver) bool { return d.m.client != nil })
	// Take a new lock by path (from the tree: t, then type the path).
	d.apply(tea.KeyPressMsg{Code: 't', Text: "t"})
	if !d.m.lock.Modal() {
		t.Fatalf("t did not open the take dialog; screen:\n%s", d.screen())
	}
	setTakePath(d, lockPath)
	// Nothing tells which library the applications use: the dialog says
	// so and asks for a recipe instead of guessing.
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 20*time.Second, "the dialog refusing to guess", func(d *liveDriver) bool {
		dl, ok := d.m.dialogs.Front().(*dialog.TakeLock)
		return ok && dl.Field() == dialog.TakeFieldRecipe && strings.Contains(d.screen(), "Pick the recipe")
	})
	if kids, _, _ := c.Children(lockPath); len(kids) != 0 {
		t.Fatalf("a refused take created %v", kids)
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyRight}) // curator
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 20*time.Second, "our lock held and shown", func(d *liveDriver) bool {
		return d.m.lock.Holding() && d.m.detail.Path() == lockPath && strings.Contains(d.screen(), "We hold this lock")
	})
	ours := d.m.lock.Held().Node

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := evict.Revoke(ctx, other, ours, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	d.until(t, 15*time.Second, "the revocation request shown", func(d *liveDriver) bool {
		return strings.Contains(d.screen(), "Someone asked for it")
	})

	pv, err := evict.PreviewEvict(ctx, other, ours, evict.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := evict.Evict(ctx, other, ours, pv.Expect, evict.Options{}); err != nil {
		t.Fatal(err)
	}
	d.until(t, 15*time.Second, "the LOST alert", func(d *liveDriver) bool {
		return d.m.lock.Modal() && strings.Contains(d.screen(), "Lock LOST")
	})
	if s := d.screen(); strings.Contains(s, "We hold this lock") || d.m.lock.Holding() {
		t.Fatalf("still claims to hold a lost lock:\n%s", s)
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	if d.m.lock.Modal() {
		t.Fatal("enter did not close the alert")
	}
	if _, cmd := d.m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"}); !isQuit(cmd) {
		t.Fatal("q after the lock was lost did not quit at once")
	}
}

// TestLiveSuspendedThenLost: we hold a lock in the TUI on a server of our
// own; the server freezes: the pane shows SUSPENDED (may still be held),
// then, past the session timeout, LOST with an alert.
func TestLiveSuspendedThenLost(t *testing.T) {
	cl := zktest.StartStandalone(t, zktest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := zkview.Connect(ctx, zkview.Config{Servers: cl.Addrs(), SessionTimeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	lockPath := "/locks/frozen"

	d := newLiveDriver(New(Options{Client: c, Start: "/", Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 20*time.Second, "the first frame", func(d *liveDriver) bool { return d.m.client != nil })
	d.apply(tea.KeyPressMsg{Code: 't', Text: "t"})
	setTakePath(d, lockPath)
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab}) // mode
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab}) // recipe
	d.apply(tea.KeyPressMsg{Code: tea.KeyRight})
	if dl := d.m.dialogs.Front().(*dialog.TakeLock); dl.Recipe() != lockops.Curator {
		t.Fatalf("the recipe chosen is %v, want Curator", dl.Recipe())
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 20*time.Second, "our lock held", func(d *liveDriver) bool {
		return d.m.lock.Holding() && strings.Contains(d.screen(), "We hold this lock")
	})

	srv := cl.Servers[0]
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Resume() })
	d.until(t, 20*time.Second, "SUSPENDED", func(d *liveDriver) bool {
		s := d.screen()
		return strings.Contains(s, "SUSPENDED") && !strings.Contains(s, "We hold this lock")
	})
	if !d.m.lock.Holding() {
		t.Fatal("a suspended lock must still count as held for quitting")
	}
	d.until(t, 30*time.Second, "LOST", func(d *liveDriver) bool {
		return d.m.lock.Modal() && strings.Contains(d.screen(), "Lock LOST")
	})
	if d.m.lock.Holding() {
		t.Fatal("a lost lock still counts as held")
	}
}

// TestLiveWatchMarks: on the real server, beta waits on alpha's node; once
// the pane has asked the servers, beta's chain shows the watch as seen (✓)
// and the owners' client addresses appear. Skipped while
// [zkview.Client.Introspect] cannot tell watches yet.
func TestLiveWatchMarks(t *testing.T) {
	c := liveClient(t)
	lockPath := zktest.Path(t) + "/locks/marks"
	contender(t, lockPath, "alpha")()
	contender(t, lockPath, "beta")

	// Does the servers' view know watches here at all?
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	known := false
	for !known && ctx.Err() == nil {
		d, err := scan.ReadDir(ctx, c, lockPath)
		if err != nil {
			t.Fatal(err)
		}
		qs := []lockops.Queue{lockops.Decode(d, lockops.DecodeOptions{})}
		diagnose.Verify(ctx, c, qs)
		for _, x := range qs[0].Participants {
			known = known || x.WatchObserved != nil && *x.WatchObserved
		}
		if !known {
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	if !known {
		t.Fatal("the servers' view (zkview.Client.Introspect) never reported the waiter's watch")
	}

	d := newLiveDriver(New(Options{Client: c, Start: lockPath, Theme: "dark"}), 140, 40)
	defer d.Close()
	d.until(t, 20*time.Second, "beta's watch seen and the client addresses", func(d *liveDriver) bool {
		s := d.screen()
		return strings.Contains(s, "W1 ──watches ✓──▶ H1") && strings.Contains(s, "· 127.0.0.1:")
	})
}

// setTakePath replaces the take dialog's path by typing it (ctrl+u clears
// the field first).
func setTakePath(d *liveDriver, p string) {
	d.apply(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	for _, r := range p {
		d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// TestLiveLockCountFromPaneRead: while the lock pane reads a directory,
// the tree's row for it takes both the queue length and the child count
// from the pane's read (they agree after every message, as the directory
// grows); once the cursor leaves it, the row counts from the tree's own
// listing again.
func TestLiveLockCountFromPaneRead(t *testing.T) {
	c := liveClient(t)
	dir := zktest.Path(t) + "/counted"
	const n = 5
	zktest.FillChildren(t, c.Conn(), dir, n, churnName, func(int) []byte { return []byte("w") }, 0)
	m := New(Options{Client: c, Start: dir, Theme: "dark"})
	d := newLiveDriver(m, 140, 40)
	defer d.Close()
	agree := func(d *liveDriver, want int) bool {
		tag, ok := d.m.tree.Lock(dir)
		if ok && tag.Counted && tag.Children != tag.Length {
			t.Fatalf("the row shows %d queued next to %d children", tag.Length, tag.Children)
		}
		return ok && tag.Counted && tag.Children == want
	}
	d.until(t, 20*time.Second, "the row counted from the pane's read", func(d *liveDriver) bool { return agree(d, n) })
	liveCreate(t, c.Conn(), dir+"/"+churnName(n), []byte("w"), zk.FlagEphemeral)
	d.until(t, 20*time.Second, "the new child counted from the pane's read", func(d *liveDriver) bool { return agree(d, n+1) })
	if !strings.Contains(d.screen(), fmt.Sprintf("·%d     %d", n+1, n+1)) {
		t.Errorf("the row does not show the queue and the count of one read:\n%s", d.screen())
	}
	d.apply(keyMsg("k"))
	d.until(t, 20*time.Second, "the row back on the tree's listing", func(d *liveDriver) bool {
		tag, ok := d.m.tree.Lock(dir)
		return d.m.detail.Path() != dir && ok && !tag.Counted
	})
}
