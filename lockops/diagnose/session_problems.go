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
