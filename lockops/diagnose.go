package lockops

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/zkscope/zkscope/zkview"
)

// Verify asks the servers once (every member: see [zkview.Client.Introspect])
// and fills each participant's Client (its session's address) and, for
// data and exists waits, WatchObserved. It returns what the servers said,
// for [Diagnose].
func Verify(ctx context.Context, c *zkview.Client, queues []Queue) *zkview.Ensemble {
	e := c.Introspect(ctx)
	ApplyEnsemble(e, queues)
	return e
}

// ApplyEnsemble fills Client, WatchObserved and ObservedWatches from what
// the servers said. A data or exists wait the servers list is observed
// (true); one they do not list stays unknown (nil): one sample cannot
// tell a missing watch from one set a moment after the sample, or from
// a wait that moved meanwhile ([ApplySamples] can). Children watches
// never appear in the servers' watch lists: their WatchObserved stays nil.
func ApplyEnsemble(e *zkview.Ensemble, queues []Queue) {
	if e == nil {
		return
	}
	for qi := range queues {
		q := &queues[qi]
		applyWatchers(e, q) // candidates that own no node (election.go)
		// Which nodes of this lock each session really watches.
		watching := map[int64][]string{}
		for _, p := range q.Participants {
			if p.WatcherOnly {
				continue // its node is the holder's, counted once
			}
			for _, s := range e.Watchers(p.Node) {
				watching[s] = append(watching[s], p.Node)
			}
		}
		for i := range q.Participants {
			p := &q.Participants[i]
			if p.Session != 0 {
				if addr, ok := e.ClientOf(p.Session); ok {
					p.Client = addr
				}
			}
			p.ObservedWatches = watching[p.Session]
			if p.Watches != "" && (p.WatchKind == WatchData || p.WatchKind == WatchExists) {
				p.WatchObserved = nil
				if observed, _ := e.WatchObserved(p.Session, p.Watches); observed {
					p.WatchObserved = &observed
				}
			}
		}
		ApplyEnsemble(e, q.Others)
	}
}

// DiagnoseOptions tune [Diagnose].
type DiagnoseOptions struct {
	// HeldLongerThan flags holders whose node is older than this (0: off).
	HeldLongerThan time.Duration
	// Now is the time to measure ages against (zero: time.Now()).
	Now time.Time
	// Herd is how many waiters on one node make a herd (0: 3).
	Herd int
	// Ensemble is what the servers said ([Verify]); nil skips the checks
	// that need it (dead or disconnected owners, herds seen on the servers).
	Ensemble *zkview.Ensemble
	// PingOnlySince maps sessions that answered only pings to since when
	// ([PingOnlySince] of two samples, or a [PingWatch]); a holder among
	// them for HungAfter or longer is session-hung (0: off).
	PingOnlySince map[int64]time.Time
	HungAfter     time.Duration
	// SilentSince maps sessions that sent nothing at all, not even a
	// ping, between samples to since when ([SilentSince]).
	SilentSince map[int64]time.Time
}

// Diagnose adds to each queue the problems that need more than the names:
// persistent lock nodes, waits the servers do not confirm, long holds,
// several nodes of one session, read→write upgrade deadlocks and herds;
// then, across all of queues, sessions waiting on each other between
// directories and holders answering only pings ([DiagnoseSessions]), each
// added once, to the queue of its first node.
// Run [Verify] first for the checks that need the servers.
//
// Diagnose is [DiagnoseQueue] and [DiagnoseServers] in one pass (the
// problems in the report's order) plus the session-level problems; a
// caller re-reading one lock often (the TUI's lock pane) runs the first
// on every read and the others only when the servers' view changes.
func Diagnose(queues []Queue, o DiagnoseOptions) {
	o = o.withDefaults()
	for qi := range queues {
		diagnose(&queues[qi], o, queueChecks|serverChecks)
	}
	applySessionProblems(queues, append(waitForCycles(queues), hungHolders(queues, SessionCheckOptions{
		Ensemble: o.Ensemble, PingOnlySince: o.PingOnlySince, HungAfter: o.HungAfter, SilentSince: o.SilentSince})...))
}

// DiagnoseQueue adds to each queue the problems its own nodes show, with
// no question to the servers: persistent lock nodes, long holds, several
// nodes of one session, upgrade deadlocks and the herds the recipe
// predicts. It is cheap enough to run on every read of a busy lock.
func DiagnoseQueue(queues []Queue, o DiagnoseOptions) {
	o = o.withDefaults()
	for qi := range queues {
		diagnose(&queues[qi], o, queueChecks)
	}
}

// DiagnoseServers adds to each queue the problems that need what the
// servers said ([Verify], o.Ensemble; nil: only the waits already marked
// unconfirmed): waits no server lists (watch-missing), owners the servers
// no longer know or that have no connection, waiters the servers see
// watching each other, and herds the servers list beyond those the recipe
// predicts. Session-level problems are [DiagnoseSessions]'.
func DiagnoseServers(queues []Queue, o DiagnoseOptions) {
	o = o.withDefaults()
	for qi := range queues {
		diagnose(&queues[qi], o, serverChecks)
	}
}

func (o DiagnoseOptions) withDefaults() DiagnoseOptions {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Herd <= 0 {
		o.Herd = 3
	}
	return o
}

// checkParts selects [diagnose]'s checks: those of the queue alone, those
// needing the servers' view, or both.
type checkParts uint8

const (
	queueChecks checkParts = 1 << iota
	serverChecks
)

// diagnose appends q's problems to q.Problems: each check of parts in
// turn, in the order the report lists them (per node, per session, then
// per queue).
func diagnose(q *Queue, o DiagnoseOptions, parts checkParts) {
	ix := newQueueIndex(q, o, parts)
	queue, servers := parts&queueChecks != 0, parts&serverChecks != 0
	for i := range q.Participants {
		p := &q.Participants[i]
		if p.Mode == ModeStray {
			continue
		}
		if queue {
			checkPersistentLockNode(ix, p)
		}
		if servers {
			checkWatchMissing(ix, p)
		}
		if queue {
			checkHeldTooLong(ix, p)
		}
	}
	if queue {
		for i := range ix.sessions {
			s := &ix.sessions[i]
			checkUpgradeDeadlock(ix, s)
			checkOrphan(ix, s)
			checkLeaseOrphan(ix, s)
		}
	}
	if servers && o.Ensemble != nil {
		for i := range q.Participants {
			p := &q.Participants[i]
			checkDeadOwner(ix, p)
			checkOwnerDisconnected(ix, p)
		}
		for i := range q.Participants {
			checkDeadlock(ix, &q.Participants[i])
		}
	}
	checkHerd(ix, parts)
	checkElection(ix)
	q.Problems = ix.out
}

// queueIndex is what the checks of one queue share, built once: indices
// and sorted lists, not copies or maps of everything, since a queue can
// hold 10,000 participants, each usually of its own session.
type queueIndex struct {
	q  *Queue
	o  DiagnoseOptions
	rw bool // a read/write lock
	// sessions are the sessions owning several ephemeral nodes of the lock,
	// in session order.
	sessions []sessionNodes
	// position of each node, only when a check needs it (see positions).
	pos map[string]int
	// With o.Ensemble: the sessions the servers know (all of them when
	// sessionsComplete), and whether every member listed its connections.
	liveSessions     map[int64]bool
	sessionsComplete bool
	connsKnown       bool
	out              []Problem
}

// sessionNodes are one session's ephemeral nodes of a lock, by mode, as
// indices into the queue's participants in queue order.
type sessionNodes struct {
	session                       int64
	reads, writes, leases, others []int
}

func newQueueIndex(q *Queue, o DiagnoseOptions, parts checkParts) *queueIndex {
	ix := &queueIndex{q: q, o: o, out: q.Problems,
		rw: q.Kind == KindCuratorRW || q.Kind == KindKazooRW || q.Kind == KindZooKeeperDocsRW}
	if parts&queueChecks != 0 {
		ix.sessions = sharedSessions(q)
	}
	if o.Ensemble != nil && parts&serverChecks != 0 {
		ix.liveSessions, ix.sessionsComplete = o.Ensemble.Sessions()
		ix.connsKnown = allConnsKnown(o.Ensemble)
	}
	return ix
}

// sharedSessions lists the sessions owning several ephemeral nodes of q
// (strays aside), sorted, with their nodes in queue order.
func sharedSessions(q *Queue) []sessionNodes {
	owners := make([]int64, 0, len(q.Participants))
	for i := range q.Participants {
		if p := &q.Participants[i]; p.Mode != ModeStray && p.Ephemeral {
			owners = append(owners, p.Session)
		}
	}
	slices.Sort(owners)
	at := map[int64]int{} // session -> index in out
	var out []sessionNodes
	for i := 1; i < len(owners); i++ {
		if owners[i] == owners[i-1] && (len(out) == 0 || out[len(out)-1].session != owners[i]) {
			at[owners[i]] = len(out)
			out = append(out, sessionNodes{session: owners[i]})
		}
	}
	if len(out) == 0 {
		return nil
	}
	for i := range q.Participants {
		p := &q.Participants[i]
		k, ok := at[p.Session]
		if !ok || p.Mode == ModeStray || !p.Ephemeral {
			continue
		}
		s := &out[k]
		switch p.Mode {
		case ModeRead:
			s.reads = append(s.reads, i)
		case ModeWrite:
			s.writes = append(s.writes, i)
		case ModeLease:
			s.leases = append(s.leases, i)
		case ModeLock:
			// a semaphore contender's internal lock node next to its lease
		default:
			s.others = append(s.others, i)
		}
	}
	return out
}

// positions maps each node of the queue to its position, made on first use.
func (ix *queueIndex) positions() map[string]int {
	if ix.pos == nil {
		ix.pos = make(map[string]int, len(ix.q.Participants))
		for i := range ix.q.Participants {
			ix.pos[ix.q.Participants[i].Node] = ix.q.Participants[i].Position
		}
	}
	return ix.pos
}

// sessionAlive is [zkview.Ensemble.SessionAlive] from the sessions listed
// once.
func (ix *queueIndex) sessionAlive(s int64) (alive, known bool) {
	if ix.liveSessions[s] {
		return true, true
	}
	return false, ix.sessionsComplete
}

func (ix *queueIndex) add(kind ProblemKind, node, format string, args ...any) {
	ix.out = append(ix.out, Problem{Kind: kind, Node: node, Detail: fmt.Sprintf(format, args...)})
}

// addDetail is add with the sentence made already (the per-participant
// checks, which may run for every node of a long queue on every read).
func (ix *queueIndex) addDetail(kind ProblemKind, node, detail string) {
	ix.out = append(ix.out, Problem{Kind: kind, Node: node, Detail: detail})
}

// addEach adds one problem for each node of idx but the first, sharing one
// sentence.
func (ix *queueIndex) addEach(kind ProblemKind, idx []int, detail string) {
	ix.out = slices.Grow(ix.out, len(idx)-1)
	for _, i := range idx[1:] {
		ix.out = append(ix.out, Problem{Kind: kind, Node: ix.q.Participants[i].Node, Detail: detail})
	}
}

// CountProblems counts the problems `zkscope doctor` reports (not the
// informational ones), other libraries' views included.
func CountProblems(queues []Queue) int {
	n := 0
	for _, q := range queues {
		for _, p := range q.Problems {
			if p.Severity() > SeverityInfo {
				n++
			}
		}
	}
	return n
}

// allConnsKnown reports whether every member listed its connections (so a
// session missing from all of them really has no connection).
func allConnsKnown(e *zkview.Ensemble) bool {
	if len(e.Members) == 0 {
		return false
	}
	for _, m := range e.Members {
		if !m.ConnsKnown {
			return false
		}
	}
	return true
}
