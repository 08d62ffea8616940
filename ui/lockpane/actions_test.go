package lockpane

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
)

func lockKey(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

func typeText(p *Model, s string) {
	for _, r := range s {
		press(p, string(r))
	}
}

// evictPreview is what PreviewEvict says of mutexQueue's holder.
func evictPreview() *evict.Preview {
	q := mutexQueue()
	h := q.Participants[0]
	return &evict.Preview{
		Node: h.Node, LockPath: lockDir, Session: h.Session, Ephemeral: true, Client: "10.0.3.11:50112",
		Data: h.Data, Czxid: 0x1f, Version: 0, Created: h.Ctime, HeldFor: 95 * time.Second,
		Recipe: "curator.mutex", Holding: true, NextHolders: []string{q.Participants[1].Node},
		Warnings: []string{"The holder is NOT told: if it is still running it will go on as if it held the lock, while the next waiter takes it too. Stop the holder first, or use revoke if it is revocable."},
		Expect:   evict.Expect{Session: h.Session, Czxid: 0x1f, Version: 0},
	}
}

// TestForceDeleteDialog: X on the holder opens the dialog with whose node
// it is and who gets the lock next; only the exact sequence number
// confirms; esc cancels.
func TestForceDeleteDialog(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(mutexQueue(), lockT0)
	cmd, ok := p.ActionKey(lockKey("X"), lockDir, true)
	fd, isEvict := front[*dialog.ForceDelete](p)
	if !ok || !p.Modal() || !isEvict {
		t.Fatal("X did not open the force-delete dialog")
	}
	_ = cmd // (the preview read needs a client)
	if box := dialogBox(p); !strings.Contains(box, "Reading") {
		t.Fatalf("the dialog does not say it is reading:\n%s", box)
	}
	send(p, dialog.EvictPreviewMsg{ID: p.act.seq, Node: evictPreview().Node, Preview: evictPreview()})
	box := dialogBox(p)
	for _, want := range []string{"Force-delete H1", "0x1000000a1b2c0001 from 10.0.3.11:50112", "HOLDING the lock", "1m35s", "W1 (0000000004) gets the lock", "NOT told", "Type 0000000003 to confirm"} {
		if !strings.Contains(box, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, box)
		}
	}
	golden.RequireEqual(t, box)

	typeText(p, "3")
	press(p, "enter")
	if !p.Modal() || !strings.Contains(fd.Err(), "0000000003") {
		t.Fatal("a wrong sequence number confirmed the delete")
	}
	typeText(p, "000000000")
	press(p, "enter") // "30000000000": still wrong
	if !p.Modal() {
		t.Fatal("a wrong sequence number confirmed the delete")
	}
	for range 11 {
		press(p, "backspace")
	}
	typeText(p, "0000000003")
	cmd = press(p, "enter")
	if p.Modal() || cmd == nil || !strings.Contains(p.act.busy, "Force-deleting H1") {
		t.Fatalf("the exact sequence number did not start the delete (busy %q)", p.act.busy)
	}
	// A changed node: nothing deleted, and the operator is told.
	p.Update(evictDoneMsg{node: evictPreview().Node, label: "H1", err: &evict.ChangedError{Node: evictPreview().Node, What: "czxid (it was deleted and re-created)", Want: "0x1f", Got: "0x40"}})
	if n := paneScreen(p); !strings.Contains(n, "Nothing deleted") || p.act.busy != "" {
		t.Fatalf("a refused delete is not reported:\n%s", n)
	}

	// A waiter: nobody gets the lock; the one watching it re-checks.
	p.moveCursor(1)
	p.ActionKey(lockKey("X"), lockDir, true)
	w1 := mutexQueue().Participants[1]
	wpv := evictPreview()
	wpv.Node, wpv.Session, wpv.Holding, wpv.NextHolders, wpv.Warnings = w1.Node, w1.Session, false, nil, nil
	send(p, dialog.EvictPreviewMsg{ID: p.act.seq, Node: w1.Node, Preview: wpv})
	if box := dialogBox(p); !strings.Contains(box, "Force-delete W1") || !strings.Contains(box, "W2 watched it") {
		t.Fatalf("the waiter's dialog does not say what happens next:\n%s", box)
	}
	press(p, "esc")
	p.moveCursor(-1)

	// Esc cancels.
	p.ActionKey(lockKey("X"), lockDir, true)
	press(p, "esc")
	if p.Modal() || !strings.Contains(p.note.Text, "nothing was deleted") {
		t.Fatal("esc did not cancel")
	}
}

// TestTakeDialog: t on a lock directory offers the modes and recipes;
// on a read/write lock it starts on write; esc cancels.
func TestTakeDialog(t *testing.T) {
	p := testPane(themes.Light, 80, 24)
	p.SetQueueAt(rwQueue(), lockT0)
	p.client = nil
	p.ActionKey(lockKey("t"), rwQueue().Path, true)
	if p.Modal() || !strings.Contains(p.note.Text, "Not connected") {
		t.Fatal("take without a connection did not refuse")
	}
	// Pretend a connection: the dialog itself needs none.
	p.client = liveClient(t)
	p.ActionKey(lockKey("t"), rwQueue().Path, true)
	d, ok := front[*dialog.TakeLock](p)
	if !ok || d.Mode() != lockops.ModeWrite || d.Field() != dialog.TakeFieldMode {
		t.Fatalf("dialog = %+v", p.dialogs.Front())
	}
	press(p, "right")
	if d.Mode() != lockops.ModeRead {
		t.Fatalf("→ chose %s, want read (a read/write lock offers read and write only)", d.Mode())
	}
	press(p, "right")
	if d.Mode() != lockops.ModeWrite {
		t.Fatalf("→ → chose %s, want write again", d.Mode())
	}
	press(p, "tab")
	press(p, "right")
	if d.Recipe() != lockops.Curator {
		t.Fatalf("→ on the recipe chose %s", d.Recipe())
	}
	golden.RequireEqual(t, dialogBox(p))
	press(p, "esc")
	if p.Modal() {
		t.Fatal("esc did not close the take dialog")
	}
}

// TestLockActionsReadOnly: every lock action is refused with one sentence.
func TestLockActionsReadOnly(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(mutexQueue(), lockT0)
	p.SetClient(nil, true)
	for _, k := range []string{"t", "R", "X"} {
		p.note = common.Status{}
		if _, ok := p.ActionKey(lockKey(k), lockDir, true); !ok {
			t.Fatalf("%s is not a lock action", k)
		}
		if p.Modal() || p.note.Text != readOnlyLockNote {
			t.Fatalf("%s in read-only mode: modal %v, note %q", k, p.Modal(), p.note.Text)
		}
	}
}

// TestRevokeDialog: R on a waiter explains that only holders can be
// asked; on the holder it asks for confirmation.
func TestRevokeDialog(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(mutexQueue(), lockT0)
	p.moveCursor(1)
	p.ActionKey(lockKey("R"), lockDir, true)
	if p.Modal() || !strings.Contains(p.note.Text, "only a holder") {
		t.Fatalf("R on a waiter: %q", p.note.Text)
	}
	p.moveCursor(-1)
	p.ActionKey(lockKey("R"), lockDir, true)
	if _, ok := front[*dialog.RevokeHolder](p); !ok || !p.Modal() {
		t.Fatal("R on the holder did not ask")
	}
	box := dialogBox(p)
	if !strings.Contains(box, "__REVOKE__") || !strings.Contains(box, "revocable") {
		t.Fatalf("revoke dialog:\n%s", box)
	}
	if cmd := press(p, "y"); cmd == nil || p.Modal() {
		t.Fatal("y did not start the revocation")
	}
	p.Update(revokeDoneMsg{label: "H1", res: evict.RevokeResult{Released: false}})
	if !strings.Contains(p.note.Text, "did not make the lock revocable") {
		t.Fatalf("an ignored revocation is not explained: %q", p.note.Text)
	}
}

// TestRevokeOnlyCuratorHolders: R on a holder of a lock that cannot be
// revoked, on a persistent holder or on a lock of unknown recipe explains
// why in the status line and opens no dialog; X on a lock of unknown
// recipe refuses likewise; a revocation refused meanwhile says nothing
// was written.
func TestRevokeOnlyCuratorHolders(t *testing.T) {
	for _, tc := range []struct {
		kind       lockops.Kind
		persistent bool
		says       string
	}{
		{lockops.KindKazooLock, false, "holds a kazoo.lock, which cannot be revoked"},
		{lockops.KindCuratorSemaphoreV2, false, "holds a curator.semaphore-v2, which cannot be revoked"},
		{lockops.KindGoZK, false, "holds a go-zk.lock, which cannot be revoked"},
		{lockops.KindCuratorMutex, true, "is a PERSISTENT node"},
		{lockops.KindUnknown, false, "does not recognise this lock's recipe"},
	} {
		p := testPane(themes.Dark, 80, 24)
		q := mutexQueue()
		q.Kind = tc.kind
		if tc.persistent {
			q.Participants[0].Ephemeral, q.Participants[0].Session = false, 0
		}
		p.SetQueueAt(q, lockT0)
		cmd, ok := p.ActionKey(lockKey("R"), lockDir, true)
		if !ok || cmd != nil || p.Modal() || !strings.Contains(p.note.Text, tc.says) {
			t.Fatalf("R on a %s holder (persistent %v): modal %v, note %q, want %q", tc.kind, tc.persistent, p.Modal(), p.note.Text, tc.says)
		}
	}
	p := testPane(themes.Dark, 80, 24)
	q := mutexQueue()
	q.Kind = lockops.KindUnknown
	p.SetQueueAt(q, lockT0)
	if cmd, ok := p.ActionKey(lockKey("X"), lockDir, true); !ok || cmd != nil || p.Modal() || !strings.Contains(p.note.Text, "--any-node") {
		t.Fatalf("X on a lock of unknown recipe: modal %v, note %q", p.Modal(), p.note.Text)
	}
	p.Update(revokeDoneMsg{label: "H1", err: &lockops.Refusal{Op: lockops.OpRevoke, Path: q.Participants[0].Node, Reason: "it is a curator.mutex waiter, not the holder"}})
	if !strings.Contains(p.note.Text, "Nothing written: H1 is a curator.mutex waiter") {
		t.Fatalf("a refused revocation: %q", p.note.Text)
	}
}

// TestHoldAlertsAndQuit: a held lock shows in the pane and the header;
// SUSPENDED warns, LOST opens an alert; quitting while holding asks.
func TestHoldAlertsAndQuit(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(mutexQueue(), lockT0)
	h := &take.Held{Path: lockDir, Node: mutexQueue().Participants[0].Node, Mode: lockops.ModeExclusive, Acquired: lockT0.Add(-5 * time.Second)}
	p.act.held, p.act.holdState = h, hold.StateHeld
	out := paneScreen(p)
	if !strings.Contains(out, "We hold this lock (exclusive) for 5s") || !strings.Contains(out, "you") {
		t.Fatalf("our lock is not shown:\n%s", out)
	}
	if !p.Holding() || !strings.Contains(ansi.Strip(p.HeaderBadge()), "holding "+lockDir) {
		t.Fatal("no header badge while holding")
	}
	// Quit asks; n stays.
	p.ConfirmQuit()
	if !p.Modal() || !strings.Contains(dialogBox(p), "release and quit") {
		t.Fatal("quit did not ask")
	}
	press(p, "n")
	if p.Modal() || !p.Holding() {
		t.Fatal("n did not stay")
	}
	// y releases, then quits.
	p.ConfirmQuit()
	if cmd := press(p, "y"); cmd == nil || !p.act.quitting {
		t.Fatal("y did not release")
	}
	if cmd := p.Update(releaseDoneMsg{held: h, quit: true}); !isQuit(cmd) {
		t.Fatal("the release did not quit")
	}

	// SUSPENDED then LOST.
	p.act.held, p.act.holdState = h, hold.StateHeld
	p.Update(holdChangeMsg{held: h, ok: true, ch: hold.Change{State: hold.StateSuspended, Reason: "disconnected from ZooKeeper"}})
	if out := paneScreen(p); !strings.Contains(out, "SUSPENDED") || !strings.Contains(ansi.Strip(p.HeaderBadge()), "SUSPENDED") {
		t.Fatalf("SUSPENDED not shown:\n%s", out)
	}
	p.Update(holdChangeMsg{held: h, ok: true, ch: hold.Change{State: hold.StateLost, Reason: "session 0x1 expired"}})
	if _, ok := front[*dialog.Lost](p); !ok || !p.Modal() || p.Holding() {
		t.Fatal("LOST did not alert")
	}
	box := dialogBox(p)
	golden.RequireEqual(t, box)
	if out := paneScreen(p); !strings.Contains(out, "LOST") || strings.Contains(out, "We hold") {
		t.Fatalf("LOST is not shown, or still says held:\n%s", out)
	}
	press(p, "enter")
	if p.Modal() {
		t.Fatal("enter did not close the alert")
	}
}

// TestTakeProgressBanner: while waiting, the pane says our position and
// whom we wait on, and marks our node.
func TestTakeProgressBanner(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	q := mutexQueue()
	p.SetQueueAt(q, lockT0)
	p.act.taking = &takeState{id: 7, path: lockDir, mode: lockops.ModeExclusive, started: lockT0.Add(-3 * time.Second), gone: true, cancel: func() {}}
	p.Update(takeProgressMsg{id: 7, p: take.Progress{Path: lockDir, Node: q.Participants[2].Node, Position: 2, QueueLen: 5, WaitingOn: q.Participants[1].Node}})
	out := paneScreen(p)
	for _, want := range []string{"We wait at position 3 of 5 on W1", "u stops waiting", "W2  ○ exclusive", " you "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	checkPaneShape(t, p, out)
	// u stops waiting.
	press(p, "u")
	if !strings.Contains(p.note.Text, "Stopping the wait") {
		t.Fatalf("u: %q", p.note.Text)
	}
	p.Update(takeDoneMsg{id: 7, path: lockDir, err: fmt.Errorf("take: %w", context.Canceled)})
	if p.act.taking != nil || !strings.Contains(p.note.Text, "Stopped waiting") {
		t.Fatalf("after the cancelled take: %q", p.note.Text)
	}
}

// TestTakeDialogModes: an existing mutex offers exclusive only; a new path
// offers exclusive, read and write.
func TestTakeDialogModes(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(mutexQueue(), lockT0)
	p.client = liveClient(t)
	p.ActionKey(lockKey("t"), mutexQueue().Path, true)
	d, ok := front[*dialog.TakeLock](p)
	if !ok {
		t.Fatalf("t on a mutex opened %+v", p.dialogs.Front())
	}
	press(p, "right")
	if d.Mode() != lockops.ModeExclusive {
		t.Fatalf("→ on a mutex chose %s", d.Mode())
	}
	if v := dialogBox(p); strings.Contains(v, "read") || !strings.Contains(v, "[exclusive]") {
		t.Fatalf("a mutex offers other modes:\n%s", v)
	}
	press(p, "esc")

	p.ActionKey(lockKey("t"), "/app/locks/new-one", false)
	d, ok = front[*dialog.TakeLock](p)
	if !ok {
		t.Fatalf("t on a new path opened %+v", p.dialogs.Front())
	}
	if got := d.ModeNames(); strings.Join(got, ",") != "exclusive,read,write" {
		t.Fatalf("a new path offers %v", got)
	}
}

// TestNoteLifetime: a note in the pane's footer is about the lock it was
// set on. Informational ones go after a few seconds; a warning stays
// until the next key; any note goes when the pane shows another lock, and
// a result arriving for a lock no longer shown is not drawn under the
// one shown.
func TestNoteLifetime(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(mutexQueue(), lockT0)
	h1 := mutexQueue().Participants[0].Node
	tick := func(d time.Duration) { p.Update(common.TickMsg{At: lockT0.Add(d)}) }

	p.Update(evictDoneMsg{node: h1, label: "H1"})
	if !strings.Contains(paneScreen(p), "Deleted H1.") {
		t.Fatalf("no result note:\n%s", paneScreen(p))
	}
	tick(2 * time.Second)
	if !strings.Contains(paneScreen(p), "Deleted H1.") {
		t.Fatal("the note went at once")
	}
	tick(common.InfoFor + time.Second)
	if strings.Contains(paneScreen(p), "Deleted H1.") {
		t.Fatalf("an informational note stays after %s:\n%s", common.InfoFor, paneScreen(p))
	}

	p.Update(evictDoneMsg{node: h1, label: "H1", err: &lockops.Refusal{Op: lockops.OpForceDelete, Path: h1, Reason: "it is gone"}})
	tick(10 * time.Minute)
	if !strings.Contains(paneScreen(p), "Nothing deleted: H1") {
		t.Fatal("a warning went without a key")
	}
	p.KeyPressed()
	if strings.Contains(paneScreen(p), "Nothing deleted") {
		t.Fatal("a warning stays after the next key")
	}

	p.Update(evictDoneMsg{node: h1, label: "H1"})
	other := mutexQueue()
	other.Path = "/app/locks/other"
	for i := range other.Participants {
		other.Participants[i].Node = other.Path + "/" + lockops.ShortName(other.Participants[i].Name)
	}
	p.SetQueueAt(other, lockT0.Add(time.Second))
	if strings.Contains(paneScreen(p), "Deleted H1") {
		t.Fatalf("the note about %s shows under %s:\n%s", lockDir, other.Path, paneScreen(p))
	}
	p.Update(evictDoneMsg{node: h1, label: "H1"}) // the answer for the lock left
	if strings.Contains(paneScreen(p), "Deleted H1") {
		t.Fatalf("a result for %s shows under %s:\n%s", lockDir, other.Path, paneScreen(p))
	}
}

// TestLongProblemReadable: at the smallest size a long problem detail is
// wrapped under its badge and, cut, says which key shows it whole; i (or
// ⏎ in the pane) opens the node's problems in full.
func TestLongProblemReadable(t *testing.T) {
	p := testPane(themes.Dark, 28, 9) // the lock pane's inside at 60×15
	q := mutexQueue()
	long := "waits on …0005, but no server lists session 0x1000000a1b2c0004 watching it: it may never wake up; the servers were asked 2s ago and every member answered"
	q.Problems = []lockops.Problem{{Kind: "watch-missing", Node: q.Participants[3].Node, Detail: long}}
	p.SetQueueAt(q, lockT0)
	for range 3 {
		press(p, "down")
	}
	scr := paneScreen(p)
	lines := strings.Split(scr, "\n")
	if foot := strings.Join(strings.Fields(strings.Join(lines[len(lines)-2:], "\n")), " "); !strings.Contains(foot, "watch-missing waits on") || !strings.HasSuffix(foot, "… i: in full") {
		t.Fatalf("the footer does not wrap the problem and say how to read it:\n%s", scr)
	}
	for _, k := range []string{"i", "enter"} {
		press(p, k)
		d, ok := front[*dialog.Problems](p)
		if !ok {
			t.Fatalf("%s did not open the problems:\n%s", k, paneScreen(p))
		}
		box := strings.Join(strings.Fields(strings.NewReplacer("│", " ", "╭", " ", "╰", " ", "─", " ", "╮", " ", "╯", " ").Replace(ansi.Strip(d.View(50)))), " ")
		for _, want := range []string{"Problems of W3", q.Participants[3].Node, "watch-missing", long} {
			if !strings.Contains(strings.ReplaceAll(box, " ", ""), strings.ReplaceAll(want, " ", "")) { // (a path wraps at its hyphens)
				t.Errorf("%s: the problems lack %q:\n%s", k, want, box)
			}
		}
		press(p, "esc")
		if p.Modal() {
			t.Fatalf("esc did not close the problems")
		}
	}
}
