package lockpane

// The lock pane's past: every queue it read of the shown lock is kept in
// a bounded ring (or, with a transaction log given to the TUI, the states
// replayed from it); a key toggles the timeline (a strip of holders over
// time) and [ / ] step through the past states, each drawn with its
// chain as it was. Drawing is in timeline_view.go.

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/history"
)

// The ring's bounds: at most ringStates states and ringParticipants
// participants over all of them (a churning 1,000-contender lock keeps
// its last few dozen states, a small one its last ringStates).
const (
	ringStates       = 500
	ringParticipants = 50000
)

// timeline is the shown lock's past states and how they are shown.
type timeline struct {
	path   string
	states []history.LockState // oldest first
	kept   int                 // participants over states
	// txnlog is the transaction log given to the TUI ("": none); fromLog
	// says states come from it (for path), loading that it is being read,
	// loadID names the last read.
	txnlog  string
	fromLog bool
	// logStates is how many of the oldest states came from the log; the
	// live reads since follow them.
	logStates int
	loading   bool
	loadID    uint64
	loadErr   error
	// on: the timeline is shown in place of the live queue; step is the
	// state shown (an index in states), -1 the newest.
	on   bool
	step int
	// spare is the participants of the last live state the ring let go,
	// for the next splice to write into (spareFor).
	spare []lockops.Participant
}

// timelineLoadedMsg brings the states of path replayed from the
// transaction log.
type timelineLoadedMsg struct {
	id     uint64
	path   string
	states []history.LockState
	err    error
}

// SetTxnlog gives the pane a transaction log (a server's data directory,
// or a copy of one) to replay past states from instead of its live ring.
func (p *Model) SetTxnlog(dir string) { p.hist.txnlog = dir }

// remember keeps q, read at at (the servers' zxid of the read's listing
// and the time), in the ring when it differs from the last
// state kept (another set of nodes, or a node changed state); after the
// states replayed from a transaction log, the live ones follow them.
func (p *Model) remember(q *lockops.Queue, at history.Moment) {
	h := &p.hist
	if q.Path != h.path {
		h.path, h.states, h.kept, h.step = q.Path, h.states[:0], 0, -1
		h.fromLog, h.logStates = false, 0
	}
	if n := len(h.states); n > 0 && sameQueue(&h.states[n-1].Queue, q, n <= h.logStates) {
		return // (the log's last state: the live read adds only the watchers the log cannot hold)
	}
	for len(h.states) > 0 && (len(h.states) >= ringStates || h.kept+len(q.Participants) > ringParticipants) {
		h.kept -= len(h.states[0].Queue.Participants)
		if h.logStates == 0 {
			h.spare = h.states[0].Queue.Participants // a live read's, read by nothing now
		}
		h.states[0] = history.LockState{}
		h.states = h.states[1:]
		if h.logStates > 0 {
			h.logStates--
		}
		if h.step > 0 {
			h.step--
		}
	}
	// The participants are shared, not copied: a read's queue is never
	// changed once shown (setQueueAt copies before it judges a wait).
	c := lockops.Queue{Path: q.Path, Kind: q.Kind, MaxLeases: q.MaxLeases, Participants: q.Participants}
	h.states = append(h.states, history.LockState{At: at, Queue: c})
	h.kept += len(c.Participants)
}

// heldSince is when the transaction log's replay saw holder x (the same
// node: path and czxid) begin to hold, when the states come from the log
// and it knows (lockops.Participant.HeldSince of the log's last state).
func (h *timeline) heldSince(x lockops.Participant) (time.Time, bool) {
	if !h.fromLog || h.logStates == 0 || h.logStates > len(h.states) {
		return time.Time{}, false
	}
	for _, y := range h.states[h.logStates-1].Queue.Participants {
		if y.Node == x.Node && y.Czxid == x.Czxid && y.State == lockops.StateHolding && !y.HeldSince.IsZero() {
			return y.HeldSince, true
		}
	}
	return time.Time{}, false
}

// sameQueue reports whether a and b have the same nodes in the same
// states and order (without the waiters that own no node, when
// ownedOnly: a transaction log never shows those).
func sameQueue(a, b *lockops.Queue, ownedOnly bool) bool {
	xs, ys := a.Participants, b.Participants
	if ownedOnly {
		xs, ys = ownedNodes(xs), ownedNodes(ys)
	}
	if len(xs) != len(ys) {
		return false
	}
	for i := range xs {
		x, y := &xs[i], &ys[i]
		if x.Node != y.Node || x.State != y.State || x.Watches != y.Watches {
			return false
		}
	}
	return true
}

// ownedNodes is ps without the waiters that own no node (ps itself when
// there is none).
func ownedNodes(ps []lockops.Participant) []lockops.Participant {
	n := 0
	for i := range ps {
		if !ps[i].WatcherOnly {
			n++
		}
	}
	if n == len(ps) {
		return ps
	}
	out := make([]lockops.Participant, 0, n)
	for _, x := range ps {
		if !x.WatcherOnly {
			out = append(out, x)
		}
	}
	return out
}

// showingTimeline reports whether the pane draws its past instead of the
// live queue: the timeline is on, or a past state is stepped to.
func (p *Model) showingTimeline() bool { return p.hist.on || p.hist.step >= 0 }

// timelineKey handles the timeline's keys; ok says the key was one.
func (p *Model) timelineKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	h, k := &p.hist, p.keys
	switch {
	case key.Matches(msg, k.Timeline):
		h.on = !h.on
		if !h.on {
			h.step = -1
			return nil, true
		}
		return p.loadTimeline(true), true
	case key.Matches(msg, k.Older):
		cmd := p.loadTimeline(false)
		switch {
		case h.step < 0 && len(h.states) > 1:
			h.step = len(h.states) - 2
		case h.step > 0:
			h.step--
		}
		return cmd, true
	case key.Matches(msg, k.Newer):
		if h.step >= 0 {
			h.step++
		}
		if h.step >= len(h.states)-1 {
			h.step = -1 // back to the newest (live when the timeline is off)
		}
		return nil, true
	}
	return nil, false
}

// loadTimeline starts reading the shown lock's past from the transaction
// log, when the TUI was given one and it is not read yet for this lock
// (again is true: read it again, the log may have grown; the states read
// before stay shown meanwhile).
func (p *Model) loadTimeline(again bool) tea.Cmd {
	h := &p.hist
	if h.txnlog == "" || h.loading || p.path == "" || !again && h.fromLog && h.path == p.path {
		return nil
	}
	h.loading, h.loadErr = true, nil
	h.loadID++
	return timelineLogCmd(h.txnlog, p.path, h.loadID)
}

// timelineLogCmd replays the transaction log in dir for the lock at path.
func timelineLogCmd(dir, path string, id uint64) tea.Cmd {
	return func() tea.Msg {
		src, closeLog, err := history.OpenTxnlog(dir)
		if err != nil {
			return timelineLoadedMsg{id: id, path: path, err: err}
		}
		defer closeLog()
		states, err := history.LockStates(src, path, ringStates, history.ReplayOptions{})
		return timelineLoadedMsg{id: id, path: path, states: states, err: err}
	}
}

// onTimelineLoaded shows the states replayed from the log (stepping from
// the newest).
func (p *Model) onTimelineLoaded(msg timelineLoadedMsg) tea.Cmd {
	h := &p.hist
	if msg.id != h.loadID {
		return nil
	}
	h.loading = false
	if msg.err != nil {
		h.loadErr = msg.err
		return nil
	}
	h.path, h.states, h.fromLog, h.step, h.logStates = msg.path, msg.states, true, -1, len(msg.states)
	h.kept = 0
	for i := range h.states {
		h.kept += len(h.states[i].Queue.Participants)
	}
	return nil
}

// shownState is the state the timeline shows (false: none kept).
func (p *Model) shownState() (history.LockState, int, bool) {
	h := &p.hist
	if len(h.states) == 0 || h.path != p.path {
		return history.LockState{}, 0, false
	}
	i := h.step
	if i < 0 || i >= len(h.states) {
		i = len(h.states) - 1
	}
	return h.states[i], i, true
}
