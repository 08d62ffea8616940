// Package diagnose is the servers' view of locks: what the members say
// (Verify, ApplyEnsemble: clients, watches, the waiters seen only in the
// watch lists), whether a waiter's watch is missing (watch_check.go:
// two samples, ordered by zxid), the problems that need the servers
// ([Diagnose], [Servers]) and those of sessions across locks
// (session_problems.go: wait-for cycles, holders answering only pings
// or nothing), one lock shown alone diagnosed wholly with one answer of
// the servers, its sessions followed into the other lock directories they
// own nodes in ([Lock], for the TUI's lock pane), the sessions' own read
// ([ScanSessions]) and doctor's findings. The checks themselves are the
// recipe model's, over plain values ([lockops.DiagnoseWith]).
//
// It asks the servers through zkview and reads locks through scan; it
// imports no package that acts on locks, nor report, ui or cmd.
package diagnose

import (
	"context"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// Verify asks the servers once (every member: see [zkview.Client.Introspect])
// and fills each participant's Client (its session's address) and, for
// data and exists waits, WatchObserved. It returns what the servers said,
// for [Diagnose].
func Verify(ctx context.Context, c *zkview.Client, queues []lockops.Queue) *zkview.Ensemble {
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
func ApplyEnsemble(e *zkview.Ensemble, queues []lockops.Queue) {
	if e == nil {
		return
	}
	for qi := range queues {
		q := &queues[qi]
		lockops.ApplyWatchers(q, e.Watchers, e.ClientOf) // candidates that own no node (the recipe model's election.go)
		// Which nodes of this lock each session really watches.
		watching := map[int64][]string{}
		for i := range q.Participants {
			p := &q.Participants[i] // (not copied: a long queue is applied on every read)
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
			if p.Watches != "" && (p.WatchKind == lockops.WatchData || p.WatchKind == lockops.WatchExists) {
				p.WatchObserved = nil
				if observed, _ := e.WatchObserved(p.Session, p.Watches); observed {
					p.WatchObserved = &observed
				}
			}
		}
		ApplyEnsemble(e, q.Others)
	}
}

// Options tune [Diagnose] and [Servers].
type Options struct {
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
	// KindsOnly leaves the sentences of the problems of a queue out
	// (lockops.DiagnoseOptions.KindsOnly).
	KindsOnly bool
}

// queueOptions are o's options of the checks of one queue.
func (o Options) queueOptions() lockops.DiagnoseOptions {
	return lockops.DiagnoseOptions{HeldLongerThan: o.HeldLongerThan, Now: o.Now, Herd: o.Herd, KindsOnly: o.KindsOnly}
}

// Diagnose adds to each queue the problems that need more than the names:
// persistent lock nodes, waits the servers do not confirm, long holds,
// several nodes of one session, read→write upgrade deadlocks and herds;
// then, across all of queues, sessions waiting on each other between
// directories and holders answering only pings ([Sessions]), each
// added once, to the queue of its first node.
// Run [Verify] first for the checks that need the servers.
//
// Diagnose is [lockops.DiagnoseQueue] and [Servers] in one pass (the
// problems in the report's order) plus the session-level problems; a
// caller re-reading one lock often (the TUI's lock pane) runs the first
// on every read and the others only when the servers' view changes.
func Diagnose(queues []lockops.Queue, o Options) {
	lockops.DiagnoseWith(queues, o.queueOptions(), ViewOf(o.Ensemble), lockops.QueueChecks|lockops.ServerChecks)
	applySessionProblems(queues, append(waitForCycles(queues), hungHolders(queues, SessionOptions{
		Ensemble: o.Ensemble, PingOnlySince: o.PingOnlySince, HungAfter: o.HungAfter, SilentSince: o.SilentSince})...))
}

// Servers adds to each queue the problems that need what the
// servers said ([Verify], o.Ensemble; nil: only the waits already marked
// unconfirmed): waits no server lists (watch-missing), owners the servers
// no longer know or that have no connection, waiters the servers see
// watching each other, and herds the servers list beyond those the recipe
// predicts. Session-level problems are [Sessions]'.
func Servers(queues []lockops.Queue, o Options) {
	lockops.DiagnoseWith(queues, o.queueOptions(), ViewOf(o.Ensemble), lockops.ServerChecks)
}

// ViewOf is what e (nil: the servers were not asked) says that the checks
// of one queue use ([lockops.DiagnoseWith]), nil for nil.
func ViewOf(e *zkview.Ensemble) *lockops.ServersView {
	if e == nil {
		return nil
	}
	v := &lockops.ServersView{ConnsKnown: allConnsKnown(e), Watchers: e.Watchers}
	v.Sessions, v.SessionsComplete = e.Sessions()
	return v
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
