package lockpane

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/history"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
)

// holderMarks name the holders on the strip, in the order they first held.
const holderMarks = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// timelineView draws the pane's past: a title, the strip of holders over
// time (when the timeline is on) with its legend, then the state stepped
// to, its queue and chains as they were.
func (p *Model) timelineView() string {
	st := p.st
	h := &p.hist
	lines := []string{st.Bold.Render(printable.String(common.LastElem(p.path))) + st.Muted.Render(" — "+p.timelineSource())}
	state, i, ok := p.shownState()
	switch {
	case h.loading:
		lines = append(lines, st.Muted.Render("Replaying the transaction log…"))
	case h.loadErr != nil:
		lines = append(lines, st.Error.Render("Could not replay the transaction log: "+printable.String(h.loadErr.Error())))
	case !ok:
		lines = append(lines, st.Muted.Render("No past state of this lock yet: its changes are kept from now on."))
	}
	if ok {
		marks := holderLetters(h.states)
		if h.on {
			lines = append(lines, p.strip(marks, i)...)
		}
		lines = append(lines, p.stateLines(state, i, marks)...)
	}
	keys := p.keys
	lines = append(lines, st.Muted.Render(keys.Older.Help().Key+"/"+keys.Newer.Help().Key+" step · "+keys.Timeline.Help().Key+" timeline on/off"))
	for len(lines) < p.h {
		lines = append(lines, "")
	}
	lines = lines[:max(p.h, 0)]
	for j, l := range lines {
		lines[j] = ansi.Truncate(l, p.w, "…")
	}
	return strings.Join(lines, "\n")
}

// live reports whether the newest state was read live (not replayed
// from the log).
func (h *timeline) live() bool { return !h.fromLog || len(h.states) > h.logStates }

// timelineSource says where the states come from.
func (p *Model) timelineSource() string {
	h := &p.hist
	switch {
	case h.fromLog && len(h.states) > h.logStates:
		return fmt.Sprintf("%d states from the transaction log, %d seen live since", h.logStates, len(h.states)-h.logStates)
	case h.fromLog:
		return fmt.Sprintf("%d states from the transaction log", len(h.states))
	}
	return fmt.Sprintf("%d states seen live (up to %d kept)", len(h.states), ringStates)
}

// holderLetters gives each node that held in states its mark, in the
// order they first held.
func holderLetters(states []history.LockState) map[string]byte {
	out := map[string]byte{}
	for i := range states {
		for _, x := range states[i].Queue.Participants {
			if _, ok := out[x.Node]; !ok && x.State == lockops.StateHolding {
				out[x.Node] = '#'
				if n := len(out) - 1; n < len(holderMarks) {
					out[x.Node] = holderMarks[n]
				}
			}
		}
	}
	return out
}

// strip draws the holders over the states' span, one column per slice of
// time ('·': nobody held, '+': several held), a caret under the state
// shown, and the legend of the marks.
func (p *Model) strip(marks map[string]byte, shown int) []string {
	st := p.st
	states := p.hist.states
	w := max(p.w-2, 10)
	from, to := states[0].At.Time, states[len(states)-1].At.Time
	if p.hist.live() && p.now.After(to) {
		to = p.now
	}
	span := max(to.Sub(from), time.Millisecond)
	col := func(t time.Time) int { return min(w-1, int(float64(t.Sub(from))/float64(span)*float64(w))) }
	bar := make([]rune, w)
	for c := range bar {
		t := from.Add(time.Duration(float64(span) * (float64(c) + 0.5) / float64(w)))
		k := sort.Search(len(states), func(i int) bool { return states[i].At.Time.After(t) }) - 1
		bar[c] = holderMark(&states[max(k, 0)].Queue, marks)
	}
	caret := strings.Repeat(" ", col(states[shown].At.Time)) + "^"
	out := []string{
		st.Muted.Render(fmtClock(from)) + st.Muted.Render(strings.Repeat(" ", max(w-24, 1))) + st.Muted.Render(fmtClock(to)),
		" " + st.Holder.Render(string(bar)),
		" " + st.Chain.Render(caret),
	}
	return append(out, p.legend(marks, to)...)
}

// holderMark is the strip's mark for who holds q: its holder's mark, '+'
// for several, '·' for nobody.
func holderMark(q *lockops.Queue, marks map[string]byte) rune {
	m := '·'
	for _, x := range q.Participants {
		if x.State != lockops.StateHolding {
			continue
		}
		if m != '·' {
			return '+'
		}
		m = rune(marks[x.Node])
	}
	return m
}

// legend names each mark's node — its data (a client's id) or short
// name, its session — and how long it held over the states kept.
func (p *Model) legend(marks map[string]byte, to time.Time) []string {
	type entry struct {
		mark byte
		text string
	}
	states := p.hist.states
	held := map[string]time.Duration{}
	for i := range states {
		end := to
		if i+1 < len(states) {
			end = states[i+1].At.Time
		}
		for _, x := range states[i].Queue.Holders() {
			held[x.Node] += end.Sub(states[i].At.Time)
		}
	}
	var es []entry
	seen := map[string]bool{}
	for _, s := range states {
		for _, x := range s.Queue.Participants {
			if m, ok := marks[x.Node]; ok && !seen[x.Node] {
				seen[x.Node] = true
				es = append(es, entry{m, participantName(x) + " " + lockops.FormatSession(x.Session) + " " + common.FormatAge(held[x.Node])})
			}
		}
	}
	sort.SliceStable(es, func(i, j int) bool {
		return strings.IndexByte(holderMarks, es[i].mark) < strings.IndexByte(holderMarks, es[j].mark)
	})
	if len(es) == 0 {
		return []string{p.st.Muted.Render(" nobody held in this time")}
	}
	var lines []string
	line := ""
	for k, e := range es {
		part := string(e.mark) + " " + e.text
		switch {
		case line == "":
			line = " " + part
		case len(line)+3+len(part) <= p.w:
			line += " · " + part
		case len(lines) == maxLegendLines-1:
			line += fmt.Sprintf(" · … %d more", len(es)-k)
			return append(lines, p.st.Muted.Render(line))
		default:
			lines, line = append(lines, p.st.Muted.Render(line)), " "+part
		}
	}
	return append(lines, p.st.Muted.Render(line))
}

// maxLegendLines bounds the strip's legend.
const maxLegendLines = 3

// participantName is a node's data when it is short text (a client's
// id or address), else its short name: long data (a description) is
// often the same for every contender.
func participantName(x lockops.Participant) string {
	if d := report.DescribeData(x.Data, 25); d != "-" && !strings.HasPrefix(d, "<") && !strings.HasSuffix(d, "…") {
		return d
	}
	return common.ShortName(lockops.ShortName(x.Name), 28)
}

// stateLines draws state i: when, then each participant with its wait
// chain as it was.
func (p *Model) stateLines(s history.LockState, i int, marks map[string]byte) []string {
	st := p.st
	q := &s.Queue
	head := fmt.Sprintf("state %d/%d at %s", i+1, len(p.hist.states), fmtClock(s.At.Time))
	if s.At.Zxid != 0 {
		head += " · zxid " + history.FormatZxid(s.At.Zxid)
	}
	if p.hist.step < 0 && p.hist.live() {
		head += " (the newest)"
	}
	out := []string{st.Subtle.Render(head + " · " + strconv.Itoa(len(q.Holders())) + " holding, " + strconv.Itoa(len(q.Waiters())) + " waiting")}
	labels := labelParticipants(q.Participants, nil, &labelNames{})
	byNode := make(map[string]int, len(q.Participants))
	for j, x := range q.Participants {
		byNode[x.Node] = j
	}
	for _, x := range q.Participants {
		mark := " "
		if m, ok := marks[x.Node]; ok {
			mark = string(m)
		}
		row := fmt.Sprintf(" %s %-3s %-8s %s %s", mark, labels[x.Node], x.State, participantName(x), lockops.FormatSession(x.Session))
		if x.State == lockops.StateHolding {
			out = append(out, st.Holder.Render(row))
			continue
		}
		out = append(out, st.Waiter.Render(row)+st.Chain.Render("  "+waitChain(q, x, labels, byNode)))
	}
	return out
}

// waitChain is the waits from x down to a holder as labels:
// "W2 → W1 → H1", cut after 6 hops.
func waitChain(q *lockops.Queue, x lockops.Participant, labels map[string]string, byNode map[string]int) string {
	parts := []string{labels[x.Node]}
	cur := x
	for hop := 0; cur.Watches != "" && hop < 6; hop++ {
		j, ok := byNode[cur.Watches]
		if !ok {
			parts = append(parts, printable.String(common.LastElem(cur.Watches))+" (not in the queue)")
			break
		}
		cur = q.Participants[j]
		parts = append(parts, labels[cur.Node])
	}
	return strings.Join(parts, " → ")
}

func fmtClock(t time.Time) string { return t.Format("15:04:05.000") }
