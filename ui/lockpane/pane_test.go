package lockpane

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/zkview"
)

// The lock pane's tests build queues from plain values: no server.

var lockT0 = time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)

func boolPtr(b bool) *bool { return &b }

const lockDir = "/app/locks/deploy"

func curatorNode(seq int) string {
	return fmt.Sprintf("_c_6f1d2a40-94b7-4e0c-8a51-3c2d9e7b1f%02d-lock-%010d", seq, seq)
}

func part(seq int, state lockops.State, pos int, watches string, observed *bool, age time.Duration, session int64, data string) lockops.Participant {
	name := curatorNode(seq)
	x := lockops.Participant{
		Node: lockDir + "/" + name, Name: name, Seq: int64(seq), HasSeq: true,
		Mode: lockops.ModeExclusive, State: state, Position: pos, Session: session, Ephemeral: session != 0,
		Data: []byte(data), Ctime: lockT0.Add(-age), WatchObserved: observed,
	}
	if watches != "" {
		x.Watches, x.WatchKind = lockDir+"/"+watches, lockops.WatchData
	}
	return x
}

// mutexQueue: one holder, four waiters (one with a missing watch, one
// persistent), in Curator's format.
func mutexQueue() lockops.Queue {
	return lockops.Queue{
		Path: lockDir, Kind: lockops.KindCuratorMutex,
		Participants: []lockops.Participant{
			part(3, lockops.StateHolding, 0, "", nil, 95*time.Second, 0x1000000a1b2c0001, "alice@build7 zkscope pid 4242: deploy"),
			part(4, lockops.StateWaiting, 1, curatorNode(3), boolPtr(true), 40*time.Second, 0x1000000a1b2c0002, "worker-2"),
			part(5, lockops.StateWaiting, 2, curatorNode(4), nil, 12*time.Second, 0x1000000a1b2c0003, "worker-3"),
			part(7, lockops.StateWaiting, 3, curatorNode(5), boolPtr(false), 3*time.Second, 0x1000000a1b2c0004, "worker-4"),
			part(8, lockops.StateWaiting, 4, curatorNode(7), boolPtr(true), 2*time.Second, 0, "cron@ops-1"),
		},
		Problems: []lockops.Problem{
			{Kind: "watch-missing", Node: lockDir + "/" + curatorNode(7), Detail: "waits on …0005, but no server lists session 0x1000000a1b2c0004 watching it: it may never wake up"},
			{Kind: "persistent-lock-node", Node: lockDir + "/" + curatorNode(8), Detail: "a waiting node that is not ephemeral: no session will ever release it"},
		},
	}
}

func rwQueue() lockops.Queue {
	q := lockops.Queue{Path: "/app/locks/config-rw", Kind: lockops.KindCuratorRW}
	mk := func(seq int, mode lockops.Mode, state lockops.State, watches string, age time.Duration) lockops.Participant {
		marker := "__READ__"
		if mode == lockops.ModeWrite {
			marker = "__WRIT__"
		}
		name := fmt.Sprintf("_c_0b7e54c2-7d33-4f6a-9a0e-5f8e2c1d3a%02d-%s%010d", seq, marker, seq)
		x := lockops.Participant{Node: q.Path + "/" + name, Name: name, Seq: int64(seq), HasSeq: true, Mode: mode, State: state,
			Session: 0x2000000000000000 + int64(seq), Ephemeral: true, Ctime: lockT0.Add(-age), Client: fmt.Sprintf("10.0.3.%d:4%04d", 10+seq, seq),
			Data: []byte(fmt.Sprintf("reader-%d", seq))}
		if watches != "" {
			x.Watches, x.WatchKind, x.WatchObserved = watches, lockops.WatchData, boolPtr(true)
		}
		return x
	}
	r1 := mk(1, lockops.ModeRead, lockops.StateHolding, "", 30*time.Second)
	r2 := mk(2, lockops.ModeRead, lockops.StateHolding, "", 20*time.Second)
	w3 := mk(3, lockops.ModeWrite, lockops.StateWaiting, r2.Node, 10*time.Second)
	r4 := mk(4, lockops.ModeRead, lockops.StateWaiting, w3.Node, 5*time.Second)
	q.Participants = []lockops.Participant{r1, r2, w3, r4}
	return q
}

func testPane(theme string, w, h int) *Model {
	pal, err := themes.Pick(theme, theme != themes.Light, false)
	if err != nil {
		panic(err)
	}
	st := themes.New(pal)
	p := New(&st, &dialog.Overlay{})
	p.clock = func() time.Time { return lockT0 }
	p.SetSize(w, h)
	return p
}

func paneScreen(p *Model) string { return ansi.Strip(p.View()) }

// press sends key k as the root model routes it (see send).
func press(p *Model, k string) tea.Cmd { return send(p, lockKey(k)) }

// send delivers msg as the root model does: a key to the front dialog
// while one is open, else to the pane; any other message to the dialogs
// and the pane. A dialog's action goes back to the pane.
func send(p *Model, msg tea.Msg) tea.Cmd {
	_, isKey := msg.(tea.KeyPressMsg)
	if isKey && p.dialogs.Len() == 0 {
		return p.Update(msg)
	}
	act, cmd := p.dialogs.Update(msg)
	done, _ := p.HandleAction(act)
	if isKey {
		return tea.Batch(cmd, done)
	}
	return tea.Batch(cmd, done, p.Update(msg))
}

// front is the open dialog when it is a T.
func front[T dialog.Dialog](p *Model) (T, bool) {
	d, ok := p.dialogs.Front().(T)
	return d, ok
}

// dialogBox draws the front dialog 70 cells wide, without styling.
func dialogBox(p *Model) string { return ansi.Strip(p.dialogs.Front().View(70)) }

// checkPaneShape checks the pane draws exactly its size.
func checkPaneShape(t *testing.T, p *Model, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != p.h {
		t.Fatalf("the pane drew %d lines, want %d:\n%s", len(lines), p.h, out)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > p.w {
			t.Fatalf("line %d is %d cells wide, more than %d: %q", i, w, p.w, l)
		}
	}
}

// TestLockPaneGolden draws the pane at the sizes of an 80×24 and a 140×40
// terminal, in the dark and light themes: a Curator mutex with a chain of
// waiters (a missing watch, a persistent node), a read/write lock, and a
// queue that just moved (highlights, a released node).
func TestLockPaneGolden(t *testing.T) {
	scenes := map[string]func(p *Model){
		"mutex": func(p *Model) { p.SetQueueAt(mutexQueue(), lockT0) },
		"rwlock": func(p *Model) {
			p.SetQueueAt(rwQueue(), lockT0)
			p.moveCursor(2)
		},
		"moved": func(p *Model) {
			p.SetQueueAt(mutexQueue(), lockT0)
			q := mutexQueue()
			q.Participants = q.Participants[1:]
			q.Participants[0].State, q.Participants[0].Watches, q.Participants[0].WatchKind = lockops.StateHolding, "", ""
			q.Participants[1].Watches = q.Participants[0].Node
			q.Participants = append(q.Participants, part(9, lockops.StateWaiting, 5, curatorNode(8), nil, 0, 0x1000000a1b2c0009, "worker-9"))
			p.SetQueueAt(q, lockT0.Add(2*time.Second))
		},
		// We wait in the queue (a take in progress): our node marked, our
		// position and whom we wait on in the banner.
		"ours": func(p *Model) {
			q := mutexQueue()
			p.SetQueueAt(q, lockT0)
			p.act.taking = &takeState{id: 7, path: lockDir, mode: lockops.ModeExclusive, started: lockT0.Add(-3 * time.Second), gone: true, cancel: func() {}}
			p.Update(takeProgressMsg{id: 7, p: take.Progress{Path: lockDir, Node: q.Participants[2].Node, Position: 2, QueueLen: 5, WaitingOn: q.Participants[1].Node}})
		},
	}
	for name, scene := range scenes {
		for _, size := range [][2]int{{80, 24}, {140, 40}} {
			for _, theme := range []string{themes.Dark, themes.Light} {
				t.Run(fmt.Sprintf("%s_%dx%d_%s", name, size[0], size[1], theme), func(t *testing.T) {
					p := testPane(theme, size[0], size[1])
					scene(p)
					out := paneScreen(p)
					checkPaneShape(t, p, out)
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

// TestLockPaneHighlights follows one change: the holder leaves (kept
// struck through a few seconds), the next waiter holds (highlighted), a new
// waiter arrives (highlighted); after the highlight time all is plain.
func TestLockPaneHighlights(t *testing.T) {
	p := testPane(themes.Dark, 100, 30)
	p.SetQueueAt(mutexQueue(), lockT0)
	if len(p.ghosts) != 0 || p.memo[mutexQueue().Participants[0].Node].freshUntil.After(lockT0) {
		t.Fatal("the first read of a directory highlights nothing")
	}
	q := mutexQueue()
	gone := q.Participants[0]
	q.Participants = q.Participants[1:]
	q.Participants[0].State = lockops.StateHolding
	q.Participants = append(q.Participants, part(9, lockops.StateWaiting, 5, curatorNode(8), nil, 0, 0x9, "new"))
	at := lockT0.Add(time.Second)
	p.SetQueueAt(q, at)
	if len(p.ghosts) != 1 || p.ghosts[0].p.Node != gone.Node {
		t.Fatalf("ghosts = %+v, want the released holder", p.ghosts)
	}
	out := paneScreen(p)
	if !strings.Contains(out, "released 0s ago") {
		t.Fatalf("the released holder is not shown:\n%s", out)
	}
	newHolder := p.memo[q.Participants[0].Node]
	if !newHolder.freshUntil.After(at) || newHolder.holdingSince != at {
		t.Fatalf("the new holder is not highlighted: %+v", newHolder)
	}
	if m := p.memo[q.Participants[len(q.Participants)-1].Node]; !m.freshUntil.After(at) {
		t.Fatal("the new waiter is not highlighted")
	}
	if !strings.Contains(out, "held 0s") {
		t.Fatalf("the new holder's time counts from when it began holding:\n%s", out)
	}
	// Ticks age everything; after the highlight time the ghost is gone.
	p.Update(common.TickMsg{At: at.Add(3 * time.Second)})
	if !strings.Contains(paneScreen(p), "held 3s") {
		t.Fatalf("held-for does not tick:\n%s", paneScreen(p))
	}
	p.Update(common.TickMsg{At: at.Add(releasedFor + time.Second)})
	if out := paneScreen(p); strings.Contains(out, "released ") || len(p.ghosts) != 0 {
		t.Fatalf("the ghost outlived its time:\n%s", out)
	}
}

// watchSample is one answer of the servers (one member, zkscope's own
// session 0x99 on it) begun at at: its watch list, taken after the member
// had applied zxid, lists no watch of the sessions given, every session
// connected to it.
func watchSample(at time.Time, zxid int64, sessions ...int64) *zkview.Ensemble {
	m := zkview.Member{Addr: "zk1:2181", WatchesKnown: true, ConnsKnown: true, WatchZxid: zxid, Zxid: zxid,
		Clients: map[int64]string{0x99: "127.0.0.1:1"}, Watches: map[string][]int64{}}
	for _, s := range sessions {
		m.Clients[s] = "10.0.0.1:1"
	}
	return &zkview.Ensemble{Members: []zkview.Member{m}, Self: 0x99, At: at, End: at.Add(100 * time.Millisecond)}
}

// TestLockPaneJudgesWatches: a wait the servers do not list is "?" until
// two answers a second or more apart, both begun after the read that
// first showed the wait, miss it, and a read after the second shows it
// still: then ✗ and watch-missing. A waiter that arrived, or moved to
// another node, after the first answer began stays "?"; so does one
// whose member had not applied what zkscope read (zxid), and one judged
// by answers less than a second apart.
func TestLockPaneJudgesWatches(t *testing.T) {
	unknown := func(q lockops.Queue) lockops.Queue {
		for i := range q.Participants {
			if q.Participants[i].State == lockops.StateWaiting {
				q.Participants[i].WatchObserved = nil
			}
		}
		q.Problems = nil
		return q
	}
	stuck := int64(0x1000000a1b2c0004) // W3: waits on W2's node
	read := func(p *Model, q lockops.Queue, at time.Time) {
		q.ReadAt = at
		p.SetQueueAt(q, at)
	}
	state := func(p *Model, i int) string {
		x := p.queue.Participants[i]
		missing := false
		for _, pr := range p.queue.Problems {
			missing = missing || pr.Kind == lockops.ProblemWatchMissing && pr.Node == x.Node
		}
		if x.WatchObserved == nil {
			return fmt.Sprintf("? %v", missing)
		}
		return fmt.Sprintf("%v %v", *x.WatchObserved, missing)
	}

	p := testPane(themes.Dark, 100, 30)
	read(p, unknown(mutexQueue()), lockT0)
	p.samples = []*zkview.Ensemble{watchSample(lockT0.Add(time.Second), 100, stuck, 0x9)}
	read(p, unknown(mutexQueue()), lockT0.Add(2*time.Second))
	if got := state(p, 3); got != "? false" {
		t.Fatalf("one answer: W3 is %s, want unknown", got)
	}
	p.samples = append(p.samples, watchSample(lockT0.Add(2500*time.Millisecond), 100, stuck, 0x9))
	q := unknown(mutexQueue())
	q.Participants = append(q.Participants, part(9, lockops.StateWaiting, 5, curatorNode(8), nil, 0, 0x9, "new"))
	read(p, q, lockT0.Add(3*time.Second))
	if got := state(p, 3); got != "false true" {
		t.Errorf("two answers after the wait began: W3 is %s, want missing with its problem", got)
	}
	if got := state(p, 5); got != "? false" {
		t.Errorf("a waiter that arrived after the first answer began is %s, want unknown", got)
	}
	// The same answers, the read before the second ended: not judged.
	p2 := testPane(themes.Dark, 100, 30)
	read(p2, unknown(mutexQueue()), lockT0)
	p2.samples = p.samples
	read(p2, unknown(mutexQueue()), lockT0.Add(2550*time.Millisecond))
	if got := state(p2, 3); got != "? false" {
		t.Errorf("read before the second answer ended: W3 is %s, want unknown", got)
	}

	for name, samples := range map[string][]*zkview.Ensemble{
		"answers less than a second apart": {watchSample(lockT0.Add(time.Second), 100, stuck), watchSample(lockT0.Add(1500*time.Millisecond), 100, stuck)},
		"its member behind zkscope's read": {watchSample(lockT0.Add(time.Second), 100, stuck), lagging(watchSample(lockT0.Add(2500*time.Millisecond), 100, stuck))},
	} {
		p := testPane(themes.Dark, 100, 30)
		read(p, unknown(mutexQueue()), lockT0)
		p.samples = samples
		read(p, unknown(mutexQueue()), lockT0.Add(3*time.Second))
		if got := state(p, 3); got != "? false" {
			t.Errorf("%s: W3 is %s, want unknown", name, got)
		}
	}

	// A wait that moved between the answers is a new wait: unknown.
	p = testPane(themes.Dark, 100, 30)
	read(p, unknown(mutexQueue()), lockT0)
	p.samples = []*zkview.Ensemble{watchSample(lockT0.Add(time.Second), 100, stuck)}
	moved := unknown(mutexQueue())
	moved.Participants[3].Watches = moved.Participants[1].Node
	read(p, moved, lockT0.Add(2*time.Second))
	p.samples = append(p.samples, watchSample(lockT0.Add(2500*time.Millisecond), 100, stuck))
	read(p, moved, lockT0.Add(3*time.Second))
	if got := state(p, 3); got != "? false" {
		t.Errorf("a wait that moved after the first answer began: W3 is %s, want unknown", got)
	}
}

// lagging puts zkscope's own session on a second member that had applied
// more than the first, the stuck waiter's, when asked.
func lagging(e *zkview.Ensemble) *zkview.Ensemble {
	delete(e.Members[0].Clients, 0x99)
	e.Members = append(e.Members, zkview.Member{Addr: "zk2:2181", WatchesKnown: true, ConnsKnown: true, WatchZxid: 200,
		Clients: map[int64]string{0x99: "127.0.0.1:1"}, Watches: map[string][]int64{}})
	return e
}

// TestLockPaneLongQueue: 10,000 waiters draw only the visible rows; the
// cursor can reach the end and the window follows it.
// longQueue is a Curator mutex of n contenders, each watching the one
// before it.
func longQueue(n int) lockops.Queue {
	q := lockops.Queue{Path: lockDir, Kind: lockops.KindCuratorMutex}
	prev := ""
	for i := range n {
		st := lockops.StateWaiting
		if i == 0 {
			st = lockops.StateHolding
		}
		x := part(i, st, i, prev, nil, time.Duration(n-i)*time.Second, int64(i+1), "")
		q.Participants = append(q.Participants, x)
		prev = x.Name
	}
	return q
}

func TestLockPaneLongQueue(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(longQueue(10000), lockT0)
	start := time.Now()
	out := paneScreen(p)
	// Generous: only the visible rows are drawn (BenchmarkLockPane10k has
	// the real figure); a full draw of 10,000 entries would take far longer.
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("drawing a 10,000-node queue took %s", d)
	}
	checkPaneShape(t, p, out)
	if !strings.Contains(out, "W1 ──watches ?──▶ H1") {
		t.Fatalf("no chain for W1:\n%s", out)
	}
	send(p, tea.KeyPressMsg{Code: tea.KeyEnd})
	out = paneScreen(p)
	checkPaneShape(t, p, out)
	if !strings.Contains(out, "W9999") || !strings.Contains(out, "… 9996 more ─▶ H1") {
		t.Fatalf("the end of the queue is not shown with a shortened chain:\n%s", out)
	}
}

// TestLockPaneIgnoresRootWhileLive: while the pane's own watch is armed,
// the root's unverified re-reads do not replace its queue.
func TestLockPaneIgnoresRootWhileLive(t *testing.T) {
	p := testPane(themes.Dark, 80, 24)
	p.SetQueueAt(mutexQueue(), lockT0)
	p.live = true
	q := mutexQueue()
	q.Participants = q.Participants[:1]
	p.SetQueue(q)
	if len(p.queue.Participants) != 5 {
		t.Fatal("the root's read replaced the pane's own")
	}
	p.live = false
	p.SetQueue(q)
	if len(p.queue.Participants) != 1 {
		t.Fatal("without a watch the root's read is ignored")
	}
}

func TestFormatAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 59 * time.Second: "59s", 65 * time.Second: "1m05s", 2*time.Hour + 3*time.Minute: "2h03m",
		76 * time.Hour: "3d04h", -time.Second: "0s",
	} {
		if got := common.FormatAge(d); got != want {
			t.Errorf("common.FormatAge(%s) = %q, want %q", d, got, want)
		}
	}
	if got := common.ShortName(curatorNode(3), 30); ansi.StringWidth(got) != 30 || !strings.HasSuffix(got, "lock-0000000003") {
		t.Errorf("shortName = %q", got)
	}
}

// TestLockPaneVerifyThrottle: the servers are asked at most once per
// reverifyEvery and never twice at once, however often the directory
// changes; the queue is shown at once and the answer applied when it comes
// (to the read it was for, else by reading again).
func TestLockPaneVerifyThrottle(t *testing.T) {
	p := testPane(themes.Dark, 100, 30)
	now := lockT0
	p.clock = func() time.Time { return now }
	p.resetDir(lockDir)
	p.visible = true
	p.client = &zkview.Client{} // commands are built, never run
	if !p.verifyDue() {
		t.Fatal("the first read of a directory does not ask the servers")
	}
	plain := mutexQueue()
	for i := range plain.Participants {
		plain.Participants[i].WatchObserved = nil
	}
	p.loadID, p.loading = 1, true
	if cmd := p.onLoaded(lockLoadedMsg{id: 1, path: lockDir, queue: plain, decoded: len(plain.Problems), at: now}); cmd == nil || !p.verifying {
		t.Fatal("the first read did not ask the servers")
	}
	if !p.have || len(p.queue.Participants) != 5 {
		t.Fatal("the queue waits for the servers' answer")
	}
	now = now.Add(500 * time.Millisecond)
	p.loadID, p.loading = 2, true
	p.onLoaded(lockLoadedMsg{id: 2, path: lockDir, queue: plain, decoded: len(plain.Problems), at: now})
	if p.verifiedAt != lockT0 || p.verifyDue() {
		t.Fatal("a second question went out while the first was unanswered")
	}
	// The answer for read 1 comes after read 2: read again with it.
	vq := mutexQueue()
	vq.Participants[0].Client = "10.0.0.7:51234"
	if cmd := p.onVerified(lockVerifiedMsg{id: 1, path: lockDir, asked: lockT0, verified: verified{queue: vq}}); cmd == nil || !p.loading {
		t.Fatal("an answer for an older read did not start a new read")
	}
	if p.queue.Participants[0].Client != "" {
		t.Fatal("an answer for an older read replaced a newer queue")
	}
	// The answer for the newest read is shown as it is.
	p.loading = false
	p.onVerified(lockVerifiedMsg{id: p.loadID, path: lockDir, asked: now, verified: verified{queue: vq}})
	if p.queue.Participants[0].Client != "10.0.0.7:51234" || p.verifying {
		t.Fatalf("the answer for the newest read is not shown: %+v", p.queue.Participants[0])
	}
	now = lockT0.Add(reverifyEvery)
	if !p.verifyDue() {
		t.Fatal("the servers are not asked again after reverifyEvery")
	}
}

// TestRawOfViewedQueue: a verification starts from a copy of the shown
// queue with the view and the diagnosis taken off.
func TestRawOfViewedQueue(t *testing.T) {
	q := mutexQueue()
	decoded := len(q.Problems)
	q.Others = []lockops.Queue{mutexQueue()}
	v := viewedQueue(q, nil, nil, lockT0, nil)
	if len(v.Problems) <= decoded {
		t.Fatalf("the viewed queue has no problem of its own: %d", len(v.Problems))
	}
	v.Participants[0].Client = "x"
	v.Others[0].Participants[0].Client = "x"
	raw := rawOf(v, decoded)
	if len(raw.Problems) != decoded || raw.Participants[0].Client != "" || raw.Others[0].Participants[0].Client != "" {
		t.Fatalf("raw: %d problems (want %d), clients %q %q", len(raw.Problems), decoded, raw.Participants[0].Client, raw.Others[0].Participants[0].Client)
	}
	raw.Participants[1].Client = "y"
	if v.Participants[1].Client == "y" {
		t.Fatal("the raw queue shares participants with the shown one")
	}
}

// BenchmarkLockPane10k: a 10,000-contender queue moves by one (the holder
// released, a new waiter arrived): SetQueueAt (highlights, ghosts, chains,
// layout) and one View, as on each live re-read; and a View alone, as on
// each tick.
func BenchmarkLockPane10k(b *testing.B) {
	qs := [2]lockops.Queue{longQueue(10001), longQueue(10001)}
	qs[0].Participants = qs[0].Participants[:10000]
	qs[1].Participants = qs[1].Participants[1:]
	qs[1].Participants[0].State = lockops.StateHolding
	b.Run("update", func(b *testing.B) {
		p := testPane(themes.Dark, 80, 24)
		p.SetQueueAt(qs[0], lockT0)
		at := lockT0
		for i := 0; b.Loop(); i++ {
			at = at.Add(time.Second)
			p.SetQueueAt(qs[(i+1)%2], at)
			_ = p.View()
		}
	})
	b.Run("view", func(b *testing.B) {
		p := testPane(themes.Dark, 80, 24)
		p.SetQueueAt(qs[0], lockT0)
		for b.Loop() {
			_ = p.View()
		}
	})
}

// TestLockPaneFoldsReleases: under heavy churn only the newest releases
// are rows; the others fold into one line, and the holder and the first
// waiters stay in view.
func TestLockPaneFoldsReleases(t *testing.T) {
	p := testPane(themes.Dark, 100, 24)
	q := longQueue(100)
	p.SetQueueAt(q, lockT0)
	at := lockT0
	for i := 0; i < 40; i++ { // 40 releases, each with a new holder
		at = at.Add(50 * time.Millisecond)
		q.Participants = q.Participants[1:]
		q.Participants[0].State = lockops.StateHolding
		p.SetQueueAt(q, at)
	}
	out := paneScreen(p)
	checkPaneShape(t, p, out)
	if rows := strings.Count(out, "✕ "); rows != maxGhostRows {
		t.Errorf("%d released rows, want %d:\n%s", rows, maxGhostRows, out)
	}
	if !strings.Contains(out, "… 37 more released or left in the last 4s") {
		t.Errorf("no fold line:\n%s", out)
	}
	if !strings.Contains(out, "H1") || !strings.Contains(out, "W1") {
		t.Errorf("the holder and the first waiter are not in view:\n%s", out)
	}
	if x, ok := p.selected(); !ok || x.State != lockops.StateHolding {
		t.Errorf("the cursor is on %+v, %v; want the holder", x, ok)
	}
}
