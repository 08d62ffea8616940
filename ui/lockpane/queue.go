package lockpane

import (
	"sort"
	"strconv"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/ui/common"
)

// SetQueueAt shows q as read at time at: nodes not seen before are
// highlighted as new, nodes gone since the last queue stay for a few
// seconds struck through.
func (p *Model) SetQueueAt(q lockops.Queue, at time.Time) { p.setQueueAt(q, at, false) }

// setQueueAt is [Model.SetQueueAt]; owned says q's participants are the
// pane's to change (a copy made for it by its own read), so dropping
// unconfirmed watches need not copy them again.
func (p *Model) setQueueAt(q lockops.Queue, at time.Time, owned bool) {
	if q.Path != p.path || p.staleAt(at) {
		p.resetDir(q.Path)
	}
	p.now = at
	old := p.queue
	p.spareProblems = old.Problems // (read by nothing once the last read's queue is not it: spare)
	oldLabels := p.labelAt
	p.queue, p.have = q, true
	p.shown++
	p.labelAt = labelsAt(q.Participants, p.spareLabels, &p.labelNames)
	first := p.first
	p.first = false
	oldMemoAt := p.memoAt
	k, ok := shifted(old.Participants, oldMemoAt, q.Participants, first)
	if ok = ok && noteShifts; !ok {
		k = -1
	}
	if ok {
		p.noteShifted(old.Participants, oldMemoAt, k, at) // the usual change: only the nodes that moved are noted
		for i := range k {
			p.leave(&old.Participants[i], labelIn(oldLabels, i), i, at)
		}
	} else {
		p.memoAt = p.spareMemoAt[:0]
		p.noteNodes(old.Participants, oldMemoAt, at, first)
		// Nodes that left (not met again: their memo is of an earlier
		// queue) become ghosts at their old place.
		for i := range old.Participants {
			if first {
				break
			}
			if m := memoIn(oldMemoAt, i); m != nil && m.shown == p.shown {
				continue
			} else if _, ok := p.indexOf(old.Participants[i].Node); m == nil && ok {
				continue
			}
			p.leave(&old.Participants[i], labelIn(oldLabels, i), i, at)
		}
		clear(oldMemoAt)
		p.spareMemoAt = oldMemoAt
	}
	p.judgeWatches(&p.queue, owned, old.Participants, k)
	p.spareLabels = oldLabels
	clear(p.chains) // found again on first use (chainOf)
	p.rebuild()
	p.applyWantNode()
}

// leave makes x, which left the queue (it stood at index with label),
// a ghost at its old place.
func (p *Model) leave(x *lockops.Participant, label string, index int, at time.Time) {
	if n := len(p.ghosts); n > 0 && at.Before(p.ghosts[n-1].gone) {
		p.ghostsUnordered = true // (the clock went back)
	}
	p.ghosts = append(p.ghosts, ghost{p: *x, label: label, index: index, until: at.Add(releasedFor), gone: at})
	delete(p.memo, x.Node)
}

// shifted says whether the queue ps is the queue old less its first k
// nodes, the others in the same order, and new nodes after them (the
// usual change of a busy lock: holders leave, waiters arrive), with the
// memo of each node of old known (oldMemoAt); not for a directory's first
// queue.
func shifted(old []lockops.Participant, oldMemoAt []*nodeMemo, ps []lockops.Participant, first bool) (k int, ok bool) {
	if first || len(old) == 0 || len(ps) == 0 || len(oldMemoAt) != len(old) {
		return 0, false
	}
	for k = 0; k < len(old) && old[k].Node != ps[0].Node; k++ {
		if k == maxShift {
			return 0, false
		}
	}
	if k == len(old) || len(ps) < len(old)-k {
		return 0, false
	}
	for i := range len(old) - k {
		if ps[i].Node != old[k+i].Node {
			return 0, false
		}
	}
	return k, true
}

// noteShifts says whether a shifted queue is noted as such (a test
// compares both ways).
var noteShifts = true

// maxShift is the most nodes leaving the head of a queue at once that
// noteShifted handles (more: each node is noted, noteNodes).
const maxShift = 8

// noteShifted is noteNodes for a queue shifted by k from old (shifted):
// the nodes kept are moved up by k at once (Model.cum, memoIndex), and
// only those whose state or wait changed, and the new ones, are noted.
func (p *Model) noteShifted(old []lockops.Participant, oldMemoAt []*nodeMemo, k int, at time.Time) {
	p.cum += int64(k)
	p.memoAt = oldMemoAt[k:]
	ps := p.queue.Participants
	for j := range ps {
		x := &ps[j]
		if j < len(old)-k {
			if y := &old[k+j]; x.State == y.State && x.Watches == y.Watches {
				continue // as it was: its memo holds
			}
			p.noteNode(x, p.memoAt[j], j, at, false)
			continue
		}
		m := p.memo[x.Node]
		if m == nil {
			m = p.newMemo(x.Node, at, false)
		}
		p.noteNode(x, m, j, at, false)
		p.memoAt = append(p.memoAt, m)
	}
}

// newMemo is a new node's memo (fresh unless in the directory's first
// queue).
func (p *Model) newMemo(node string, at time.Time, first bool) *nodeMemo {
	m := &nodeMemo{}
	p.memo[node] = m
	if !first {
		m.firstSeen = at
		m.freshUntil = at.Add(freshFor)
	}
	return m
}

// noteNode updates m, the memo of x at index j of the queue shown: where it
// is, when it began to hold, what it waits on since when.
func (p *Model) noteNode(x *lockops.Participant, m *nodeMemo, j int, at time.Time, first bool) {
	m.at, m.cum, m.shown = j, p.cum, p.shown
	if x.State == lockops.StateHolding && !m.holding {
		m.holding = true
		if !first { // began to hold between the last read and this one
			m.holdingSince = at
			m.freshUntil = at.Add(freshFor)
		}
	}
	if x.State == lockops.StateWaiting && (x.Watches != m.watches || m.watchSince.IsZero()) {
		m.watches, m.watchSince = x.Watches, at
	} else if x.State == lockops.StateWaiting {
		m.watches = x.Watches // equal: this read's copy, compared by its pointer next time
	}
}

// noteNodes updates the memo of each node of the queue shown (its
// arrival, when it began to hold, its wait), marking each met; old are
// the participants of the queue shown before, oldMemoAt their memos. The
// nodes that stay keep their order, so each is first looked for just
// after the last one met (no lookup by path for most of a long queue).
func (p *Model) noteNodes(old []lockops.Participant, oldMemoAt []*nodeMemo, at time.Time, first bool) {
	next := 0
	for j := range p.queue.Participants {
		x := &p.queue.Participants[j]
		var m *nodeMemo
		if next < len(old) && old[next].Node == x.Node {
			m = memoIn(oldMemoAt, next)
		}
		switch {
		case m != nil:
			next++
		case p.memo[x.Node] != nil:
			m = p.memo[x.Node]
			if i := p.memoIndex(m); i >= 0 && i < len(old) && old[i].Node == x.Node {
				next = i + 1
			}
		default:
			m = p.newMemo(x.Node, at, first)
		}
		p.noteNode(x, m, j, at, first)
		p.memoAt = append(p.memoAt, m)
	}
}

// indexOf is node's index in the queue shown: its memo's (memoIndex),
// which noteNodes sets for every node of each queue shown (no index of
// its own to rebuild for each read of a long queue).
func (p *Model) indexOf(node string) (int, bool) {
	m := p.memo[node]
	if m == nil {
		return 0, false
	}
	i := p.memoIndex(m)
	if i < 0 || i >= len(p.queue.Participants) || p.queue.Participants[i].Node != node {
		return 0, false
	}
	return i, true
}

// memoIndex is where m's node stands in the queue shown, if it is in it:
// its index when last noted, less the nodes that left the head since
// (noteShifted).
func (p *Model) memoIndex(m *nodeMemo) int { return m.at - int(p.cum-m.cum) }

// memoIn is memos[i], nil when out of range.
func memoIn(memos []*nodeMemo, i int) *nodeMemo {
	if i < len(memos) {
		return memos[i]
	}
	return nil
}

// staleAt reports whether what the pane remembers is too old to compare
// a new read with (it was hidden longer than a highlight lasts): then the
// next read starts over instead of flagging everything as moved.
func (p *Model) staleAt(at time.Time) bool {
	return !p.visible && !p.hiddenAt.IsZero() && at.Sub(p.hiddenAt) > releasedFor
}

// resetDir starts over for another directory (or the same one after a
// long while hidden).
func (p *Model) resetDir(path string) {
	if p.note.About != "" && p.note.About != path {
		p.note = common.Status{} // it was about another lock
	}
	p.path = path
	p.hiddenAt = time.Time{}
	p.queue, p.have = lockops.Queue{Path: path}, false
	p.counted = false
	p.memo = map[string]*nodeMemo{}
	p.ghosts = nil
	p.first = true
	p.cursorNode, p.cursor, p.offset = "", 0, 0
	p.loadErr = nil
	p.dirCache, p.fol.splicer = nil, nil
	p.stopFollow()
	p.fol.lastID = 0
	p.holding = false
	p.verifiedAt, p.verifying, p.ens, p.ensAt, p.samples = time.Time{}, false, nil, time.Time{}, nil
	p.findings, p.pings = nil, diagnose.PingWatch{}
	p.sentences = &lockops.Sentences{}
	p.entries, p.heights = nil, nil
}

// memoOf is the memo of the queue's participant i, node (from the index
// setQueueAt made, else looked up).
func (p *Model) memoOf(i int, node string) *nodeMemo {
	if i < len(p.memoAt) && p.memoAt[i] != nil && p.queue.Participants[i].Node == node {
		return p.memoAt[i]
	}
	return p.memo[node]
}

// labelParticipants names holders H1, H2… and waiters W1, W2… in order,
// in out (emptied first; nil: a new map), with names from made.
func labelParticipants(ps []lockops.Participant, out map[string]string, made *labelNames) map[string]string {
	if out == nil {
		out = make(map[string]string, len(ps))
	}
	clear(out)
	h, w := 0, 0
	for _, x := range ps {
		if x.State == lockops.StateHolding {
			h++
			out[x.Node] = made.name(&made.holders, "H", h)
		} else {
			w++
			out[x.Node] = made.name(&made.waiters, "W", w)
		}
	}
	return out
}

// labelsAt is labelParticipants by index, in out (emptied first).
func labelsAt(ps []lockops.Participant, out []string, made *labelNames) []string {
	out = out[:0]
	h, w := 0, 0
	for i := range ps {
		if ps[i].State == lockops.StateHolding {
			h++
			out = append(out, made.name(&made.holders, "H", h))
		} else {
			w++
			out = append(out, made.name(&made.waiters, "W", w))
		}
	}
	return out
}

// labelIn is labels[i], "" when out of range.
func labelIn(labels []string, i int) string {
	if i < len(labels) {
		return labels[i]
	}
	return ""
}

// labelOf is node's label in the queue shown; ok false when it is not
// in it.
func (p *Model) labelOf(node string) (string, bool) {
	i, ok := p.indexOf(node)
	if !ok || i >= len(p.labelAt) {
		return "", false
	}
	return p.labelAt[i], true
}

// label is node's label in the queue shown ("" when it is not in it).
func (p *Model) label(node string) string {
	l, _ := p.labelOf(node)
	return l
}

// labelNames are the labels made so far ("H1", "W1", …, by number less
// one): a churning lock's reads name the same places again and again.
type labelNames struct{ holders, waiters []string }

func (*labelNames) name(made *[]string, prefix string, n int) string {
	for len(*made) < n {
		*made = append(*made, prefix+strconv.Itoa(len(*made)+1))
	}
	return (*made)[n-1]
}

// rebuild lays out the entries (participants with the ghosts at their old
// places) and their heights; it runs on change, never in View.
func (p *Model) rebuild() {
	p.dropGhosts()
	// The newest maxGhostRows ghosts are drawn (of those gone together,
	// the first to have left), the others folded: picked in one pass, the
	// ghosts of a busy lock (hundreds) are not sorted on each read.
	shown := p.newestGhosts()
	folded := len(p.ghosts) - len(shown)
	sort.SliceStable(shown, func(i, j int) bool { return shown[i].index < shown[j].index })
	ps := p.queue.Participants
	p.entries = p.entries[:0]
	if folded > 0 {
		p.entries = append(p.entries, lockEntry{fold: folded})
	}
	gi := 0
	for i := range ps {
		for gi < len(shown) && shown[gi].index <= i {
			p.entries = append(p.entries, lockEntry{p: &shown[gi].p, label: shown[gi].label, ghost: &shown[gi]})
			gi++
		}
		p.entries = append(p.entries, lockEntry{p: &ps[i], label: labelIn(p.labelAt, i)})
	}
	for ; gi < len(shown); gi++ {
		p.entries = append(p.entries, lockEntry{p: &shown[gi].p, label: shown[gi].label, ghost: &shown[gi]})
	}
	p.heights = p.heights[:0]
	for i := range p.entries {
		p.heights = append(p.heights, entryHeight(&p.entries[i]))
	}
	// Keep the cursor on the same node when it is still there (at first
	// on the first node that is not a ghost).
	if p.cursorNode == "" {
		for i, e := range p.entries {
			if e.participant() {
				p.cursor = i
				break
			}
		}
	} else {
		for i, e := range p.entries {
			if e.participant() && e.p.Node == p.cursorNode {
				p.cursor = i
				break
			}
		}
	}
	p.clampCursor()
}

// dropGhosts drops the ghosts whose time is up: the oldest ones, usually
// (then the others stay where they are: a busy lock has hundreds).
func (p *Model) dropGhosts() {
	gs := p.ghosts
	k := 0
	for k < len(gs) && !p.now.Before(gs[k].until) {
		k++
	}
	n := k
	if !p.ghostsUnordered {
		n = len(gs) // in the order they left: the rest are younger
	}
	for i := n; i < len(gs); i++ {
		if p.now.Before(gs[i].until) {
			if n != i {
				gs[n] = gs[i]
			}
			n++
		}
	}
	clear(gs[:k]) // (what they held goes)
	if n > k {
		clear(gs[n:])
		gs = gs[:n]
	}
	p.ghosts = gs[k:]
	if len(p.ghosts) == 0 {
		p.ghostsUnordered = false
	}
}

// newestGhosts are copies of the newest maxGhostRows ghosts (ties: the
// first in p.ghosts), newest first, in a slice of the pane's own that the
// entries point into until the next rebuild.
func (p *Model) newestGhosts() []ghost {
	var at [maxGhostRows]int
	n := 0
	from := 0
	if !p.ghostsUnordered {
		// In the order they left: the newest are the last ones (and
		// those that left with the last of them).
		from = max(len(p.ghosts)-maxGhostRows, 0)
		for from > 0 && p.ghosts[from-1].gone.Equal(p.ghosts[from].gone) {
			from--
		}
	}
	for j := from; j < len(p.ghosts); j++ {
		g := &p.ghosts[j]
		k := n // where j goes among the newest so far
		for k > 0 && g.gone.After(p.ghosts[at[k-1]].gone) {
			k--
		}
		if k == maxGhostRows {
			continue
		}
		if n < maxGhostRows {
			n++
		}
		copy(at[k+1:n], at[k:n-1])
		at[k] = j
	}
	p.shownGhosts = p.shownGhosts[:0]
	for _, j := range at[:n] {
		p.shownGhosts = append(p.shownGhosts, p.ghosts[j])
	}
	return p.shownGhosts
}

func entryHeight(e *lockEntry) int {
	switch {
	case !e.participant():
		return 1
	case e.p.State == lockops.StateWaiting && e.p.Watches != "":
		return 3
	}
	return 2
}
