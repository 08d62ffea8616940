package lockpane

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
)

// View draws the pane: exactly its height, lines cut to its width.
func (p *Model) View() string {
	lines, _ := p.ViewLines()
	return strings.Join(lines, "\n")
}

// ViewLines are View's lines and the width of each in cells (measured
// once here: a box around them need not measure them again).
func (p *Model) ViewLines() (lines []string, widths []int) {
	if p.showingTimeline() {
		lines = strings.Split(p.timelineView(), "\n") // timeline_view.go
	} else {
		lines = p.queueLines()
	}
	widths = make([]int, len(lines))
	for i, l := range lines {
		w := common.Width(l)
		if w > p.w {
			l = ansi.Truncate(l, p.w, "…")
			w = common.Width(l)
		}
		lines[i], widths[i] = l, w
	}
	return lines, widths
}

// queueLines are the lines of the queue's view, before they are cut to
// the pane's width.
func (p *Model) queueLines() []string {
	st := p.st
	lines := make([]string, 0, p.h)
	lines = append(lines, p.titleLine())
	if len(p.queue.Problems) > 0 {
		lines = append(lines, p.badgeLine())
	}
	lines = append(lines, p.sessionLines()...)
	lines = append(lines, p.bannerLines()...)
	p.findProblems(p.h)
	p.rows.Frame(p.st.Palette.Name, p.st.NoColor)
	footer := p.footerLines()
	listH := max(p.h-len(lines)-len(footer), 1)
	switch {
	case !p.have && p.loadErr == nil:
		lines = append(lines, st.Muted.Render("Reading the queue…"))
	case len(p.entries) == 0:
		lines = append(lines, st.Muted.Render("Nobody holds or waits for this lock."))
	default:
		used := 0
		for i := p.offset; i < len(p.entries) && used < listH; i++ {
			for _, l := range p.entryLines(i) {
				if used >= listH {
					break
				}
				lines = append(lines, l)
				used++
			}
		}
	}
	for len(lines) < p.h-len(footer) {
		lines = append(lines, "")
	}
	if len(lines) > p.h-len(footer) {
		lines = lines[:max(p.h-len(footer), 0)]
	}
	return append(lines, footer...)
}

func (p *Model) titleLine() string {
	st := p.st
	q := &p.queue
	kind := string(q.Kind)
	if kind == "" {
		kind = "lock"
	}
	h, w := 0, 0
	for i := range q.Participants {
		if q.Participants[i].State == lockops.StateHolding {
			h++
		} else {
			w++
		}
	}
	s := p.draw(&st.Section, kind) + p.draw(&st.Muted, fmt.Sprintf("  %d holding · %d waiting", h, w))
	if q.MaxLeases > 0 {
		s += p.draw(&st.Muted, fmt.Sprintf(" · %d leases", q.MaxLeases))
	}
	if len(q.Others) > 0 {
		s += p.draw(&st.Warning, " · mixed libraries")
	}
	return s
}

// draw is s.Render(text) for one line of plain text, fast (see
// [common.Painter]).
func (p *Model) draw(s *lipgloss.Style, text string) string { return p.paint.Render(s, text) }

// badgeStyle is the badge style of a problem kind's severity.
func (p *Model) badgeStyle(kind lockops.ProblemKind) *lipgloss.Style {
	switch kind.Severity() {
	case lockops.SeverityError:
		return &p.st.BadgeErr
	case lockops.SeverityInfo:
		return &p.st.Badge
	}
	return &p.st.BadgeWarn
}

// badge draws a problem badge in the colour of its kind's severity.
func (p *Model) badge(kind lockops.ProblemKind) string {
	return p.draw(p.badgeStyle(kind), string(kind))
}

// nodeProblem is the first problem of node in the queue shown; node is
// one of those findProblems was asked for.
func (p *Model) nodeProblem(node string) (lockops.Problem, bool) {
	i, ok := p.problemAt[node]
	if !ok || i < 0 {
		return lockops.Problem{}, false
	}
	return p.queue.Problems[i], true
}

// findProblems finds the first problem of the entries from the first
// drawn (at most n of them) and the selected one, in one
// pass over the problems: a busy lock has a problem or two per node, and
// only the drawn ones are looked up.
func (p *Model) findProblems(n int) {
	if p.problemAt == nil {
		p.problemAt = make(map[string]int, n+2)
	}
	clear(p.problemAt)
	for i := p.offset; i < len(p.entries) && i < p.offset+n; i++ {
		if e := p.entries[i]; e.participant() {
			p.problemAt[e.p.Node] = -1
		}
	}
	if x, ok := p.selected(); ok {
		p.problemAt[x.Node] = -1
	}
	left := len(p.problemAt) // still to find: done when none is left
	for i, pr := range p.queue.Problems {
		if j, ok := p.problemAt[pr.Node]; ok && j < 0 {
			p.problemAt[pr.Node] = i
			if left--; left == 0 {
				break
			}
		}
	}
}

// sessionLines are the session-level problems the servers' last answer
// found involving nodes still in the queue (a wait-for cycle with other
// locks, a holder answering only pings): one line each, its badge
// coloured by severity, then the other locks' paths and the sessions.
func (p *Model) sessionLines() []string {
	if p.findings == nil {
		return nil
	}
	var out []string
	for _, f := range p.findings.sessions {
		if !slices.ContainsFunc(f.Mine, func(n string) bool { _, ok := p.indexOf(n); return ok }) {
			continue
		}
		out = append(out, p.badge(f.Kind)+" "+p.draw(&p.st.Muted, printable.String(sessionWords(f))))
	}
	return out
}

// badgeLine is a badge per kind of problem of the queue shown, with its
// count.
func (p *Model) badgeLine() string {
	c := &p.badges
	if pr := p.queue.Problems; c.shown != p.shown || c.n != len(pr) || len(pr) > 0 && c.first != &pr[0] {
		// Counted once per queue, not at every drawing (a busy lock's
		// queue has a problem or two per node).
		c.shown, c.n, c.first = p.shown, len(pr), nil
		if len(pr) > 0 {
			c.first = &pr[0]
		}
		c.order, c.count = c.order[:0], c.count[:0]
		for i := range pr {
			if j := slices.Index(c.order, pr[i].Kind); j >= 0 {
				c.count[j]++
			} else {
				c.order, c.count = append(c.order, pr[i].Kind), append(c.count, 1)
			}
		}
	}
	parts := make([]string, 0, len(c.order))
	for j, k := range c.order {
		t := string(k)
		if c.count[j] > 1 {
			t = fmt.Sprintf("%s ×%d", k, c.count[j])
		}
		parts = append(parts, p.draw(p.badgeStyle(k), t))
	}
	return strings.Join(parts, " ")
}

// problemKinds are the kinds of problem of one queue, in the order met,
// and how many of each (badgeLine).
type problemKinds struct {
	shown uint64
	n     int
	first *lockops.Problem
	order []lockops.ProblemKind
	count []int
}

// entryLines draws entry i: the participant line, its owner line and, for
// a waiter, its watch chain.
func (p *Model) entryLines(i int) []string {
	st := p.st
	e := p.entries[i]
	mark := "  "
	if i == p.cursor {
		mark = p.draw(&st.Prompt, "▸ ")
	}
	if e.fold > 0 {
		return []string{mark + p.draw(&st.Subtle, fmt.Sprintf("    … %d more released or left in the last %s", e.fold, common.FormatAge(releasedFor)))}
	}
	if e.ghost != nil {
		ago := common.FormatAge(p.now.Sub(e.ghost.gone))
		key := p.ghostKey(e, i == p.cursor, ago)
		if l, ok := p.rows.Get(key); ok {
			return l
		}
		l := []string{mark + p.ghostLine(e, ago)}
		p.rows.Put(key, l)
		return l
	}
	if p.dbNote != "" {
		return p.dbEntryLines(*e.p, e.label, mark) // a database lock (db.go)
	} else if p.loader != nil {
		return p.redisEntryLines(*e.p, e.label, mark) // a Redis lock (redis.go)
	}
	x := *e.p
	m := p.memo[x.Node]
	fresh := m != nil && p.now.Before(m.freshUntil)
	labelStyle, icon := &st.Waiter, "○"
	if x.State == lockops.StateHolding {
		labelStyle, icon = &st.Holder, "●"
	}
	var age string
	if x.State == lockops.StateHolding {
		age = p.heldText(x, m)
	} else if x.WatcherOnly {
		age = "waiting (exists)" // no node of its own: since when is unknown
	} else {
		age = "waiting " + common.FormatAge(p.now.Sub(x.Ctime))
	}
	if fresh {
		labelStyle = &st.Fresh
	}
	first := mark + p.participantLine(&x, e.label, labelStyle, icon, age)
	owner := p.cachedOwnerLine(&x) // rows.go
	if x.State == lockops.StateWaiting && x.Watches != "" {
		return []string{first, owner, "    " + p.chain(x)}
	}
	return []string{first, owner}
}

// participantLine is a participant's first line (after the cursor's
// mark): label, icon, mode, name, the "you" tag and its age.
func (p *Model) participantLine(x *lockops.Participant, label string, labelStyle *lipgloss.Style, icon, age string) string {
	st := p.st
	var head strings.Builder
	head.Grow(64)
	head.WriteString(label)
	for n := utf8.RuneCountInString(label); n < 3; n++ {
		head.WriteByte(' ')
	}
	head.WriteString(" " + icon + " ")
	head.WriteString(string(x.Mode))
	for n := utf8.RuneCountInString(string(x.Mode)); n < 9; n++ {
		head.WriteByte(' ')
	}
	head.WriteByte(' ')
	headW := common.Width(head.String())
	tag, tagW := "", 0
	if p.act.isOurs(x.Node) {
		tag = " " + p.draw(&st.Badge, "you")
		tagW = common.Width(tag)
	}
	nameW := max(p.w-2-headW-len(age)-2-tagW, 8)
	head.WriteString(p.shortName(x.Name, nameW)) // rows.go
	return p.draw(labelStyle, head.String()) + tag + "  " + p.draw(&st.Muted, age)
}

// heldText says what is known of how long holder x (memo m) has held:
// since the pane saw it begin ("held 14s"), or since the transaction log
// says it began ("held 14s (log)"), else only its node's age ("node age
// 2m11s": it may have waited for much of it).
func (p *Model) heldText(x lockops.Participant, m *nodeMemo) string {
	switch {
	case m != nil && !m.holdingSince.IsZero():
		return "held " + common.FormatAge(p.now.Sub(m.holdingSince))
	case !x.HeldSince.IsZero():
		return "held " + common.FormatAge(p.now.Sub(x.HeldSince)) + " (" + string(x.HeldSource) + ")"
	}
	if since, ok := p.hist.heldSince(x); ok {
		return "held " + common.FormatAge(p.now.Sub(since)) + " (txnlog)"
	}
	if x.Ctime.IsZero() {
		return "holding"
	}
	return "node age " + common.FormatAge(p.now.Sub(x.Ctime))
}

// ghostLine draws a node that has left: no label of its own (the labels
// belong to the queue as it is now: the next holder is H1 already), but
// where it stood.
func (p *Model) ghostLine(e lockEntry, ago string) string {
	st, x := p.st, *e.p
	what := "left"
	if x.State == lockops.StateHolding {
		what = "released"
	}
	was := ""
	if e.label != "" {
		was = " (was " + e.label + ")"
	}
	return p.struck(x) + p.draw(&st.Subtle, "  "+what+" "+ago+" ago"+was)
}

// struck is a ghost's mode and name struck through, drawn once for as
// long as it shows (lipgloss draws a struck line, tens of microseconds).
func (p *Model) struck(x lockops.Participant) string {
	b := append(p.rowKey[:0], 'S')
	b = common.KeyStr(b, string(x.Mode))
	b = append(b, x.Name...)
	p.rowKey = b
	if l, ok := p.rows.Get(b); ok {
		return l[0]
	}
	l := p.draw(&p.st.Released, fmt.Sprintf("    ✕ %-9s %s", x.Mode, common.ShortName(lockops.ShortName(x.Name), 28)))
	p.rows.Put(b, []string{l})
	return l
}

// ownerLine is a participant's second line: its first problem's badge,
// owner session (or PERSISTENT), client and data.
func (p *Model) ownerLine(x lockops.Participant) string {
	st := p.st
	var b strings.Builder
	b.WriteString("    ")
	if pr, ok := p.nodeProblem(x.Node); ok {
		b.WriteString(p.badge(pr.Kind) + " ")
	}
	if x.Ephemeral {
		b.WriteString(p.draw(&st.Muted, lockops.FormatSession(x.Session)))
	} else {
		b.WriteString(p.draw(&st.Error, "PERSISTENT (no session)"))
	}
	if x.Client != "" {
		b.WriteString(p.draw(&st.Subtle, " · ") + p.draw(&st.Value, printable.String(x.Client)))
	}
	if len(x.Data) > 0 {
		b.WriteString(p.draw(&st.Subtle, " · ") + p.draw(&st.Value, common.DataSummary(x.Data)))
	}
	return b.String()
}

func (p *Model) labelStyle(x lockops.Participant) *lipgloss.Style {
	if x.State == lockops.StateHolding {
		return &p.st.Holder
	}
	return &p.st.Waiter
}

func (p *Model) observed(v *bool) string {
	switch {
	case v == nil:
		return p.draw(&p.st.ObservedUnknown, "?")
	case *v:
		return p.draw(&p.st.ObservedOK, "✓")
	}
	return p.draw(&p.st.ObservedMissing, "✗")
}
