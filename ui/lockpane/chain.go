package lockpane

import (
	"fmt"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
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

// chainOf is where x's chain of waits ends, found on first use after
// each queue (only the waiters drawn need it) and memoised with every
// node it passes: walking a 10,000-node chain once costs O(n), and the
// nodes on screen are near its end.
func (p *Model) chainOf(node string) chainEnd {
	if e, ok := p.chains[node]; ok {
		return e
	}
	if p.chains == nil {
		p.chains = map[string]chainEnd{}
	}
	ps := p.queue.Participants
	onStack := map[string]bool{}
	// Walk until a node with a known end, a holder, or a cycle.
	var stack []string
	cur := node
	var tail chainEnd
	for {
		if e, ok := p.chains[cur]; ok {
			tail = e
			break
		}
		if onStack[cur] {
			tail = chainEnd{end: cur, cycle: true}
			break
		}
		i, ok := p.indexOf(cur)
		if !ok {
			tail = chainEnd{end: cur, gone: true}
			break
		}
		y := ps[i]
		if y.Watches == "" || y.WatchKind == lockops.WatchChildren {
			p.chains[cur] = chainEnd{end: cur}
			tail = p.chains[cur]
			break
		}
		onStack[cur] = true
		stack = append(stack, cur)
		cur = y.Watches
	}
	for j := len(stack) - 1; j >= 0; j-- {
		tail.hops++
		p.chains[stack[j]] = tail
	}
	return p.chains[node]
}

// chain draws the waits from x down to a holder:
// "W3 ──watches ✓──▶ W2 ──?──▶ H1". Longer chains are shortened in the
// middle: "W9 ──watches ✓──▶ W8 ─▶ … 6 more ─▶ H1".
func (p *Model) chain(x lockops.Participant) string {
	st := p.st
	var b strings.Builder
	b.WriteString(p.draw(&st.Waiter, p.label(x.Node)) + " ")
	if x.WatchKind == lockops.WatchChildren {
		b.WriteString(p.draw(&st.Chain, "──watches children of ") + p.observed(x.WatchObserved) + p.draw(&st.Chain, "──▶ ") + p.draw(&st.Value, printable.String(common.LastElem(x.Watches))))
		return b.String()
	}
	ce := p.chainOf(x.Node)
	cur := x
	for hop := 0; cur.Watches != ""; hop++ {
		label := "──"
		if hop == 0 {
			label = "──watches "
		}
		b.WriteString(p.draw(&st.Chain, label) + p.observed(cur.WatchObserved) + p.draw(&st.Chain, "──▶ "))
		i, ok := p.indexOf(cur.Watches)
		if !ok {
			b.WriteString(p.draw(&st.ObservedMissing, common.ShortName(lockops.ShortName(common.LastElem(cur.Watches)), 24)+" (not in the queue)"))
			break
		}
		next := p.queue.Participants[i]
		b.WriteString(p.draw(p.labelStyle(next), p.label(next.Node)))
		left := ce.hops - hop - 1
		if ce.cycle && hop >= ce.hops {
			b.WriteString(p.draw(&st.Error, " (cycle)"))
			break
		}
		if left >= 2 && hop == 1 {
			b.WriteString(p.draw(&st.Chain, fmt.Sprintf(" ─▶ … %d more ─▶ ", left-1)))
			if j, ok := p.indexOf(ce.end); ok {
				b.WriteString(p.draw(p.labelStyle(p.queue.Participants[j]), p.label(ce.end)))
			} else {
				b.WriteString(p.draw(&st.ObservedMissing, common.ShortName(lockops.ShortName(common.LastElem(ce.end)), 24)+" (not in the queue)"))
			}
			if ce.cycle {
				b.WriteString(p.draw(&st.Error, " (cycle)"))
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
