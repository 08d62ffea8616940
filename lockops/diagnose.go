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
}

// Diagnose adds to each queue the problems that need more than the names:
// persistent lock nodes, waits the servers do not confirm, long holds,
// several nodes of one session, read→write upgrade deadlocks and herds.
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
}

// diagnose appends q's problems to q.Problems.
func diagnose(q *Queue, o DiagnoseOptions) {
	out := q.Problems
	defer func() { q.Problems = out }()
	add := func(kind ProblemKind, node, format string, args ...any) {
		out = append(out, Problem{Kind: kind, Node: node, Detail: fmt.Sprintf(format, args...)})
	}
	// Indices and sorted lists, not copies or maps of everything: a queue
	// can hold 10,000 participants, each usually of its own session.
	rw := q.Kind == KindCuratorRW || q.Kind == KindKazooRW || q.Kind == KindZooKeeperDocsRW
	owners := make([]int64, 0, len(q.Participants)) // session of each ephemeral node
	var targets []string                            // each data/exists watch (not in read/write locks)
	if !rw {
		targets = make([]string, 0, len(q.Participants))
	}
	for i := range q.Participants {
		p := &q.Participants[i]
		if p.Mode == ModeStray {
			continue
		}
		if !p.Ephemeral {
			add(ProblemPersistentLockNode, p.Node, "a %s node that is not ephemeral: no session will ever release it; delete it by hand once its owner is gone", p.State)
		} else {
			owners = append(owners, p.Session)
		}
		if p.WatchObserved != nil && !*p.WatchObserved {
			add(ProblemWatchMissing, p.Node, "waits on %s, but no server lists session %s watching it: it may never wake up", p.Watches, FormatSession(p.Session))
		}
		if p.State == StateHolding && o.HeldLongerThan > 0 && o.Now.Sub(p.Ctime) > o.HeldLongerThan {
			add(ProblemHeldTooLong, p.Node, "held for %s (longer than %s) by session %s", FormatAge(o.Now.Sub(p.Ctime)), o.HeldLongerThan, FormatSession(p.Session))
		}
		if !rw && p.Watches != "" && p.WatchKind != WatchChildren {
			targets = append(targets, p.Watches)
		}
	}

	// The sessions that own several nodes, with their nodes in queue order.
	slices.Sort(owners)
	bySession := map[int64][]int{}
	for i := 1; i < len(owners); i++ {
		if owners[i] == owners[i-1] {
			bySession[owners[i]] = nil
		}
	}
	if len(bySession) > 0 {
		for i := range q.Participants {
			p := &q.Participants[i]
			if idx, ok := bySession[p.Session]; ok && p.Mode != ModeStray && p.Ephemeral {
				bySession[p.Session] = append(idx, i)
			}
		}
	}
	sessions := make([]int64, 0, len(bySession))
	for s := range bySession {
		sessions = append(sessions, s)
	}
	slices.Sort(sessions)
	for _, s := range sessions {
		var reads, writes, leases, others []int
		for _, i := range bySession[s] {
			switch q.Participants[i].Mode {
			case ModeRead:
				reads = append(reads, i)
			case ModeWrite:
				writes = append(writes, i)
			case ModeLease:
				leases = append(leases, i)
			case ModeLock:
				// a semaphore contender's internal lock node next to its lease
			default:
				others = append(others, i)
			}
		}
		// Holding a read lock while waiting for the write lock of the same
		// lock never succeeds.
		for _, r := range reads {
			for _, w := range writes {
				if q.Participants[r].State == StateHolding && q.Participants[w].State == StateWaiting {
					add(ProblemUpgradeDeadlock, q.Participants[w].Node, "session %s holds the read lock (%s) and waits for the write lock: it waits for itself forever", FormatSession(s), q.Participants[r].Name)
				}
			}
		}
		// One sentence per session, shared by its nodes' problems.
		each := func(kind ProblemKind, idx []int, detail string) {
			out = slices.Grow(out, len(idx)-1)
			for _, i := range idx[1:] {
				out = append(out, Problem{Kind: kind, Node: q.Participants[i].Node, Detail: detail})
			}
		}
		switch {
		case len(others) > 1:
			each(ProblemOrphan, others, fmt.Sprintf("session %s owns %d nodes of this lock; a client makes one: the others are orphans of a retried create (they block the queue until the session ends)", FormatSession(s), len(others)))
		case len(leases) > 1:
			each(ProblemLeaseOrphan, leases, fmt.Sprintf("session %s owns %d leases: a lease left behind by a failed acquire (Curator CURATOR-315/462) takes a slot until the session ends", FormatSession(s), len(leases)))
		case len(writes) > 1 || len(reads) > 1 && len(writes) == 0:
			extra := writes
			if len(writes) <= 1 {
				extra = reads
			}
			each(ProblemOrphan, extra, fmt.Sprintf("session %s owns %d %s nodes of this lock: probably an orphan of a retried create", FormatSession(s), len(extra), q.Participants[extra[0]].Mode))
		}
	}

	if e := o.Ensemble; e != nil {
		for _, p := range q.Participants {
			if !p.Ephemeral {
				continue
			}
			alive, known := e.SessionAlive(p.Session)
			switch {
			case known && !alive:
				add(ProblemDeadOwner, p.Node, "no server knows session %s any more: the node outlived its owner (being cleaned up, or the servers disagree)", FormatSession(p.Session))
			case alive && p.Client == "" && allConnsKnown(e):
				add(ProblemOwnerDisconnected, p.Node, "session %s is alive but connected to no server: its client is gone or partitioned, and the node goes when the session expires", FormatSession(p.Session))
			}
		}
		// A waiter the servers see watching a node BEHIND it, which in turn
		// waits on the waiter: kazoo < 2.9 readers after the writer they
		// waited on let go (python-zk/kazoo#649).
		var pos map[string]int
		for _, p := range q.Participants {
			if len(p.ObservedWatches) > 0 && pos == nil {
				pos = make(map[string]int, len(q.Participants))
				for _, o := range q.Participants {
					pos[o.Node] = o.Position
				}
			}
			for _, w := range p.ObservedWatches {
				if j, ok := pos[w]; ok && j > p.Position && q.Participants[j].Watches == p.Node {
					add(ProblemDeadlock, p.Node, "%s (session %s) watches %s, which waits on it: neither will ever proceed (kazoo < 2.9 read/write lock: python-zk/kazoo#649); restart one of them", p.Name, FormatSession(p.Session), q.Participants[j].Name)
				}
			}
		}
	}

	if !rw {
		// Herds: o.Herd or more waiters on one node, as the recipe
		// predicts or as the servers list.
		herds := map[string]int{}
		if len(targets) >= o.Herd {
			watchers := make(map[string]int, len(targets))
			for _, t := range targets {
				watchers[t]++
			}
			for t, n := range watchers {
				if n >= o.Herd {
					herds[t] = n
				}
			}
		}
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
			add(ProblemHerd, t, "%d sessions watch this one node: when it goes, all wake at once", herds[t])
		}
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
