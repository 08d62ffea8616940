package lockops

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The checks of one queue [diagnose] runs, in the order the report lists
// their problems: per node, per session sharing the lock, then per queue.

func checkPersistentLockNode(ix *queueIndex, p *Participant) {
	if p.Ephemeral {
		return
	}
	if ix.o.KindsOnly {
		ix.addDetail(ProblemPersistentLockNode, p.Node, "")
		return
	}
	ix.addDetail(ProblemPersistentLockNode, p.Node, ix.o.Sentences.sentence(ProblemPersistentLockNode, p, persistentSentence))
}

// persistentSentence says what a persistent lock node in state s means
// and the command that removes it.
func persistentSentence(s State, node string) string {
	return "a " + string(s) + " node that is not ephemeral: no session will ever release it; once its owner is gone, zkscope evict " + node + " removes it"
}

// checkWatchMissing: a wait diagnose.ApplySamples found missing in two samples.
func checkWatchMissing(ix *queueIndex, p *Participant) {
	if p.WatchObserved != nil && !*p.WatchObserved {
		ix.addDetail(ProblemWatchMissing, p.Node, watchMissingDetail(p))
	}
}

// checkHeldTooLong judges what is known: how long the holder has held
// when zkscope saw it begin or a history says ([Participant.HeldSince]),
// else its node's age, which only bounds it from above (a node holds from
// when those before it left), said as such.
func checkHeldTooLong(ix *queueIndex, p *Participant) {
	o := ix.o
	if p.State != StateHolding || o.HeldLongerThan <= 0 || p.Ctime.IsZero() && p.HeldSince.IsZero() {
		return
	}
	if !p.HeldSince.IsZero() {
		if held := o.Now.Sub(p.HeldSince); held > o.HeldLongerThan {
			ix.add(ProblemHeldTooLong, p.Node, "held for %s (%s) exceeds %s, by session %s", FormatAge(held), p.HeldSource, FormatLimit(o.HeldLongerThan), FormatSession(p.Session))
		}
		return
	}
	if age := o.Now.Sub(p.Ctime); age > o.HeldLongerThan && ix.q.Kind.SingleNode() {
		ix.add(ProblemHeldTooLong, p.Node, "held for %s (its node is the lock: held since its creation) exceeds %s, by session %s", FormatAge(age), FormatLimit(o.HeldLongerThan), FormatSession(p.Session))
	} else if age > o.HeldLongerThan {
		ix.add(ProblemHeldTooLong, p.Node, "node age %s exceeds %s; when it began to hold is not known (session %s)", FormatAge(age), FormatLimit(o.HeldLongerThan), FormatSession(p.Session))
	}
}

// FormatLimit prints a threshold as given on the command line, without
// the zero units time.Duration adds ("1m", not "1m0s").
func FormatLimit(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

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
	if alive, _ := ix.sessionAlive(p.Session); alive && p.Client == "" && ix.view.ConnsKnown {
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
func checkHerd(ix *queueIndex, parts Checks) {
	if ix.rw {
		return
	}
	q, o := ix.q, ix.o
	predicted := predictedHerds(q, o.Herd)
	herds := predicted
	if parts&QueueChecks == 0 {
		herds = map[string]int{}
	}
	if ix.view != nil {
		for i := range q.Participants {
			node := q.Participants[i].Node
			if n := len(ix.view.Watchers(node)); n > predicted[node] && n >= o.Herd {
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

func watchMissingDetail(p *Participant) string {
	return "waits on " + p.Watches + ", but no server lists session " + FormatSession(p.Session) +
		" watching it in two samples a second or more apart, both begun after zkscope read this wait: it may never wake up"
}

// WatchMissingProblem is the watch-missing problem of p (WatchObserved
// false), as diagnose.Diagnose reports it.
func WatchMissingProblem(p *Participant) Problem {
	return Problem{Kind: ProblemWatchMissing, Node: p.Node, Detail: watchMissingDetail(p)}
}

// checkElection adjusts the servers' problems of an election or a
// single-node lock: its waiters own no node, so none can wait on another
// (a leader watching its own node is no deadlock); a system's candidates
// all watch the leader node by design (no herd to fix); and a leader whose
// session lives on while its client is connected to no server makes the
// others wait for the session to expire: the owner-disconnected problem
// of that node becomes this sharper one.
func checkElection(ix *queueIndex) {
	q := ix.q
	if !q.Kind.SingleNode() && !q.Kind.SystemElection() {
		return
	}
	ix.out = slices.DeleteFunc(ix.out, func(p Problem) bool {
		return p.Kind == ProblemDeadlock && q.Kind.SingleNode() ||
			p.Kind == ProblemHerd && q.Kind.SystemElection() // Kafka's brokers, HDFS's controllers: by design
	})
	for i := range ix.out {
		pr := &ix.out[i]
		if pr.Kind == ProblemNoLeader {
			pr.Detail = withRacers(pr.Detail, q)
		}
		if pr.Kind != ProblemOwnerDisconnected {
			continue
		}
		at := ParticipantIndex(*q, pr.Node)
		if at < 0 || q.Participants[at].State != StateHolding || q.Participants[at].WatcherOnly {
			continue
		}
		pr.Kind = ProblemLeaderClientGone
		pr.Detail = fmt.Sprintf("the %s's session %s is alive but its client is connected to no server: no new election until the session expires; stop that process for good, or evict the node once it is gone",
			LeaderWord(q.Kind), FormatSession(q.Participants[at].Session))
	}
}

// racersNote ends a no-leader problem's detail that names the sessions
// waiting to race for the missing node.
const racersNote = ", racing to create it: "

// withRacers is the detail of q's no-leader problem naming the sessions
// the servers list waiting for the missing leader node, once (the
// checks may run again on the same problems).
func withRacers(detail string, q *Queue) string {
	if strings.Contains(detail, racersNote) {
		return detail
	}
	var ids []string
	for _, p := range q.Participants {
		if p.WatcherOnly {
			ids = append(ids, FormatSession(p.Session))
		}
	}
	if len(ids) == 0 {
		return detail
	}
	return fmt.Sprintf("%s; %s waiting with an exists watch on %s%s%s", detail, Plural(len(ids), "session"), q.Participants[0].Watches, racersNote, strings.Join(ids, ", "))
}
