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
// the servers said. Children watches never appear in the servers' watch
// lists: their WatchObserved stays nil (unknown).
func ApplyEnsemble(e *zkview.Ensemble, queues []Queue) {
	if e == nil {
		return
	}
	for qi := range queues {
		q := &queues[qi]
		// Which nodes of this lock each session really watches.
		watching := map[int64][]string{}
		for _, p := range q.Participants {
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
				if observed, known := e.WatchObserved(p.Session, p.Watches); known || observed {
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
		Ensemble: o.Ensemble, PingOnlySince: o.PingOnlySince, HungAfter: o.HungAfter})...))
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

func checkPersistentLockNode(ix *queueIndex, p *Participant) {
	if p.Ephemeral {
		return
	}
	// The sentences of the usual states are made once: a queue of
	// persistent nodes (a test harness, a hand-made lock) is checked on
	// every read of the lock pane.
	switch p.State {
	case StateHolding:
		ix.addDetail(ProblemPersistentLockNode, p.Node, persistentHolding)
	case StateWaiting:
		ix.addDetail(ProblemPersistentLockNode, p.Node, persistentWaiting)
	default:
		ix.addDetail(ProblemPersistentLockNode, p.Node, persistentSentence(p.State))
	}
}

var (
	persistentHolding = persistentSentence(StateHolding)
	persistentWaiting = persistentSentence(StateWaiting)
)

func persistentSentence(s State) string {
	return "a " + string(s) + " node that is not ephemeral: no session will ever release it; delete it by hand once its owner is gone"
}

func checkWatchMissing(ix *queueIndex, p *Participant) {
	if p.WatchObserved != nil && !*p.WatchObserved {
		ix.addDetail(ProblemWatchMissing, p.Node, "waits on "+p.Watches+", but no server lists session "+FormatSession(p.Session)+" watching it: it may never wake up")
	}
}

func checkHeldTooLong(ix *queueIndex, p *Participant) {
	o := ix.o
	if p.State == StateHolding && o.HeldLongerThan > 0 && o.Now.Sub(p.Ctime) > o.HeldLongerThan {
		ix.add(ProblemHeldTooLong, p.Node, "held for %s (longer than %s) by session %s", FormatAge(o.Now.Sub(p.Ctime)), o.HeldLongerThan, FormatSession(p.Session))
	}
}

// checkUpgradeDeadlock: holding a read lock while waiting for the write
// lock of the same lock never succeeds.
func checkUpgradeDeadlock(ix *queueIndex, s *sessionNodes) {
	ps := ix.q.Participants
	for _, r := range s.reads {
		for _, w := range s.writes {
			if ps[r].State == StateHolding && ps[w].State == StateWaiting {
				ix.add(ProblemUpgradeDeadlock, ps[w].Node, "session %s holds the read lock (%s) and waits for the write lock: it waits for itself forever", FormatSession(s.session), ps[r].Name)
			}
		}
	}
}

// checkOrphan: a client makes one node of a lock (one read and one write
// node at most); a session's others are orphans of a retried create.
// Several leases are [checkLeaseOrphan]'s, unless there are other orphans.
func checkOrphan(ix *queueIndex, s *sessionNodes) {
	switch {
	case len(s.others) > 1:
		ix.addEach(ProblemOrphan, s.others, fmt.Sprintf("session %s owns %d nodes of this lock; a client makes one: the others are orphans of a retried create (they block the queue until the session ends)", FormatSession(s.session), len(s.others)))
	case len(s.leases) > 1:
		// checkLeaseOrphan's
	case len(s.writes) > 1 || len(s.reads) > 1 && len(s.writes) == 0:
		extra := s.writes
		if len(s.writes) <= 1 {
			extra = s.reads
		}
		ix.addEach(ProblemOrphan, extra, fmt.Sprintf("session %s owns %d %s nodes of this lock: probably an orphan of a retried create", FormatSession(s.session), len(extra), ix.q.Participants[extra[0]].Mode))
	}
}

// checkLeaseOrphan: a lease left behind by a failed acquire takes a slot
// until its session ends.
func checkLeaseOrphan(ix *queueIndex, s *sessionNodes) {
	if len(s.others) <= 1 && len(s.leases) > 1 {
		ix.addEach(ProblemLeaseOrphan, s.leases, fmt.Sprintf("session %s owns %d leases: a lease left behind by a failed acquire (Curator CURATOR-315/462) takes a slot until the session ends", FormatSession(s.session), len(s.leases)))
	}
}

func checkDeadOwner(ix *queueIndex, p *Participant) {
	if !p.Ephemeral {
		return
	}
	if alive, known := ix.sessionAlive(p.Session); known && !alive {
		ix.add(ProblemDeadOwner, p.Node, "no server knows session %s any more: the node outlived its owner (being cleaned up, or the servers disagree)", FormatSession(p.Session))
	}
}

func checkOwnerDisconnected(ix *queueIndex, p *Participant) {
	if !p.Ephemeral {
		return
	}
	if alive, _ := ix.sessionAlive(p.Session); alive && p.Client == "" && ix.connsKnown {
		ix.add(ProblemOwnerDisconnected, p.Node, "session %s is alive but connected to no server: its client is gone or partitioned, and the node goes when the session expires", FormatSession(p.Session))
	}
}

// checkDeadlock: a waiter the servers see watching a node BEHIND it, which
// in turn waits on the waiter: kazoo < 2.9 readers after the writer they
// waited on let go (python-zk/kazoo#649).
func checkDeadlock(ix *queueIndex, p *Participant) {
	if len(p.ObservedWatches) == 0 {
		return
	}
	pos := ix.positions()
	for _, w := range p.ObservedWatches {
		if j, ok := pos[w]; ok && j > p.Position && ix.q.Participants[j].Watches == p.Node {
			ix.add(ProblemDeadlock, p.Node, "%s (session %s) watches %s, which waits on it: neither will ever proceed (kazoo < 2.9 read/write lock: python-zk/kazoo#649); restart one of them", p.Name, FormatSession(p.Session), ix.q.Participants[j].Name)
		}
	}
}

// checkHerd: o.Herd or more waiters on one node, as the recipe predicts
// (queue checks) or as the servers list (server checks: only where they
// list more than predicted); read/write locks aside: their readers share.
func checkHerd(ix *queueIndex, parts checkParts) {
	if ix.rw {
		return
	}
	q, o := ix.q, ix.o
	predicted := predictedHerds(q, o.Herd)
	herds := predicted
	if parts&queueChecks == 0 {
		herds = map[string]int{}
	}
	if o.Ensemble != nil && parts&serverChecks != 0 {
		for i := range q.Participants {
			node := q.Participants[i].Node
			if n := len(o.Ensemble.Watchers(node)); n > predicted[node] && n >= o.Herd {
				herds[node] = n
			}
		}
	}
	nodes := make([]string, 0, len(herds))
	for t := range herds {
		nodes = append(nodes, t)
	}
	slices.Sort(nodes)
	for _, t := range nodes {
		ix.add(ProblemHerd, t, "%d sessions watch this one node: when it goes, all wake at once", herds[t])
	}
}

// predictedHerds counts, for each node that herd or more waiters watch
// with a data or exists watch (strays aside), how many do.
func predictedHerds(q *Queue, herd int) map[string]int {
	herds := map[string]int{}
	if eachWatchesItsPredecessor(q) {
		return herds // no node has two watchers
	}
	targets := make([]string, 0, len(q.Participants))
	for i := range q.Participants {
		if p := &q.Participants[i]; p.Mode != ModeStray && p.Watches != "" && p.WatchKind != WatchChildren {
			targets = append(targets, p.Watches)
		}
	}
	if len(targets) < herd {
		return herds
	}
	watchers := make(map[string]int, len(targets))
	for _, t := range targets {
		watchers[t]++
	}
	for t, n := range watchers {
		if n >= herd {
			herds[t] = n
		}
	}
	return herds
}

// eachWatchesItsPredecessor reports whether every waiter with a data or
// exists watch watches the participant just before it (a mutex's queue):
// then no node is watched twice, which is found without counting watchers
// by node (the lock pane diagnoses a busy lock on every read).
func eachWatchesItsPredecessor(q *Queue) bool {
	ps := q.Participants
	for i := range ps {
		p := &ps[i]
		if p.Mode == ModeStray || p.Watches == "" || p.WatchKind == WatchChildren {
			continue
		}
		if i == 0 || ps[i-1].Node != p.Watches {
			return false
		}
	}
	return true
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
