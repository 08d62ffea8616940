package lockpane

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/zkview"
)

// The lock's diagnosis, split by what it needs. A churning lock is read
// up to ten times a second, but the servers are asked at most every
// reverifyEvery: the queue's own checks (lockops.DiagnoseQueue) run on
// every read, while those that need the servers' view and the
// session-level ones (wait-for cycles across directories, holders
// answering only pings), which read the other lock directories the
// lock's sessions own nodes in, run in lockops/diagnose ([diagnose.Lock])
// once per answer of the servers, from the verifying command. Their
// problems are carried to the reads that follow, for the nodes still
// there and unchanged (same state, same wait): what the servers said is
// about those nodes only.

// serverFindings is what one answer of the servers found about the shown
// lock: per node, the problems carried to later reads, and the
// session-level problems that involve its nodes (drawn as their own lines
// with the other locks' paths).
type serverFindings struct {
	byNode   map[nodeKey][]carried
	count    int // problems in byNode
	sessions []diagnose.LockSessionProblem
}

// nodeKey finds a node's carried problems with a cheaper hash than its
// path's (every node of a busy lock is looked up on every read); the path
// is compared too.
type nodeKey struct{ czxid, seq int64 }

func keyOf(x *lockops.Participant) nodeKey { return nodeKey{x.Czxid, x.Seq} }

// carried is a problem the servers' view found on a node, with the node's
// state and wait it was found for.
type carried struct {
	lockops.Problem
	state   lockops.State
	watches string
}

// sessionHungAfter is how long a holder answering only pings is marked
// session-hung (as in the :sessions view); a variable so that a test on a
// real server need not wait a minute.
var sessionHungAfter = time.Minute

// viewedQueue is the decoded queue q (the caller's to change: a fresh
// decode, not copied again) with the servers' last view ens applied (nil:
// none), the queue's own checks as of now (s remembers their sentences) and the problems found when the
// servers last answered (f) for the nodes they still concern.
func viewedQueue(q lockops.Queue, ens *zkview.Ensemble, f *serverFindings, now time.Time, s *lockops.Sentences) lockops.Queue {
	qs := []lockops.Queue{q}
	diagnose.ApplyEnsemble(ens, qs)
	lockops.DiagnoseQueue(qs, lockops.DiagnoseOptions{Now: now, Sentences: s})
	f.carryTo(&qs[0])
	paneWatchers(&qs[0]) // watchers.go
	return qs[0]
}

// rawOf is the decoded queue a viewed queue q was made from, for a
// verification: a copy, with what the view and the diagnosis added taken
// off (decoded is how many problems the decoder found: the first ones).
func rawOf(q lockops.Queue, decoded int) lockops.Queue {
	q = copyQueue(q)
	q.Problems = q.Problems[:min(decoded, len(q.Problems))]
	forgetView(&q)
	return q
}

// forgetView clears what diagnose.ApplyEnsemble and the pane's judgement
// of the waits set.
func forgetView(q *lockops.Queue) {
	for i := range q.Participants {
		x := &q.Participants[i]
		x.Client, x.WatchObserved, x.ObservedWatches = "", nil, nil
	}
	for i := range q.Others {
		forgetView(&q.Others[i])
	}
}

// carryTo adds f's problems of the nodes of q still in the state and wait
// they were found in; a herd the servers saw replaces the one predicted.
func (f *serverFindings) carryTo(q *lockops.Queue) {
	if f == nil || len(f.byNode) == 0 {
		return
	}
	own := len(q.Problems)
	q.Problems = slices.Grow(q.Problems, f.count)
	var herds map[string]bool
	for i := range q.Participants {
		x := &q.Participants[i]
		for _, c := range f.byNode[keyOf(x)] {
			if c.state != x.State || c.watches != x.Watches || c.Node != x.Node {
				continue
			}
			q.Problems = append(q.Problems, c.Problem)
			if c.Kind == lockops.ProblemHerd {
				if herds == nil {
					herds = map[string]bool{}
				}
				herds[c.Node] = true
			}
		}
	}
	if herds != nil {
		predicted := slices.DeleteFunc(q.Problems[:own:own], func(p lockops.Problem) bool {
			return p.Kind == lockops.ProblemHerd && herds[p.Node]
		})
		q.Problems = append(predicted, q.Problems[own:]...)
	}
}

// verified is what verifyLockCmd makes of one answer of the servers.
type verified struct {
	queue    lockops.Queue
	findings *serverFindings
	pings    diagnose.PingWatch
}

// verifyQueue applies the servers' answer ens to raw (the queue of one
// read, a copy made for it: changed) and diagnoses it wholly
// ([diagnose.Lock]: the queue's checks, the servers' and the
// session-level ones, following the lock's sessions into the other lock
// directories they own nodes in), keeping what was found for the reads
// that follow. pings is the pane's record of sessions answering only
// pings, to which ens is added (a copy: the caller keeps the one
// returned).
func verifyQueue(ctx context.Context, c *zkview.Client, raw lockops.Queue, ens *zkview.Ensemble, pings diagnose.PingWatch, now time.Time) verified {
	pings.Add(ens)
	d := diagnose.Lock(ctx, c, raw, ens, diagnose.LockOptions{Now: now, PingOnlySince: pings.Since(), SilentSince: pings.Silent(), HungAfter: sessionHungAfter})
	f := &serverFindings{byNode: map[nodeKey][]carried{}, sessions: d.Sessions}
	at := map[string]int{}
	for i, x := range d.Queue.Participants {
		at[x.Node] = i
	}
	for _, p := range d.Found {
		if i, ok := at[p.Node]; ok {
			x := &d.Queue.Participants[i]
			f.byNode[keyOf(x)] = append(f.byNode[keyOf(x)], carried{Problem: p, state: x.State, watches: x.Watches})
			f.count++
		}
	}
	// The queue as a later read shows it: its own problems, then the
	// carried ones.
	q := d.Queue
	f.carryTo(&q)
	paneWatchers(&q)
	return verified{queue: q, findings: f, pings: pings}
}

// sessionWords are a session-level finding as one line's words after its
// badge: the other locks it spans and its sessions.
func sessionWords(s diagnose.LockSessionProblem) string {
	var b strings.Builder
	if len(s.Others) > 0 {
		b.WriteString("with " + strings.Join(s.Others, ", ") + " · ")
	}
	ids := make([]string, len(s.Sessions))
	for i, id := range s.Sessions {
		ids[i] = lockops.FormatSession(id)
	}
	if len(ids) == 1 {
		b.WriteString("session ")
	} else {
		b.WriteString("sessions ")
	}
	b.WriteString(strings.Join(ids, ", "))
	return b.String()
}
