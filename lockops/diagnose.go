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
func Diagnose(queues []Queue, o DiagnoseOptions) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Herd <= 0 {
		o.Herd = 3
	}
	for qi := range queues {
		diagnose(&queues[qi], o)
	}
	applySessionProblems(queues, DiagnoseSessions(queues, SessionCheckOptions{
		Ensemble: o.Ensemble, PingOnlySince: o.PingOnlySince, HungAfter: o.HungAfter}))
}

// diagnose appends q's problems to q.Problems: each check in turn, in the
// order the report lists them (per node, per session, then per queue).
func diagnose(q *Queue, o DiagnoseOptions) {
	ix := newQueueIndex(q, o)
	for i := range q.Participants {
		p := &q.Participants[i]
		if p.Mode == ModeStray {
			continue
		}
		checkPersistentLockNode(ix, p)
		checkWatchMissing(ix, p)
		checkHeldTooLong(ix, p)
	}
	for i := range ix.sessions {
		s := &ix.sessions[i]
		checkUpgradeDeadlock(ix, s)
		checkOrphan(ix, s)
		checkLeaseOrphan(ix, s)
	}
	if o.Ensemble != nil {
		for i := range q.Participants {
			p := &q.Participants[i]
			checkDeadOwner(ix, p)
			checkOwnerDisconnected(ix, p)
		}
		for i := range q.Participants {
			checkDeadlock(ix, &q.Participants[i])
		}
	}
	checkHerd(ix)
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

func newQueueIndex(q *Queue, o DiagnoseOptions) *queueIndex {
	ix := &queueIndex{q: q, o: o, out: q.Problems, sessions: sharedSessions(q),
		rw: q.Kind == KindCuratorRW || q.Kind == KindKazooRW || q.Kind == KindZooKeeperDocsRW}
	if o.Ensemble != nil {
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
	if !p.Ephemeral {
		ix.addDetail(ProblemPersistentLockNode, p.Node, "a "+string(p.State)+" node that is not ephemeral: no session will ever release it; delete it by hand once its owner is gone")
	}
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

// checkHerd: o.Herd or more waiters on one node, as the recipe predicts or
// as the servers list (read/write locks aside: their readers share).
func checkHerd(ix *queueIndex) {
	if ix.rw {
		return
	}
	q, o := ix.q, ix.o
	herds := predictedHerds(q, o.Herd)
	if o.Ensemble != nil {
		for i := range q.Participants {
			node := q.Participants[i].Node
			if n := len(o.Ensemble.Watchers(node)); n > herds[node] && n >= o.Herd {
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
