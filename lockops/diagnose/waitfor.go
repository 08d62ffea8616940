package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/zkscope/zkscope/lockops"
)

// Wait-for cycles across lock directories: who waits on whom, and the
// sessions that wait on each other (session-deadlock).

// waitEdge is one session waiting (node waiter) on a lock another session
// holds (node holder).
type waitEdge struct {
	to             int64
	lock           string
	waiter, holder string
}

// lockBlocks reports whether p takes part in a lock where waiting means
// waiting for the holders: mutexes and read/write locks, not semaphores
// (another lease holder may free a slot) or leader latches.
func lockBlocks(p *lockops.Participant) bool {
	switch p.Mode {
	case lockops.ModeExclusive, lockops.ModeRead, lockops.ModeWrite:
		return p.Ephemeral && p.Session != 0
	}
	return false
}

// waitForGraph is who waits on whom: an edge from each waiting session to
// every other session holding the lock it waits on. Only sessions that
// hold a lock somewhere are vertices: a session on a cycle is waited on,
// so it holds, and a waiter holding nothing ends every path it is on. On
// one long queue that leaves the few holders, not every waiter.
func waitForGraph(queues []lockops.Queue) map[int64][]waitEdge {
	holding := map[int64]bool{}
	holders := make([][]*lockops.Participant, len(queues))
	for qi := range queues {
		q := &queues[qi]
		for i := range q.Participants {
			if p := &q.Participants[i]; p.State == lockops.StateHolding && lockBlocks(p) {
				holders[qi] = append(holders[qi], p)
				holding[p.Session] = true
			}
		}
	}
	g := map[int64][]waitEdge{}
	for qi := range queues {
		q := &queues[qi]
		if len(holders[qi]) == 0 {
			continue
		}
		for i := range q.Participants {
			p := &q.Participants[i]
			if p.State != lockops.StateWaiting || !holding[p.Session] || !lockBlocks(p) {
				continue
			}
			for _, h := range holders[qi] {
				if h.Session != p.Session {
					g[p.Session] = append(g[p.Session], waitEdge{to: h.Session, lock: q.Path, waiter: p.Node, holder: h.Node})
				}
			}
		}
	}
	return g
}

// waitForCycles reports each set of sessions that wait on each other (a
// strongly connected part of the wait-for graph) once.
func waitForCycles(queues []lockops.Queue) []SessionProblem {
	g := waitForGraph(queues)
	var out []SessionProblem
	for _, scc := range stronglyConnected(g) {
		if len(scc) < 2 {
			continue
		}
		in := map[int64]bool{}
		for _, s := range scc {
			in[s] = true
		}
		var lines, nodes []string
		for _, s := range scc {
			for _, e := range g[s] {
				if in[e.to] {
					lines = append(lines, fmt.Sprintf("%s waits in %s (%s) for %s, held by %s", lockops.FormatSession(s), e.lock, baseOf(e.waiter), baseOf(e.holder), lockops.FormatSession(e.to)))
					nodes = append(nodes, e.waiter, e.holder)
				}
			}
		}
		slices.Sort(nodes)
		out = append(out, SessionProblem{Kind: lockops.ProblemSessionDeadlock, Sessions: scc, Nodes: slices.Compact(nodes),
			Detail: fmt.Sprintf("sessions %s wait on each other: %s; none will ever proceed: stop one of their clients or evict its session (zkscope evict --session)",
				joinSessions(scc), strings.Join(lines, "; "))})
	}
	return out
}

// stronglyConnected returns the strongly connected parts of g (Tarjan),
// each sorted, in order of their least session.
func stronglyConnected(g map[int64][]waitEdge) [][]int64 {
	var (
		index         = map[int64]int{}
		low           = map[int64]int{}
		onStack       = map[int64]bool{}
		stack         []int64
		out           [][]int64
		next          int
		visit         func(v int64)
		vertices      []int64
		seenAsVertext = map[int64]bool{}
	)
	for v, es := range g {
		for _, x := range append([]int64{v}, edgeTargets(es)...) {
			if !seenAsVertext[x] {
				seenAsVertext[x] = true
				vertices = append(vertices, x)
			}
		}
	}
	slices.Sort(vertices)
	visit = func(v int64) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range g[v] {
			if _, seen := index[e.to]; !seen {
				visit(e.to)
				low[v] = min(low[v], low[e.to])
			} else if onStack[e.to] {
				low[v] = min(low[v], index[e.to])
			}
		}
		if low[v] == index[v] {
			var scc []int64
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				scc = append(scc, w)
				if w == v {
					break
				}
			}
			slices.SortFunc(scc, func(a, b int64) int { return cmp.Compare(uint64(a), uint64(b)) })
			out = append(out, scc)
		}
	}
	for _, v := range vertices {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	slices.SortFunc(out, func(a, b []int64) int { return cmp.Compare(uint64(a[0]), uint64(b[0])) })
	return out
}

func edgeTargets(es []waitEdge) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.to
	}
	return out
}

func joinSessions(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = lockops.FormatSession(id)
	}
	return strings.Join(s, ", ")
}

func baseOf(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
