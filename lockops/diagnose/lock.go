package diagnose

// One lock shown on its own (the TUI's lock pane), diagnosed wholly with
// one answer of the servers: the queue's own checks, the servers' and
// the session-level ones, for which the other lock directories its
// sessions own nodes in are read too (a wait-for cycle through this lock
// passes through them). The caller keeps what was found for the reads
// that follow; this reads, so it runs in a command, never in a UI's
// Update.

import (
	"context"
	"path"
	"slices"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

// Bounds on following a lock's sessions into other lock directories (for
// wait-for cycles across directories): directories read per answer of
// the servers, and rounds (a cycle through n locks needs n-1).
const (
	maxRelatedDirs   = 32
	maxRelatedRounds = 3
)

// LockOptions tune [Lock].
type LockOptions struct {
	Now time.Time
	// PingOnlySince and SilentSince are the sessions answering only pings,
	// and those answering nothing, since when ([PingWatch.Since],
	// [PingWatch.Silent]); HungAfter is how long a holder answers only
	// pings before it is session-hung.
	PingOnlySince map[int64]time.Time
	SilentSince   map[int64]time.Time
	HungAfter     time.Duration
}

// LockDiagnosis is what one answer of the servers says about one read of
// a lock.
type LockDiagnosis struct {
	// Queue is the read with the servers' answer applied and the queue's
	// own problems only: the decoder's and [lockops.DiagnoseQueue]'s.
	Queue lockops.Queue
	// Found are the problems the answer found beyond those: the servers'
	// view's ([Servers]), then each session-level problem once per node
	// of this lock it involves.
	Found []lockops.Problem
	// Sessions are the session-level problems involving this lock's nodes
	// (owner-disconnected aside: it is per node, in Found).
	Sessions []LockSessionProblem
}

// LockSessionProblem is a session-level problem involving a lock's
// nodes: Mine are the nodes of the lock, Others the other lock
// directories it spans (sorted, once each).
type LockSessionProblem struct {
	SessionProblem
	Mine, Others []string
}

// Lock diagnoses raw, one read of the lock at raw.Path (changed: pass a
// copy), with the servers' answer e (nil: none, then no session-level
// check): the queue's checks, the servers' and the session-level ones,
// following the lock's sessions into the other lock directories they own
// nodes in, and theirs in turn, at most maxRelatedDirs directories in
// maxRelatedRounds rounds. Directories that cannot be read are left out
// (the check is best effort; the :sessions view and doctor scan). With
// c nil no other directory is read.
func Lock(ctx context.Context, c *zkview.Client, raw lockops.Queue, e *zkview.Ensemble, o LockOptions) LockDiagnosis {
	qs := []lockops.Queue{raw}
	ApplyEnsemble(e, qs)
	lockops.DiagnoseQueue(qs, lockops.DiagnoseOptions{Now: o.Now})
	own := len(qs[0].Problems)
	Servers(qs, Options{Now: o.Now, Ensemble: e})
	d := LockDiagnosis{Found: slices.Clone(qs[0].Problems[own:])}
	if e != nil {
		all := append(qs, relatedQueues(ctx, c, qs[0], e)...)
		for _, sp := range Sessions(all, SessionOptions{Ensemble: e, PingOnlySince: o.PingOnlySince, HungAfter: o.HungAfter, SilentSince: o.SilentSince}) {
			if sp.Kind == lockops.ProblemOwnerDisconnected {
				continue // already per node (Servers)
			}
			mine, others := splitNodes(sp.Nodes, raw.Path)
			if len(mine) == 0 {
				continue
			}
			d.Sessions = append(d.Sessions, LockSessionProblem{SessionProblem: sp, Mine: mine, Others: others})
			for _, n := range mine {
				d.Found = append(d.Found, lockops.Problem{Kind: sp.Kind, Node: n, Detail: sp.Detail})
			}
		}
	}
	qs[0].Problems = qs[0].Problems[:own]
	d.Queue = qs[0]
	return d
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
// own ephemeral nodes (e's `dump`), and theirs in turn, up to
// maxRelatedDirs directories in maxRelatedRounds rounds: the locks a
// wait-for cycle through q can pass.
func relatedQueues(ctx context.Context, c *zkview.Client, q lockops.Queue, e *zkview.Ensemble) []lockops.Queue {
	if c == nil {
		return nil
	}
	seen := map[string]bool{q.Path: true}
	asked := map[int64]bool{}
	var out []lockops.Queue
	frontier := []lockops.Queue{q}
	for round := 0; round < maxRelatedRounds && len(frontier) > 0 && len(seen) <= maxRelatedDirs; round++ {
		var next []lockops.Queue
		for _, d := range otherDirs(frontier, e, seen, asked) {
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
func otherDirs(queues []lockops.Queue, e *zkview.Ensemble, seen map[string]bool, asked map[int64]bool) []string {
	var out []string
	for _, q := range queues {
		for _, x := range q.Participants {
			if !x.Ephemeral || x.Session == 0 || asked[x.Session] {
				continue
			}
			asked[x.Session] = true
			eph, _ := e.Ephemerals(x.Session)
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
