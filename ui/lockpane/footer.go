package lockpane

import (
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
)

// The pane's footer: notes, read errors, the selected node's problem.

// Footer sizes: a long note, footnote or problem wraps to at most this
// many lines (a problem's then ends with the key that shows it all).
const (
	maxNoteLines     = 3
	maxFootnoteLines = 4
	maxProblemLines  = 2
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
	case p.noteShown():
		return append(out, wrapStyled(p.note.Level.Style(st), p.note.Text, p.w, maxNoteLines)...)
	case p.loadErr != nil:
		return append(out, wrapStyled(st.Error, "Could not read the lock: "+printable.String(p.loadErr.Error()), p.w, maxNoteLines)...)
	}
	if pr, ok := p.footerProblem(); ok {
		return append(out, p.problemLines(pr)...)
	}
	return append(out, p.footerLine())
}

// footerHeight is len(p.footerLines()), counted without drawing them (the
// list's height is needed on every read).
func (p *Model) footerHeight() int {
	n := 0
	if fn := p.footnote(); fn != "" {
		n += wrappedLines(common.Sentence(fn)+".", p.w, maxFootnoteLines)
	}
	switch {
	case p.noteShown():
		return n + wrappedLines(p.note.Text, p.w, maxNoteLines)
	case p.loadErr != nil:
		return n + wrappedLines("Could not read the lock: "+printable.String(p.loadErr.Error()), p.w, maxNoteLines)
	}
	if pr, ok := p.footerProblem(); ok {
		return n + len(p.problemWrap(pr))
	}
	return n + 1
}

// footerProblem is the problem the footer shows: the selected node's
// first, else the lock's own (ok false: none, or no node selected).
func (p *Model) footerProblem() (lockops.Problem, bool) {
	x, ok := p.selected()
	if !ok {
		return lockops.Problem{}, false
	}
	if p.dbNote != "" {
		if pr, ok := p.dbProblemOf(x); ok {
			return pr, true // db.go
		}
	} else if p.loader != nil {
		if pr, ok := p.redisProblemOf(x); ok {
			return pr, true // redis.go
		}
	}
	own := -1
	for i, pr := range p.queue.Problems {
		switch {
		case pr.Node == x.Node && p.loader == nil:
			return pr, true
		case pr.Node == "" && own < 0:
			own = i
		}
	}
	if own < 0 {
		return lockops.Problem{}, false
	}
	return p.queue.Problems[own], true
}

// problemHint ends a problem cut in the footer.
const problemHint = "… i: in full"

// problemWrap is pr's detail wrapped after its badge in at most
// maxProblemLines lines, the last cut with problemHint when there is
// more (the badge's place on the first line left blank).
//
// The last wrapping is remembered (the footer's height is asked for on
// every read): the lines returned are not to be changed.
func (p *Model) problemWrap(pr lockops.Problem) []string {
	wr := &p.wrapped
	if wr.lines != nil && wr.kind == pr.Kind && wr.detail == pr.Detail && wr.w == p.w {
		return wr.lines
	}
	lines := p.wrapProblem(pr)
	wr.kind, wr.detail, wr.w, wr.lines = pr.Kind, pr.Detail, p.w, lines
	return lines
}

// wrapProblem is problemWrap, made.
func (p *Model) wrapProblem(pr lockops.Problem) []string {
	w := max(p.w, 20)
	lead := ansi.StringWidth(p.badge(pr.Kind)) + 1
	lines := strings.Split(ansi.Wrap(strings.Repeat("x", lead-1)+" "+printable.String(pr.Detail), w, ""), "\n")
	lines[0] = strings.Repeat(" ", lead) + strings.TrimLeft(strings.TrimLeft(lines[0], "x"), " ")
	if len(lines) > maxProblemLines {
		lines = lines[:maxProblemLines]
		last := &lines[maxProblemLines-1]
		*last = ansi.Truncate(*last, w-ansi.StringWidth(problemHint), "") + problemHint
	}
	return lines
}

// problemLines draw the footer's problem: its badge, its detail wrapped
// (problemWrap).
func (p *Model) problemLines(pr lockops.Problem) []string {
	lines := slices.Clone(p.problemWrap(pr))
	badge := p.badge(pr.Kind)
	if p.loader != nil {
		badge = p.redisBadge(pr.Kind) // redis.go
	}
	for i, l := range lines {
		if i == 0 {
			lines[i] = badge + " " + p.draw(&p.st.Muted, strings.TrimLeft(l, " "))
			continue
		}
		lines[i] = p.draw(&p.st.Muted, l)
	}
	return lines
}

// noteShown reports whether the note is drawn: it is about the lock shown
// (or about none).
func (p *Model) noteShown() bool {
	return p.note.Text != "" && (p.note.About == "" || p.note.About == p.path)
}

// footnote says why clients (-) or watches (?) are unknown and what to
// add to the servers' configuration (the words the CLI's table ends
// with); "" when they are known, not asked yet, or nobody is queued.
// It also says when the lock is read again on each change rather than
// followed (a server without persistent watches).
func (p *Model) footnote() string {
	note := p.verifyNote()
	if p.client != nil && !p.fol.poll && p.loader == nil {
		if ok, known := p.client.FollowSupported(); known && !ok {
			if note != "" {
				note += "; "
			}
			note += "read again on each change: the server has no persistent watches (ZooKeeper 3.6+)"
		}
	}
	if age := p.viewAge(); age != "" {
		if note != "" {
			note += "; "
		}
		note += "the servers' watch lists (✓ ✗ ?) are " + age + " old"
	}
	return note
}

// staleViewAfter is when the servers' last answer, asked every
// reverifyEvery, is old enough to say how old it is.
const staleViewAfter = 3 * reverifyEvery

// viewAge is how old the servers' last answer is when it is stale ("":
// fresh, or none): the marks and the checks that need the servers come
// from it, however often the queue itself moves.
func (p *Model) viewAge() string {
	if p.ens == nil || p.ensAt.IsZero() || len(p.queue.Participants) == 0 {
		return ""
	}
	if age := p.now.Sub(p.ensAt); age >= staleViewAfter {
		return common.FormatAge(age)
	}
	return ""
}

// verifyNote is the footnote on unknown clients and watches ("" when
// none).
func (p *Model) verifyNote() string {
	if p.ens == nil || len(p.queue.Participants) == 0 {
		return ""
	}
	if p.noted.ens != p.ens {
		adminPort := 0
		if p.client != nil {
			adminPort = p.client.Config().AdminPort
		}
		p.noted.ens, p.noted.text = p.ens, printable.String(diagnose.Verified(p.ens, adminPort).Note)
	}
	return p.noted.text
}

// wrappedLines is how many lines wrapStyled makes of text.
func wrappedLines(text string, w, n int) int {
	return min(strings.Count(ansi.Wrap(text, max(w, 10), " "), "\n")+1, n)
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

// footerLine is the action note, else the path of the selected node (a
// problem is drawn by problemLines).
func (p *Model) footerLine() string {
	st := p.st
	if p.noteShown() {
		return p.note.Level.Style(st).Render(p.note.Text)
	}
	if p.loadErr != nil {
		return st.Error.Render("Could not read the lock: " + printable.String(p.loadErr.Error()))
	}
	if p.dbNote != "" {
		return p.dbFooterLine() // db.go
	} else if p.loader != nil {
		return p.redisFooterLine() // redis.go
	}
	if x, ok := p.selected(); ok {
		return p.draw(&st.Subtle, printable.String(x.Node))
	}
	return ""
}
