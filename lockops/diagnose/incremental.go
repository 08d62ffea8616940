package diagnose

import (
	"slices"

	"github.com/zkscope/zkscope/lockops"
)

// Diagnosing a followed tree a few locks at a time (lockops/follow): each
// lock's own checks need only its queue and the servers' answer, and a
// session-deadlock only the locks where a session that holds a lock
// somewhere waits ([SessionIndex]). [Diagnose] on every lock gives what
// [DiagnoseEach], then [SessionDeadlocks] and [ApplySessionProblems] on
// those locks give.

// DiagnoseEach is [Diagnose] without the session-level problems: the
// checks of each queue alone, with view ([ViewOf] of o.Ensemble, asked
// once for many calls).
func DiagnoseEach(queues []lockops.Queue, o Options, view *lockops.ServersView) {
	lockops.DiagnoseWith(queues, o.queueOptions(), view, lockops.QueueChecks|lockops.ServerChecks)
}

// SessionDeadlocks are the sessions of queues that wait on each other
// (session-deadlock), each set once.
func SessionDeadlocks(queues []lockops.Queue) []SessionProblem { return waitForCycles(queues) }

// ApplySessionProblems adds each problem of ps (but owner-disconnected,
// reported per node) to the queue of its first node, as [Diagnose] does.
func ApplySessionProblems(queues []lockops.Queue, ps []SessionProblem) {
	applySessionProblems(queues, ps)
}

// SessionIndex knows, across locks replaced one at a time, which sessions
// hold a lock that blocks its waiters (a mutex's, a read/write lock's)
// and in which locks each session waits on one. A wait-for cycle runs
// only through sessions that hold and wait: its every edge is in a lock
// where such a session waits ([SessionIndex.Entangled]), so the cycles of
// those locks are the cycles of all.
type SessionIndex struct {
	holds map[int64]int            // holding nodes by session
	waits map[int64]map[string]int // waiting nodes by session, by lock
}

// Replace takes lock's queue old (nil: none) out of the index and cur
// (nil: gone) in.
func (x *SessionIndex) Replace(lock string, old, cur *lockops.Queue) {
	if x.holds == nil {
		x.holds, x.waits = map[int64]int{}, map[int64]map[string]int{}
	}
	x.count(lock, old, -1)
	x.count(lock, cur, 1)
}

func (x *SessionIndex) count(lock string, q *lockops.Queue, by int) {
	if q == nil {
		return
	}
	for i := range q.Participants {
		p := &q.Participants[i]
		if !lockBlocks(p) {
			continue
		}
		switch p.State {
		case lockops.StateHolding:
			if x.holds[p.Session] += by; x.holds[p.Session] <= 0 {
				delete(x.holds, p.Session)
			}
		case lockops.StateWaiting:
			m := x.waits[p.Session]
			if m == nil {
				m = map[string]int{}
				x.waits[p.Session] = m
			}
			if m[lock] += by; m[lock] <= 0 {
				delete(m, lock)
			}
			if len(m) == 0 {
				delete(x.waits, p.Session)
			}
		}
	}
}

// Entangled are the locks in which a session that holds a lock somewhere
// waits, sorted: the only locks a session-deadlock can run through.
func (x *SessionIndex) Entangled() []string {
	var out []string
	for s, locks := range x.waits {
		if x.holds[s] == 0 {
			continue
		}
		for l := range locks {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
