package lockpane

import (
	"fmt"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/ui/common"
	"strings"
)

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
// not per frame), in out (emptied first; nil: a new map).
func computeChains(ps []lockops.Participant, byNode map[string]int, out map[string]chainEnd) map[string]chainEnd {
	if out == nil {
		out = make(map[string]chainEnd, len(ps))
	}
	clear(out)
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
func (p *Model) chain(x lockops.Participant) string {
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
