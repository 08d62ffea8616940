package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// Session-level problems: what is wrong with a session across every lock
// it takes part in (a wait-for cycle between directories, a holder that
// only pings, a session owning ephemerals with no connection), as opposed
// to one lock's problems ([Diagnose]'s per-queue checks).

// SessionProblem is a problem of one or more sessions.
type SessionProblem struct {
	Kind     lockops.ProblemKind
	Sessions []int64  // the sessions concerned, sorted
	Nodes    []string // their lock nodes concerned
	Detail   string   // one plain sentence
}

// SessionOptions tune [Sessions].
type SessionOptions struct {
	// Ensemble is what the members said now (nil: skip the checks that
	// need it: hung holders, disconnected owners).
	Ensemble *zkview.Ensemble
	// PingOnlySince maps sessions that have answered only pings to since
	// when ([PingOnlySince], [PingWatch.Since]); HungAfter is how long
	// makes a holder suspect (0: off, and the silent ones are not
	// checked either).
	PingOnlySince map[int64]time.Time
	HungAfter     time.Duration
	// SilentSince maps sessions that sent nothing at all between
	// samples to since when ([SilentSince], [PingWatch.Silent]): a
	// holder silent for two thirds of its timeout is reported at once,
	// as not answering ([SilenceProves]); for HungAfter, as silent.
	SilentSince map[int64]time.Time
}

// Sessions finds the session-level problems of queues: wait-for
// cycles between sessions across lock directories (session-deadlock),
// holders that sent nothing at all, or answered only pings for longer
// than o.HungAfter (session-hung), and sessions owning ephemerals that no member lists a
// connection of (owner-disconnected, once per session).
func Sessions(queues []lockops.Queue, o SessionOptions) []SessionProblem {
	out := waitForCycles(queues)
	out = append(out, hungHolders(queues, o)...)
	out = append(out, disconnectedOwners(o.Ensemble)...)
	return out
}

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
// every other session holding the lock it waits on.
func waitForGraph(queues []lockops.Queue) map[int64][]waitEdge {
	g := map[int64][]waitEdge{}
	for qi := range queues {
		q := &queues[qi]
		var holders []*lockops.Participant
		for i := range q.Participants {
			if p := &q.Participants[i]; p.State == lockops.StateHolding && lockBlocks(p) {
				holders = append(holders, p)
			}
		}
		for i := range q.Participants {
			p := &q.Participants[i]
			if p.State != lockops.StateWaiting || !lockBlocks(p) {
				continue
			}
			for _, h := range holders {
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

// PingOnly lists the sessions that, between two samples of the members'
// connections, sent nothing but pings: connected to the same member with
// the same connection in both, last operation PING in the second (or no
// packet at all in between), and no more packets received than the pings
// a client sends in the time between (one every third of the timeout when
// it sends nothing else; two more allowed for the edges). A client doing
// real work in between shows another last operation, or more packets.
func PingOnly(before, after *zkview.Ensemble) map[int64]bool {
	if before == nil || after == nil {
		return nil
	}
	dt := after.At.Sub(before.At)
	if dt <= 0 {
		return nil
	}
	was := map[int64]zkview.Conn{}
	wasAt := map[int64]string{}
	for _, m := range before.Members {
		for _, c := range m.Conns {
			if c.HasSession {
				was[c.SessionID], wasAt[c.SessionID] = c, m.Addr
			}
		}
	}
	out := map[int64]bool{}
	for _, m := range after.Members {
		for _, c := range m.Conns {
			b, ok := was[c.SessionID]
			if !c.HasSession || !ok || wasAt[c.SessionID] != m.Addr || b.Addr != c.Addr || !b.Established.Equal(c.Established) {
				continue
			}
			idle := c.Recved == b.Recved && c.LastOp == b.LastOp // not even a ping
			if c.LastOp != "PING" && !idle || c.Timeout <= 0 || c.Recved < b.Recved {
				continue // (the first sample's last operation came before the window)
			}
			pings := int64(dt/(c.Timeout/3)) + 2
			if c.Recved-b.Recved <= pings {
				out[c.SessionID] = true
			}
		}
	}
	return out
}

// PingOnlySince is [PingOnly] between two samples, each session that
// sent pings in between (not nothing at all: see [SilentSince]) mapped to
// the earlier sample's time.
func PingOnlySince(before, after *zkview.Ensemble) map[int64]time.Time {
	out := map[int64]time.Time{}
	grew := recvedGrew(before, after)
	for id := range PingOnly(before, after) {
		if grew[id] {
			out[id] = before.At
		}
	}
	return out
}

// recvedGrew says, per session with the same connection in both samples,
// whether its member received packets from it in between.
func recvedGrew(before, after *zkview.Ensemble) map[int64]bool {
	out := map[int64]bool{}
	if before == nil || after == nil {
		return out
	}
	was := connsBySession(before)
	for _, m := range after.Members {
		for _, c := range m.Conns {
			if b, ok := was[c.SessionID]; ok && c.HasSession && sameConn(b, m.Addr, c) {
				out[c.SessionID] = c.Recved > b.conn.Recved
			}
		}
	}
	return out
}

// memberConn is a connection and the member it is on.
type memberConn struct {
	conn   zkview.Conn
	member string
}

func connsBySession(e *zkview.Ensemble) map[int64]memberConn {
	out := map[int64]memberConn{}
	for _, m := range e.Members {
		for _, c := range m.Conns {
			if c.HasSession {
				out[c.SessionID] = memberConn{c, m.Addr}
			}
		}
	}
	return out
}

// sameConn reports whether c on member is the connection b was.
func sameConn(b memberConn, member string, c zkview.Conn) bool {
	return b.member == member && b.conn.Addr == c.Addr && b.conn.Established.Equal(c.Established)
}

// SilentSince maps the sessions that sent nothing at all, not even a
// ping, between two samples of the members' connections (the same
// connection, its received count unchanged) to the end of the earlier
// sample. For less than two thirds of its timeout that may be an idle
// client between pings; longer, it is not answering ([SilenceProves]).
func SilentSince(before, after *zkview.Ensemble) map[int64]time.Time {
	out := map[int64]time.Time{}
	if before == nil || after == nil {
		return out
	}
	was := connsBySession(before)
	for _, m := range after.Members {
		for _, c := range m.Conns {
			if b, ok := was[c.SessionID]; ok && c.HasSession && sameConn(b, m.Addr, c) && c.Recved == b.conn.Recved {
				out[c.SessionID] = sampleEnd(before)
			}
		}
	}
	return out
}

// SilenceProves reports whether a session of the given timeout that has
// sent nothing at all for d is not answering: d is two thirds of its
// timeout or more. A live client pings after a third of its timeout
// without traffic, and gives its connection up after two thirds without
// an answer (go-zookeeper, the Java client and kazoo alike): its process
// is stopped, or its connection cut.
func SilenceProves(timeout, d time.Duration) bool {
	return timeout > 0 && d >= timeout*2/3
}

// sampleEnd is when e's last answer came (its start when not recorded):
// a count read in e was read by then.
func sampleEnd(e *zkview.Ensemble) time.Time {
	if e.End.IsZero() {
		return e.At
	}
	return e.End
}

// PingWatch follows samples of the members' connections and remembers
// since when each session has answered only pings, and since when each
// has sent nothing at all (the TUI's refreshes).
type PingWatch struct {
	last   *zkview.Ensemble
	since  map[int64]time.Time // only pings, or nothing, since
	pinged map[int64]bool      // … and some pings in that time
	// quiet is each session's received count and since when it has not
	// changed.
	quiet map[int64]quietMark
}

// quietMark is a session's received count and since when it has not
// changed (the end of the first sample that read it).
type quietMark struct {
	recved int64
	since  time.Time
}

// Add takes the next sample.
func (w *PingWatch) Add(e *zkview.Ensemble) {
	if e == nil {
		return
	}
	next, pinged := map[int64]time.Time{}, map[int64]bool{}
	grew := recvedGrew(w.last, e)
	for id := range PingOnly(w.last, e) {
		s, ok := w.since[id]
		if !ok {
			s = w.last.At
		}
		next[id], pinged[id] = s, ok && w.pinged[id] || grew[id]
	}
	quiet := map[int64]quietMark{}
	var was map[int64]memberConn
	if w.last != nil {
		was = connsBySession(w.last)
	}
	for _, m := range e.Members {
		for _, c := range m.Conns {
			if !c.HasSession {
				continue
			}
			q, ok := w.quiet[c.SessionID]
			b, same := was[c.SessionID]
			if !ok || !same || !sameConn(b, m.Addr, c) || q.recved != c.Recved {
				q = quietMark{recved: c.Recved, since: sampleEnd(e)}
			}
			quiet[c.SessionID] = q
		}
	}
	w.last, w.since, w.pinged, w.quiet = e, next, pinged, quiet
}

// Since maps the sessions that have answered only pings (some pings, and
// nothing else) to since when.
func (w *PingWatch) Since() map[int64]time.Time {
	out := make(map[int64]time.Time, len(w.since))
	for id, s := range w.since {
		if w.pinged[id] {
			out[id] = s
		}
	}
	return out
}

// Silent maps the sessions that have sent nothing at all, not even a
// ping, since an earlier sample (see [SilentSince]) to since when.
func (w *PingWatch) Silent() map[int64]time.Time {
	return w.quietFor(func(zkview.Conn, time.Duration) bool { return true })
}

// NotAnswering is [PingWatch.Silent] for the sessions whose silence proves
// it ([SilenceProves]: two thirds of their timeout or more).
func (w *PingWatch) NotAnswering() map[int64]time.Time {
	return w.quietFor(func(c zkview.Conn, d time.Duration) bool { return SilenceProves(c.Timeout, d) })
}

// quietFor maps the sessions quiet since an earlier sample, for a time d
// that keep(their connection, d) accepts, to since when.
func (w *PingWatch) quietFor(keep func(zkview.Conn, time.Duration) bool) map[int64]time.Time {
	out := map[int64]time.Time{}
	if w.last == nil {
		return out
	}
	for _, m := range w.last.Members {
		for _, c := range m.Conns {
			if q, ok := w.quiet[c.SessionID]; ok && c.HasSession && w.last.At.After(q.since) && keep(c, w.last.At.Sub(q.since)) {
				out[c.SessionID] = q.since
			}
		}
	}
	return out
}

// hungHolders: a session holding a lock that sent nothing at all for two
// thirds of its session timeout (not answering: as soon as samples show
// it), or for o.HungAfter (idle, or not answering: not yet known), or
// that answered only pings for o.HungAfter.
func hungHolders(queues []lockops.Queue, o SessionOptions) []SessionProblem {
	if o.HungAfter <= 0 || o.Ensemble == nil {
		return nil
	}
	held := map[int64][]string{}
	for qi := range queues {
		for _, p := range queues[qi].Participants {
			if p.State == lockops.StateHolding && p.Ephemeral && p.Session != 0 {
				held[p.Session] = append(held[p.Session], p.Node)
			}
		}
	}
	var out []SessionProblem
	hung := func(id int64, detail string) {
		out = append(out, SessionProblem{Kind: lockops.ProblemSessionHung, Sessions: []int64{id}, Nodes: held[id], Detail: detail})
	}
	for _, id := range sortedKeys(held) {
		if since, ok := o.SilentSince[id]; ok {
			d, to := o.Ensemble.At.Sub(since), timeoutOf(o.Ensemble, id)
			switch {
			case SilenceProves(to, d):
				hung(id, fmt.Sprintf("session %s holds %d lock(s) and has sent nothing, not even a ping, for %s or more (a live client pings every third of its %s session timeout): its client is not answering (a stopped or frozen process, or a cut connection); the servers expire the session %s after its last packet, and its lock nodes go with it",
					lockops.FormatSession(id), len(held[id]), lockops.FormatAge(d), lockops.FormatAge(to), lockops.FormatAge(to)))
			case d >= o.HungAfter:
				hung(id, fmt.Sprintf("session %s holds %d lock(s) and has sent nothing at all for %s or more, not even a ping (a live client pings every third of its %s session timeout: it may be idle, or not answering)",
					lockops.FormatSession(id), len(held[id]), lockops.FormatAge(d), lockops.FormatAge(to)))
			}
			continue
		}
		since, ok := o.PingOnlySince[id]
		if !ok {
			continue
		}
		if d := o.Ensemble.At.Sub(since); d >= o.HungAfter {
			hung(id, fmt.Sprintf("session %s holds %d lock(s) and has answered only pings for %s or more: its client may be hung while its heartbeat thread lives (or it works without ZooKeeper)",
				lockops.FormatSession(id), len(held[id]), lockops.FormatAge(d)))
		}
	}
	return out
}

// timeoutOf is a session's timeout as a member's connection list
// says (0 when none lists it).
func timeoutOf(e *zkview.Ensemble, id int64) time.Duration {
	for _, m := range e.Members {
		for _, c := range m.Conns {
			if c.HasSession && c.SessionID == id {
				return c.Timeout
			}
		}
	}
	return 0
}

// disconnectedOwners: sessions owning ephemerals that every member was
// asked about and none lists a connection of.
func disconnectedOwners(e *zkview.Ensemble) []SessionProblem {
	if e == nil || !allConnsKnown(e) {
		return nil
	}
	connected := map[int64]bool{}
	for _, m := range e.Members {
		for _, c := range m.Conns {
			connected[c.SessionID] = true
		}
		for id := range m.Clients {
			connected[id] = true
		}
	}
	ids, _ := e.Sessions()
	var out []SessionProblem
	for _, id := range sortedKeys(ids) {
		eph, known := e.Ephemerals(id)
		if connected[id] || !known || len(eph) == 0 {
			continue
		}
		out = append(out, SessionProblem{Kind: lockops.ProblemOwnerDisconnected, Sessions: []int64{id}, Nodes: slices.Sorted(slices.Values(eph)),
			Detail: fmt.Sprintf("session %s owns %d ephemeral node(s) but is connected to no member: its client is gone or partitioned, and they go when the session expires", lockops.FormatSession(id), len(eph))})
	}
	return out
}

// OwnersDisconnected is owner-disconnected once per session, for doctor:
// every session that owns a node of queues reported owner-disconnected
// (which [Diagnose] keeps per node, as `locks --json` reports it) or that
// e's members list owning an ephemeral node at or below root while none
// lists a connection of it ([Sessions]). Nodes are its lock
// nodes, then its other ephemeral nodes as e lists them (anywhere). A
// session whose every node at or below root is already a sharper
// leader-client-gone is left to that problem. Sorted by session.
func OwnersDisconnected(queues []lockops.Queue, e *zkview.Ensemble, root string) []SessionProblem {
	nodes := map[int64][]string{} // lock nodes per session
	sharper := map[string]bool{}  // nodes already leader-client-gone
	for qi := range queues {
		q := &queues[qi]
		for _, pr := range q.Problems {
			switch pr.Kind {
			case lockops.ProblemOwnerDisconnected:
				if at := lockops.ParticipantIndex(*q, pr.Node); at >= 0 {
					s := q.Participants[at].Session
					nodes[s] = append(nodes[s], pr.Node)
				}
			case lockops.ProblemLeaderClientGone:
				sharper[pr.Node] = true
			}
		}
	}
	for _, sp := range disconnectedOwners(e) {
		if id := sp.Sessions[0]; nodes[id] == nil && slices.ContainsFunc(sp.Nodes, func(n string) bool { return lockops.Under(n, root) && !sharper[n] }) {
			nodes[id] = []string{}
		}
	}
	var out []SessionProblem
	for _, id := range sortedKeys(nodes) {
		locks := slices.Compact(slices.Sorted(slices.Values(nodes[id])))
		eph, _ := e.Ephemerals(id)
		others := slices.DeleteFunc(slices.Sorted(slices.Values(eph)), func(n string) bool { return slices.Contains(locks, n) })
		all := slices.Concat(locks, others)
		if len(all) == 0 {
			continue
		}
		next := ""
		if len(locks) > 0 {
			next = " (zkscope evict --session " + lockops.FormatSession(id) + " removes its lock nodes now)"
		}
		out = append(out, SessionProblem{Kind: lockops.ProblemOwnerDisconnected, Sessions: []int64{id}, Nodes: all,
			Detail: fmt.Sprintf("session %s is alive but connected to no member: its client is gone or partitioned; its %s go when the session expires%s: %s",
				lockops.FormatSession(id), countNodes(len(locks), len(others)), next, listNodes(all, 10))})
	}
	return out
}

// countNodes says "2 lock nodes and 1 other ephemeral node".
func countNodes(locks, others int) string {
	plural := func(n int, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", n, what)
	}
	switch {
	case others == 0:
		return plural(locks, "lock node")
	case locks == 0:
		return plural(others, "ephemeral node")
	}
	return plural(locks, "lock node") + " and " + plural(others, "other ephemeral node")
}

// listNodes joins the first max of nodes, then says how many more.
func listNodes(nodes []string, max int) string {
	if len(nodes) <= max {
		return strings.Join(nodes, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(nodes[:max], ", "), len(nodes)-max)
}

// applySessionProblems adds each cross-directory deadlock and hung holder
// to the queue of its first node, once (owner-disconnected is already
// reported per node).
func applySessionProblems(queues []lockops.Queue, ps []SessionProblem) {
	for _, sp := range ps {
		if sp.Kind == lockops.ProblemOwnerDisconnected {
			continue
		}
		for _, n := range sp.Nodes {
			if qi := queueOf(queues, n); qi >= 0 {
				queues[qi].Problems = append(queues[qi].Problems, lockops.Problem{Kind: sp.Kind, Node: n, Detail: sp.Detail})
				break
			}
		}
	}
}

func queueOf(queues []lockops.Queue, node string) int {
	for qi := range queues {
		for _, p := range queues[qi].Participants {
			if p.Node == node {
				return qi
			}
		}
	}
	return -1
}

func sortedKeys[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b int64) int { return cmp.Compare(uint64(a), uint64(b)) })
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
