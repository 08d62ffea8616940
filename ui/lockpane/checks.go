package lockpane

import (
	"context"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

// The lock's diagnosis, split by what it needs. A churning lock is read
// up to ten times a second, but the servers are asked at most every
// reverifyEvery: the queue's own checks (lockops.DiagnoseQueue) run on
// every read, while those that need the servers' view
// (diagnose.Servers) and the session-level ones (wait-for cycles
// across directories, holders answering only pings) run once per answer
// of the servers. Their problems are carried to the reads that follow,
// for the nodes still there and unchanged (same state, same wait): what
// the servers said is about those nodes only.

// serverFindings is what one answer of the servers found about the shown
// lock: per node, the problems carried to later reads, and the
// session-level problems that involve its nodes (drawn as their own lines
// with the other locks' paths).
type serverFindings struct {
	byNode   map[nodeKey][]carried
	count    int // problems in byNode
	sessions []sessionFinding
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

// sessionFinding is a session-level problem involving the shown lock,
// with the other lock directories it spans.
type sessionFinding struct {
	diagnose.SessionProblem
	mine, others []string
}

// sessionHungAfter is how long a holder answering only pings is marked
// session-hung (as in the :sessions view); a variable so that a test on a
// real server need not wait a minute.
var sessionHungAfter = time.Minute

// Bounds on following the shown lock's sessions into other lock
// directories (for wait-for cycles across directories): directories read
// per answer of the servers, and rounds (a cycle through n locks needs
// n-1).
const (
	maxRelatedDirs   = 32
	maxRelatedRounds = 3
)

// viewedQueue is the decoded queue q (the caller's to change: a fresh
// decode, not copied again) with the servers' last view ens applied (nil:
// none), the queue's own checks as of now and the problems found when the
// servers last answered (f) for the nodes they still concern.
func viewedQueue(q lockops.Queue, ens *zkview.Ensemble, f *serverFindings, now time.Time) lockops.Queue {
	qs := []lockops.Queue{q}
	diagnose.ApplyEnsemble(ens, qs)
	lockops.DiagnoseQueue(qs, lockops.DiagnoseOptions{Now: now})
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
// read, a copy made for it: changed) and diagnoses it wholly: the queue's checks, the servers' and the
// session-level ones, following the lock's sessions into the other lock
// directories they own nodes in. pings is the pane's record of sessions
// answering only pings, to which ens is added (a copy: the caller keeps
// the one returned).
func verifyQueue(ctx context.Context, c *zkview.Client, raw lockops.Queue, ens *zkview.Ensemble, pings diagnose.PingWatch, now time.Time) verified {
	qs := []lockops.Queue{raw}
	diagnose.ApplyEnsemble(ens, qs)
	lockops.DiagnoseQueue(qs, lockops.DiagnoseOptions{Now: now})
	own := len(qs[0].Problems)
	diagnose.Servers(qs, diagnose.Options{Now: now, Ensemble: ens})
	f := &serverFindings{byNode: map[nodeKey][]carried{}}
	at := map[string]int{}
	for i, x := range qs[0].Participants {
		at[x.Node] = i
	}
	keep := func(p lockops.Problem) {
		if i, ok := at[p.Node]; ok {
			x := &qs[0].Participants[i]
			f.byNode[keyOf(x)] = append(f.byNode[keyOf(x)], carried{Problem: p, state: x.State, watches: x.Watches})
			f.count++
		}
	}
	for _, p := range qs[0].Problems[own:] {
		keep(p)
	}
	pings.Add(ens)
	if ens != nil {
		all := append(qs, relatedQueues(ctx, c, qs[0], ens)...)
		for _, sp := range diagnose.Sessions(all, diagnose.SessionOptions{Ensemble: ens, PingOnlySince: pings.Since(), HungAfter: sessionHungAfter, SilentSince: pings.Silent()}) {
			if sp.Kind == lockops.ProblemOwnerDisconnected {
				continue // already per node (diagnose.Servers)
			}
			mine, others := splitNodes(sp.Nodes, raw.Path)
			if len(mine) == 0 {
				continue
			}
			f.sessions = append(f.sessions, sessionFinding{SessionProblem: sp, mine: mine, others: others})
			for _, n := range mine {
				keep(lockops.Problem{Kind: sp.Kind, Node: n, Detail: sp.Detail})
			}
		}
	}
	// The queue as a later read shows it: its own problems, then the
	// carried ones.
	qs[0].Problems = qs[0].Problems[:own]
	f.carryTo(&qs[0])
	paneWatchers(&qs[0])
	return verified{queue: qs[0], findings: f, pings: pings}
}

// splitNodes parts nodes into those of the lock directory dir and the
// other lock directories (sorted, once each).
func splitNodes(nodes []string, dir string) (mine, others []string) {
	for _, n := range nodes {
		if d := path.Dir(n); d == dir {
			mine = append(mine, n)
		} else if !slices.Contains(others, d) {
			others = append(others, d)
		}
	}
	slices.Sort(others)
	return mine, others
}

// relatedQueues reads the other lock directories where the sessions of q
// own ephemeral nodes (ens's `dump`), and theirs in turn, up to
// maxRelatedDirs directories in maxRelatedRounds rounds: the locks a
// wait-for cycle through q can pass. Directories that cannot be read are
// left out (the check is best effort; the :sessions view and doctor scan).
func relatedQueues(ctx context.Context, c *zkview.Client, q lockops.Queue, ens *zkview.Ensemble) []lockops.Queue {
	if c == nil {
		return nil
	}
	seen := map[string]bool{q.Path: true}
	asked := map[int64]bool{}
	var out []lockops.Queue
	frontier := []lockops.Queue{q}
	for round := 0; round < maxRelatedRounds && len(frontier) > 0 && len(seen) <= maxRelatedDirs; round++ {
		var next []lockops.Queue
		for _, d := range otherDirs(frontier, ens, seen, asked) {
			if len(seen) > maxRelatedDirs || ctx.Err() != nil {
				break
			}
			seen[d] = true
			raw, err := scan.ReadDir(ctx, c, d)
			if err != nil {
				continue
			}
			rq := lockops.Decode(raw, lockops.DecodeOptions{})
			rq.Path = d
			next = append(next, rq)
		}
		out = append(out, next...)
		frontier = next
	}
	return out
}

// otherDirs lists, sorted, the directories not yet seen holding an
// ephemeral lock node of a session of queues not yet asked about.
func otherDirs(queues []lockops.Queue, ens *zkview.Ensemble, seen map[string]bool, asked map[int64]bool) []string {
	var out []string
	for _, q := range queues {
		for _, x := range q.Participants {
			if !x.Ephemeral || x.Session == 0 || asked[x.Session] {
				continue
			}
			asked[x.Session] = true
			eph, _ := ens.Ephemerals(x.Session)
			for _, n := range eph {
				d := path.Dir(n)
				if !seen[d] && !slices.Contains(out, d) && lockops.IsLockDir([]string{path.Base(n)}) {
					out = append(out, d)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// words are a session-level finding as one line's words after its badge:
// the other locks it spans and its sessions.
func (s sessionFinding) words() string {
	var b strings.Builder
	if len(s.others) > 0 {
		b.WriteString("with " + strings.Join(s.others, ", ") + " · ")
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
