package lockpane

import (
	"charm.land/lipgloss/v2"
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/ui/common"
	"strings"
)

// View draws the pane: exactly its height, lines cut to its width.
func (p *Model) View() string {
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
	footer := p.footerLines()
	for len(lines) < p.h-len(footer) {
		lines = append(lines, "")
	}
	if len(lines) > p.h-len(footer) {
		lines = lines[:max(p.h-len(footer), 0)]
	}
	lines = append(lines, footer...)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, p.w, "…")
	}
	return strings.Join(lines, "\n")
}

func (p *Model) titleLine() string {
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
func (p *Model) badgeStyle(kind lockops.ProblemKind) func(...string) string {
	switch kind.Severity() {
	case lockops.SeverityError:
		return p.st.BadgeErr.Render
	case lockops.SeverityInfo:
		return p.st.Badge.Render
	}
	return p.st.BadgeWarn.Render
}

func (p *Model) badgeLine() string {
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
func (p *Model) entryLines(i int) []string {
	st := p.st
	e := p.entries[i]
	x := e.p
	mark := "  "
	if i == p.cursor {
		mark = st.Prompt.Render("▸ ")
	}
	if e.fold > 0 {
		return []string{mark + st.Subtle.Render(fmt.Sprintf("    … %d more released or left in the last %s", e.fold, common.FormatAge(releasedFor)))}
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
	if p.loader != nil {
		return p.redisEntryLines(e.p, e.label, mark) // a Redis lock (redis.go)
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

func (p *Model) labelStyle(x lockops.Participant) lipgloss.Style {
	if x.State == lockops.StateHolding {
		return p.st.Holder
	}
	return p.st.Waiter
}

func (p *Model) observed(v *bool) string {
	switch {
	case v == nil:
		return p.st.ObservedUnknown.Render("?")
	case *v:
		return p.st.ObservedOK.Render("✓")
	}
	return p.st.ObservedMissing.Render("✗")
}

// Footer sizes: a long note or footnote wraps to at most this many lines.
const (
	maxNoteLines     = 3
	maxFootnoteLines = 4
)

// footerLines are the pane's last lines: the footnote on unknown clients
// and watches (while some show - or ?), then the action note or the read
// error (wrapped to the pane's width), else the footer line.
func (p *Model) footerLines() []string {
	st := p.st
	var out []string
	if fn := p.footnote(); fn != "" {
		out = wrapStyled(st.Muted, common.Sentence(fn)+".", p.w, maxFootnoteLines)
	}
	switch {
	case p.note.Text != "":
		return append(out, wrapStyled(p.note.Level.Style(st), p.note.Text, p.w, maxNoteLines)...)
	case p.loadErr != nil:
		return append(out, wrapStyled(st.Error, "Could not read the lock: "+p.loadErr.Error(), p.w, maxNoteLines)...)
	}
	return append(out, p.footerLine())
}

// footnote says why clients (-) or watches (?) are unknown and what to
// add to the servers' configuration (the words the CLI's table ends
// with); "" when they are known, not asked yet, or nobody is queued.
func (p *Model) footnote() string {
	if p.ens == nil || len(p.queue.Participants) == 0 {
		return ""
	}
	adminPort := 0
	if p.client != nil {
		adminPort = p.client.Config().AdminPort
	}
	return lockops.Verified(p.ens, adminPort).Note
}

// wrapStyled wraps text to w cells in at most n lines, the last cut with
// "…" when there is more, and styles each line.
func wrapStyled(s lipgloss.Style, text string, w, n int) []string {
	w = max(w, 10)
	lines := strings.Split(ansi.Wrap(text, w, " "), "\n")
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = ansi.Truncate(lines[n-1], w-1, "") + "…"
	}
	for i, l := range lines {
		lines[i] = s.Render(l)
	}
	return lines
}

// footerLine is the action note, else the selected node's problem, else
// the path of the selected node.
func (p *Model) footerLine() string {
	st := p.st
	if p.note.Text != "" {
		return p.note.Level.Style(st).Render(p.note.Text)
	}
	if p.loadErr != nil {
		return st.Error.Render("Could not read the lock: " + p.loadErr.Error())
	}
	if p.loader != nil {
		return p.redisFooterLine() // redis.go
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
