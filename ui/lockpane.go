package ui

import (
	"fmt"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/zkview"
)

// LockPane shows the decoded queue of the lock directory under the cursor:
// holders then waiters in order, each with its mode, owner (session,
// client, data) and how long it has held or waited, the node each waiter
// watches drawn as a chain down to a holder, the servers' confirmation of
// those watches (✓ seen, ✗ missing, ? unknown) and the lock's problems as
// badges. Nodes that just arrived or just left stay highlighted for a few
// seconds so a person watching can follow the queue move.
//
// While shown it keeps its own children watch on the directory and
// re-reads the queue (coalesced: one read in flight, one more if the
// directory changed meanwhile). It also owns the lock actions (take,
// release, revoke, force-delete; see lockactions.go), whose state outlives
// the directory shown: a lock we hold stays tracked wherever the cursor is.
type LockPane struct {
	st   *themes.Styles
	keys common.LockKeyMap
	w, h int

	clock func() time.Time
	now   time.Time

	// What is shown.
	path     string // the lock directory
	visible  bool
	hiddenAt time.Time // when the pane was last hidden
	queue    lockops.Queue
	have     bool
	entries  []lockEntry
	heights  []int // lines per entry (prefix of the window computation)
	labels   map[string]string
	byNode   map[string]int // node -> index in queue.Participants
	chains   map[string]chainEnd

	// Live reading of path.
	client   *zkview.Client
	readOnly bool
	loadID   uint64
	loading  bool
	dirty    bool
	live     bool          // our watch is armed: root re-reads are ignored
	stop     chan struct{} // closed to end the current watch listener
	loadErr  error
	loadedAt time.Time // when the last read of ours finished
	// verifiedAt is when the servers were last asked about the shown lock
	// (verifying: the question is out); ens is what they said, at ensAt,
	// applied to every read until the next answer.
	verifiedAt time.Time
	verifying  bool
	ens        *zkview.Ensemble
	ensAt      time.Time

	// What was seen per node, for highlights and ages.
	memo   map[string]*nodeMemo
	ghosts []ghost
	first  bool // the next queue is the first of this directory

	// The participant cursor (for revoke and force-delete).
	cursorNode string
	cursor     int
	offset     int

	act lockActions
	// dialogs is the overlay shared with the root model; dialogID names
	// the lock dialog the pane opened last.
	dialogs  *dialog.Overlay
	dialogID string
	spinner  spinner.Model
	note     common.Status
}

// Highlight durations.
const (
	freshFor    = 4 * time.Second // newly arrived or newly holding
	releasedFor = 4 * time.Second // gone nodes stay as a struck-through row
	watchGrace  = 2 * time.Second // a just-changed wait is not yet "missing"
	// reverifyEvery re-reads the shown lock with the servers' view even
	// when its children did not change.
	reverifyEvery = 3 * time.Second
)

// nodeMemo is what the pane remembers of one node of the shown directory.
type nodeMemo struct {
	firstSeen    time.Time // when it appeared (zero: present at first read)
	holdingSince time.Time // when it was first seen holding
	freshUntil   time.Time
	watches      string
	watchSince   time.Time
}

// ghost is a node that left the queue, drawn struck-through for a while.
type ghost struct {
	p     lockops.Participant
	label string
	index int // where it stood
	until time.Time
	gone  time.Time
}

// lockEntry is one drawn participant (or ghost).
type lockEntry struct {
	p     lockops.Participant
	label string
	ghost *ghost
}

// newLockPane builds an empty pane drawing with st (a pointer the root
// model updates in place when the theme changes).
func newLockPane(st *themes.Styles, dialogs *dialog.Overlay) *LockPane {
	p := &LockPane{st: st, dialogs: dialogs, keys: common.DefaultLockKeyMap(), clock: time.Now, memo: map[string]*nodeMemo{}}
	p.now = p.clock()
	p.spinner = spinner.New(spinner.WithSpinner(spinner.Dot))
	return p
}

// SetClient gives the pane the connection its reads and lock actions use;
// readOnly refuses every lock action with a message.
func (p *LockPane) SetClient(c *zkview.Client, readOnly bool) {
	if c != p.client {
		p.stopWatch()
		p.live = false
	}
	p.client, p.readOnly = c, readOnly
}

// SetSize sets the pane's inner size in cells.
func (p *LockPane) SetSize(w, h int) {
	p.w, p.h = max(w, 10), max(h, 3)
	p.clampCursor()
}

// SetQueue replaces the queue shown with a fresh decode of the directory
// (read by the root model). While the pane's own watch on that directory
// is armed, its reads are newer and verified: the root's are ignored.
func (p *LockPane) SetQueue(q lockops.Queue) {
	if p.live && q.Path == p.path && p.have {
		return
	}
	p.SetQueueAt(q, p.clock())
}

// Queue is the queue shown.
func (p *LockPane) Queue() lockops.Queue { return p.queue }

// SetQueueAt shows q as read at time at: nodes not seen before are
// highlighted as new, nodes gone since the last queue stay for a few
// seconds struck through.
func (p *LockPane) SetQueueAt(q lockops.Queue, at time.Time) {
	if q.Path != p.path || p.staleAt(at) {
		p.resetDir(q.Path)
	}
	p.now = at
	old := p.queue
	oldLabels := p.labels
	p.queue, p.have = q, true
	p.labels = labelParticipants(q.Participants)
	p.byNode = make(map[string]int, len(q.Participants))
	for i, x := range q.Participants {
		p.byNode[x.Node] = i
	}
	first := p.first
	p.first = false
	for _, x := range q.Participants {
		m := p.memo[x.Node]
		if m == nil {
			m = &nodeMemo{}
			p.memo[x.Node] = m
			if !first {
				m.firstSeen = at
				m.freshUntil = at.Add(freshFor)
			}
		}
		if x.State == lockops.StateHolding && m.holdingSince.IsZero() {
			if first {
				m.holdingSince = x.Ctime
			} else {
				m.holdingSince = at
				m.freshUntil = at.Add(freshFor)
			}
		}
		if x.Watches != m.watches {
			m.watches, m.watchSince = x.Watches, at
			if first {
				m.watchSince = time.Time{}
			}
		}
	}
	// Nodes that left become ghosts at their old place.
	if !first {
		for i, x := range old.Participants {
			if _, ok := p.byNode[x.Node]; ok {
				continue
			}
			p.ghosts = append(p.ghosts, ghost{p: x, label: oldLabels[x.Node], index: i, until: at.Add(releasedFor), gone: at})
			delete(p.memo, x.Node)
		}
	}
	p.graceWatches(&p.queue)
	p.chains = computeChains(p.queue.Participants, p.byNode)
	p.rebuild()
}

// staleAt reports whether what the pane remembers is too old to compare
// a new read with (it was hidden longer than a highlight lasts): then the
// next read starts over instead of flagging everything as moved.
func (p *LockPane) staleAt(at time.Time) bool {
	return !p.visible && !p.hiddenAt.IsZero() && at.Sub(p.hiddenAt) > releasedFor
}

// resetDir starts over for another directory (or the same one after a
// long while hidden).
func (p *LockPane) resetDir(path string) {
	p.path = path
	p.hiddenAt = time.Time{}
	p.queue, p.have = lockops.Queue{Path: path}, false
	p.memo = map[string]*nodeMemo{}
	p.ghosts = nil
	p.first = true
	p.cursorNode, p.cursor, p.offset = "", 0, 0
	p.loadErr = nil
	p.verifiedAt, p.verifying, p.ens, p.ensAt = time.Time{}, false, nil, time.Time{}
	p.entries, p.heights = nil, nil
}

// graceWatches turns a "missing" watch of a waiter whose wait just began or
// moved into "unknown": the servers list a watch only once the client set
// it, a moment after the change.
func (p *LockPane) graceWatches(q *lockops.Queue) {
	var dropped map[string]bool
	for i := range q.Participants {
		x := &q.Participants[i]
		if x.WatchObserved == nil || *x.WatchObserved {
			continue
		}
		m := p.memo[x.Node]
		// The servers' view predates this wait (it began or moved after
		// they were asked), or the wait is too new to be listed yet.
		if m != nil && !m.watchSince.IsZero() && (p.now.Sub(m.watchSince) < watchGrace || p.predatesView(m.watchSince)) ||
			m != nil && !m.firstSeen.IsZero() && (p.now.Sub(m.firstSeen) < watchGrace || p.predatesView(m.firstSeen)) {
			if dropped == nil {
				dropped = map[string]bool{}
				// The caller's slice is not ours to change.
				q.Participants = append([]lockops.Participant(nil), q.Participants...)
				x = &q.Participants[i]
			}
			x.WatchObserved = nil
			dropped[x.Node] = true
		}
	}
	if dropped == nil {
		return
	}
	kept := q.Problems[:0:0]
	for _, pr := range q.Problems {
		if pr.Kind == lockops.ProblemWatchMissing && dropped[pr.Node] {
			continue
		}
		kept = append(kept, pr)
	}
	q.Problems = kept
}

// predatesView reports whether the servers' view in use was taken before
// t (so it cannot know of a wait that began or moved at t).
func (p *LockPane) predatesView(t time.Time) bool {
	return !p.ensAt.IsZero() && t.After(p.ensAt)
}

// labelParticipants names holders H1, H2… and waiters W1, W2… in order.
func labelParticipants(ps []lockops.Participant) map[string]string {
	out := make(map[string]string, len(ps))
	h, w := 0, 0
	for _, x := range ps {
		if x.State == lockops.StateHolding {
			h++
			out[x.Node] = fmt.Sprintf("H%d", h)
		} else {
			w++
			out[x.Node] = fmt.Sprintf("W%d", w)
		}
	}
	return out
}

// rebuild lays out the entries (participants with the ghosts at their old
// places) and their heights; it runs on change, never in View.
func (p *LockPane) rebuild() {
	live := p.ghosts[:0]
	for _, g := range p.ghosts {
		if p.now.Before(g.until) {
			live = append(live, g)
		}
	}
	p.ghosts = live
	sort.SliceStable(p.ghosts, func(i, j int) bool { return p.ghosts[i].index < p.ghosts[j].index })
	ps := p.queue.Participants
	p.entries = p.entries[:0]
	gi := 0
	for i := range ps {
		for gi < len(p.ghosts) && p.ghosts[gi].index <= i {
			p.entries = append(p.entries, lockEntry{p: p.ghosts[gi].p, label: p.ghosts[gi].label, ghost: &p.ghosts[gi]})
			gi++
		}
		p.entries = append(p.entries, lockEntry{p: ps[i], label: p.labels[ps[i].Node]})
	}
	for ; gi < len(p.ghosts); gi++ {
		p.entries = append(p.entries, lockEntry{p: p.ghosts[gi].p, label: p.ghosts[gi].label, ghost: &p.ghosts[gi]})
	}
	p.heights = p.heights[:0]
	for _, e := range p.entries {
		p.heights = append(p.heights, entryHeight(e))
	}
	// Keep the cursor on the same node when it is still there (at first
	// on the first node that is not a ghost).
	if p.cursorNode == "" {
		for i, e := range p.entries {
			if e.ghost == nil {
				p.cursor = i
				break
			}
		}
	} else {
		for i, e := range p.entries {
			if e.p.Node == p.cursorNode && e.ghost == nil {
				p.cursor = i
				break
			}
		}
	}
	p.clampCursor()
}

func entryHeight(e lockEntry) int {
	switch {
	case e.ghost != nil:
		return 1
	case e.p.State == lockops.StateWaiting && e.p.Watches != "":
		return 3
	}
	return 2
}

// Update handles the pane's keys (while the detail area has focus), its
// own messages (reads, watch events, lock actions) and the root's ticks.
func (p *LockPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if cmd, ok := p.ActionKey(msg, p.path, p.have); ok {
			return cmd
		}
		p.navigate(msg)
		return nil
	case common.TickMsg:
		p.now = msg.At
		if p.expire() {
			p.rebuild()
		}
		// Ask the servers again now and then: a waiter's watch appears in
		// their lists a moment after it moved, and data changes (a
		// revocation request) fire no children watch.
		if p.visible && !p.loading && p.now.Sub(p.verifiedAt) >= reverifyEvery {
			return p.load()
		}
		return nil
	case lockLoadedMsg:
		return p.onLoaded(msg)
	case lockVerifiedMsg:
		return p.onVerified(msg)
	case lockDirChangedMsg:
		return p.onDirChanged(msg)
	case spinner.TickMsg:
		if !p.act.waiting() {
			return nil
		}
		var cmd tea.Cmd
		p.spinner, cmd = p.spinner.Update(msg)
		return cmd
	}
	return p.updateActions(msg)
}

// expire drops highlights and ghosts whose time is up; it reports whether
// the layout changed.
func (p *LockPane) expire() bool {
	for _, g := range p.ghosts {
		if !p.now.Before(g.until) {
			return true
		}
	}
	return false
}

func (p *LockPane) navigate(msg tea.KeyPressMsg) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Up):
		p.moveCursor(-1)
	case key.Matches(msg, k.Down):
		p.moveCursor(1)
	case key.Matches(msg, k.PageUp):
		p.moveCursor(-max(p.listHeight()/2, 1))
	case key.Matches(msg, k.PageDown):
		p.moveCursor(max(p.listHeight()/2, 1))
	case key.Matches(msg, k.Top):
		p.moveCursor(-len(p.entries))
	case key.Matches(msg, k.Bottom):
		p.moveCursor(len(p.entries))
	}
}

func (p *LockPane) moveCursor(d int) {
	p.cursor += d
	p.clampCursor()
	if p.cursor < len(p.entries) {
		p.cursorNode = p.entries[p.cursor].p.Node
	}
}

func (p *LockPane) clampCursor() {
	p.cursor = max(min(p.cursor, len(p.entries)-1), 0)
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	// Scroll so that the cursor's entry fits.
	h := p.listHeight()
	for p.offset < p.cursor {
		used := 0
		for i := p.offset; i <= p.cursor && i < len(p.heights); i++ {
			used += p.heights[i]
		}
		if used <= h {
			break
		}
		p.offset++
	}
	p.offset = max(min(p.offset, len(p.entries)-1), 0)
}

// selected returns the participant under the cursor (not a ghost).
func (p *LockPane) selected() (lockops.Participant, bool) {
	if p.cursor < len(p.entries) && p.entries[p.cursor].ghost == nil {
		return p.entries[p.cursor].p, true
	}
	return lockops.Participant{}, false
}

// headerLines counts the lines above the list.
func (p *LockPane) headerLines() int {
	n := 1
	if len(p.queue.Problems) > 0 {
		n++
	}
	n += len(p.bannerLines())
	return n
}

// listHeight is the number of lines for the entries.
func (p *LockPane) listHeight() int {
	return max(p.h-p.headerLines()-1, 1)
}

// View draws the pane: exactly its height, lines cut to its width.
func (p *LockPane) View() string {
	st := p.st
	lines := make([]string, 0, p.h)
	lines = append(lines, p.titleLine())
	if len(p.queue.Problems) > 0 {
		lines = append(lines, p.badgeLine())
	}
	lines = append(lines, p.bannerLines()...)
	listH := p.listHeight()
	switch {
	case !p.have && p.loadErr == nil:
		lines = append(lines, st.Muted.Render("Reading the queue…"))
	case len(p.entries) == 0:
		lines = append(lines, st.Muted.Render("Nobody holds or waits for this lock."))
	default:
		used := 0
		for i := p.offset; i < len(p.entries) && used < listH; i++ {
			for j, l := range p.entryLines(i) {
				if used >= listH {
					break
				}
				_ = j
				lines = append(lines, l)
				used++
			}
		}
	}
	for len(lines) < p.h-1 {
		lines = append(lines, "")
	}
	if len(lines) > p.h-1 {
		lines = lines[:p.h-1]
	}
	lines = append(lines, p.footerLine())
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, p.w, "…")
	}
	return strings.Join(lines, "\n")
}

func (p *LockPane) titleLine() string {
	st := p.st
	q := &p.queue
	kind := string(q.Kind)
	if kind == "" {
		kind = "lock"
	}
	h, w := 0, 0
	for _, x := range q.Participants {
		if x.State == lockops.StateHolding {
			h++
		} else {
			w++
		}
	}
	s := st.Section.Render(kind) + st.Muted.Render(fmt.Sprintf("  %d holding · %d waiting", h, w))
	if q.MaxLeases > 0 {
		s += st.Muted.Render(fmt.Sprintf(" · %d leases", q.MaxLeases))
	}
	if len(q.Others) > 0 {
		s += st.Warning.Render(" · mixed libraries")
	}
	return s
}

// badgeStyle draws a problem badge in the colour of its kind's severity.
func (p *LockPane) badgeStyle(kind lockops.ProblemKind) func(...string) string {
	switch kind.Severity() {
	case lockops.SeverityError:
		return p.st.BadgeErr.Render
	case lockops.SeverityInfo:
		return p.st.Badge.Render
	}
	return p.st.BadgeWarn.Render
}

func (p *LockPane) badgeLine() string {
	counts := map[lockops.ProblemKind]int{}
	var order []lockops.ProblemKind
	for _, pr := range p.queue.Problems {
		if counts[pr.Kind] == 0 {
			order = append(order, pr.Kind)
		}
		counts[pr.Kind]++
	}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		t := string(k)
		if counts[k] > 1 {
			t = fmt.Sprintf("%s ×%d", k, counts[k])
		}
		parts = append(parts, p.badgeStyle(k)(t))
	}
	return strings.Join(parts, " ")
}

// entryLines draws entry i: the participant line, its owner line and, for
// a waiter, its watch chain.
func (p *LockPane) entryLines(i int) []string {
	st := p.st
	e := p.entries[i]
	x := e.p
	mark := "  "
	if i == p.cursor {
		mark = st.Prompt.Render("▸ ")
	}
	if e.ghost != nil {
		ago := p.now.Sub(e.ghost.gone)
		what := "left"
		if x.State == lockops.StateHolding {
			what = "released"
		}
		// No label of its own: the labels belong to the queue as it is
		// now (the next holder is H1 already); say where it stood.
		was := ""
		if e.label != "" {
			was = " (was " + e.label + ")"
		}
		return []string{mark + st.Released.Render(fmt.Sprintf("    ✕ %-9s %s", x.Mode, common.ShortName(lockops.ShortName(x.Name), 28))) +
			st.Subtle.Render(fmt.Sprintf("  %s %s ago%s", what, common.FormatAge(ago), was))}
	}
	m := p.memo[x.Node]
	fresh := m != nil && p.now.Before(m.freshUntil)
	labelStyle, icon := st.Waiter, "○"
	if x.State == lockops.StateHolding {
		labelStyle, icon = st.Holder, "●"
	}
	var age string
	if x.State == lockops.StateHolding {
		since := x.Ctime
		if m != nil && !m.holdingSince.IsZero() {
			since = m.holdingSince
		}
		age = "held " + common.FormatAge(p.now.Sub(since))
	} else {
		age = "waiting " + common.FormatAge(p.now.Sub(x.Ctime))
	}
	head := fmt.Sprintf("%-3s %s %-9s ", e.label, icon, x.Mode)
	mine := p.act.isOurs(x.Node)
	tag := ""
	if mine {
		tag = " " + st.Badge.Render("you")
	}
	nameW := max(p.w-2-ansi.StringWidth(head)-ansi.StringWidth(age)-2-ansi.StringWidth(tag), 8)
	name := common.ShortName(lockops.ShortName(x.Name), nameW)
	line := head + fmt.Sprintf("%-*s", nameW, name)
	if fresh {
		line = st.Fresh.Render(line)
	} else {
		line = labelStyle.Render(line)
	}
	first := mark + line + tag + "  " + st.Muted.Render(age)

	owner := "PERSISTENT (no session)"
	ownerStyle := st.Error
	if x.Ephemeral {
		owner, ownerStyle = lockops.FormatSession(x.Session), st.Muted
	}
	second := "    " + ownerStyle.Render(owner)
	if x.Client != "" {
		second += st.Subtle.Render(" · ") + st.Value.Render(x.Client)
	}
	if len(x.Data) > 0 {
		second += st.Subtle.Render(" · ") + st.Value.Render(common.DataSummary(x.Data))
	}
	for _, pr := range p.queue.Problems {
		if pr.Node == x.Node {
			second = "    " + p.badgeStyle(pr.Kind)(string(pr.Kind)) + " " + strings.TrimPrefix(second, "    ")
			break
		}
	}
	out := []string{first, second}
	if x.State == lockops.StateWaiting && x.Watches != "" {
		out = append(out, "    "+p.chain(x))
	}
	return out
}

// chainEnd is where a waiter's chain of waits ends: the last node reached
// (normally a holder) and how many hops it takes.
type chainEnd struct {
	end   string
	hops  int
	cycle bool // the waits go round in a circle
	gone  bool // the last node waits on a node that is not in the queue
}

// computeChains finds, for every waiter, where its chain of waits ends, in
// one pass over the queue (memoised: a 10,000-node chain costs O(n) once,
// not per frame).
func computeChains(ps []lockops.Participant, byNode map[string]int) map[string]chainEnd {
	out := make(map[string]chainEnd, len(ps))
	onStack := map[string]bool{}
	for _, x := range ps {
		if _, done := out[x.Node]; done {
			continue
		}
		// Walk until a node with a known end, a holder, or a cycle.
		var stack []string
		cur := x.Node
		var tail chainEnd
		for {
			if e, ok := out[cur]; ok {
				tail = e
				break
			}
			if onStack[cur] {
				tail = chainEnd{end: cur, cycle: true}
				break
			}
			i, ok := byNode[cur]
			if !ok {
				tail = chainEnd{end: cur, gone: true}
				break
			}
			y := ps[i]
			if y.Watches == "" || y.WatchKind == lockops.WatchChildren {
				out[cur] = chainEnd{end: cur}
				tail = out[cur]
				break
			}
			onStack[cur] = true
			stack = append(stack, cur)
			cur = y.Watches
		}
		for j := len(stack) - 1; j >= 0; j-- {
			tail.hops++
			out[stack[j]] = tail
			delete(onStack, stack[j])
		}
	}
	return out
}

// chain draws the waits from x down to a holder:
// "W3 ──watches ✓──▶ W2 ──?──▶ H1". Longer chains are shortened in the
// middle: "W9 ──watches ✓──▶ W8 ─▶ … 6 more ─▶ H1".
func (p *LockPane) chain(x lockops.Participant) string {
	st := p.st
	var b strings.Builder
	b.WriteString(st.Waiter.Render(p.labels[x.Node]) + " ")
	if x.WatchKind == lockops.WatchChildren {
		b.WriteString(st.Chain.Render("──watches children of ") + p.observed(x.WatchObserved) + st.Chain.Render("──▶ ") + st.Value.Render(common.LastElem(x.Watches)))
		return b.String()
	}
	ce := p.chains[x.Node]
	cur := x
	for hop := 0; cur.Watches != ""; hop++ {
		label := "──"
		if hop == 0 {
			label = "──watches "
		}
		b.WriteString(st.Chain.Render(label) + p.observed(cur.WatchObserved) + st.Chain.Render("──▶ "))
		i, ok := p.byNode[cur.Watches]
		if !ok {
			b.WriteString(st.ObservedMissing.Render(common.ShortName(lockops.ShortName(common.LastElem(cur.Watches)), 24) + " (not in the queue)"))
			break
		}
		next := p.queue.Participants[i]
		b.WriteString(p.labelStyle(next).Render(p.labels[next.Node]))
		left := ce.hops - hop - 1
		if ce.cycle && hop >= ce.hops {
			b.WriteString(st.Error.Render(" (cycle)"))
			break
		}
		if left >= 2 && hop == 1 {
			b.WriteString(st.Chain.Render(fmt.Sprintf(" ─▶ … %d more ─▶ ", left-1)))
			if j, ok := p.byNode[ce.end]; ok {
				b.WriteString(p.labelStyle(p.queue.Participants[j]).Render(p.labels[ce.end]))
			} else {
				b.WriteString(st.ObservedMissing.Render(common.ShortName(lockops.ShortName(common.LastElem(ce.end)), 24) + " (not in the queue)"))
			}
			if ce.cycle {
				b.WriteString(st.Error.Render(" (cycle)"))
			}
			break
		}
		if next.WatchKind == lockops.WatchChildren {
			break
		}
		b.WriteString(" ")
		cur = next
	}
	return strings.TrimRight(b.String(), " ")
}

func (p *LockPane) labelStyle(x lockops.Participant) lipgloss.Style {
	if x.State == lockops.StateHolding {
		return p.st.Holder
	}
	return p.st.Waiter
}

func (p *LockPane) observed(v *bool) string {
	switch {
	case v == nil:
		return p.st.ObservedUnknown.Render("?")
	case *v:
		return p.st.ObservedOK.Render("✓")
	}
	return p.st.ObservedMissing.Render("✗")
}

// footerLine is the action note, else the selected node's problem, else
// the path of the selected node.
func (p *LockPane) footerLine() string {
	st := p.st
	if p.note.Text != "" {
		return p.note.Level.Style(st).Render(p.note.Text)
	}
	if p.loadErr != nil {
		return st.Error.Render("Could not read the lock: " + p.loadErr.Error())
	}
	if x, ok := p.selected(); ok {
		for _, pr := range p.queue.Problems {
			if pr.Node == x.Node {
				return p.badgeStyle(pr.Kind)(string(pr.Kind)) + " " + st.Muted.Render(pr.Detail)
			}
		}
		for _, pr := range p.queue.Problems {
			if pr.Node == "" {
				return p.badgeStyle(pr.Kind)(string(pr.Kind)) + " " + st.Muted.Render(pr.Detail)
			}
		}
		return st.Subtle.Render(x.Node)
	}
	return ""
}
