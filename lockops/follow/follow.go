// Package follow reads the locks at or below a path as decoded,
// verified and diagnosed snapshots: once ([Read], for `zkscope locks` and
// `doctor`), or as they change ([Follow], for `locks --watch` and the
// exporter): a full scan at start, then the events of one persistent
// recursive watch (or the children watches of the lock directories and a
// scan every interval), each lock read again from what changed, diagnosed
// again only when read, and handed on only when its diagnosis changed
// (frame.go; a consumer keeps them in a [Locks]).
// It imports scan and diagnose (and the recipe model), never report, ui
// or the commands: what a snapshot looks like on a screen is the
// caller's.
package follow

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

// Options say how the locks are read and judged.
type Options struct {
	// MaxLeases is a semaphore's lease count (0: inferred).
	MaxLeases int
	// Depth is how many levels below the path to search (0: all).
	Depth int
	// HeldLongerThan flags holders older than this (0: never).
	HeldLongerThan time.Duration
	// NoVerify does not ask the servers who is connected and watching.
	NoVerify bool
	// HungAfter ([Read]): sample the members' connections twice this far
	// apart; a holder that answered only pings (or nothing) between them
	// is session-hung (0: off).
	HungAfter time.Duration
	// Progress ([Read]), when not nil, is told how far the scan got.
	Progress Progress
	// Reading ([Read]), when not nil, is told of each lock directory
	// about to be read and its number of children ([scan.Options.Reading]).
	Reading func(path string, children int)
	// Interval ([Follow]) is how often the whole path is scanned again
	// (at least [MinInterval]).
	Interval time.Duration
	// Observer ([Follow]), when not nil, is told every queue read; when
	// it fails, ObserveFailed is told once and observing stops.
	Observer      Observer
	ObserveFailed func(error)
	// MaxEventRate ([Follow]): above this many events a second below the
	// path, the persistent watch is dropped for children watches and the
	// periodic scans (0: [DefaultMaxEventRate]).
	MaxEventRate int
	// Note ([Follow]), when not nil, is told why the locks are followed
	// with children watches rather than a persistent watch.
	Note func(string)
	// Batch ([Follow]), when longer than the default (10 ms following
	// events, 100 ms with children watches), is how long the changes
	// after a quiet moment are gathered before one snapshot reads and
	// shows them all: fewer, larger snapshots (fewer reads of the servers
	// and wakeups, less CPU) for a consumer that needs them no sooner.
	Batch time.Duration
	// KindsOnly: the problems of the locks come without their sentences
	// (Detail ""), for a consumer that only counts them by kind (the
	// exporter): no sentence per node kept, and a lock whose sentences
	// alone changed (a hold's length) is not handed on again.
	KindsOnly bool
	// ScanCaches ([Follow], following events): a scan's reads of the lock
	// directories are kept as their caches, so that each lock's first
	// events read only what they changed, not the whole directory again
	// (a listing and every node): less CPU in the first minutes, for the
	// memory of every lock's nodes from the start (about 2 kB a lock of
	// 14 nodes) rather than only of those that changed.
	ScanCaches bool
	// VerifyEvery ([Follow]), when longer than the default (3 s), is how
	// often at most the servers are asked who is connected and watching
	// what; each answer judges every lock again.
	VerifyEvery time.Duration
}

// Progress is told how far a scan got and when it ends (a command draws
// it as a progress line).
type Progress interface {
	Update(nodes, locks int)
	Done()
}

// Observer is told each queue as it was read (at: when; pzxid: its
// directory's then, 0 when unknown); a history.Recorder is one.
type Observer interface {
	Observe(q *lockops.Queue, pzxid int64, at time.Time) error
}

// Snapshot is what one look at the locks found.
type Snapshot struct {
	// Queues are the locks, sorted by path: every lock ([Read], and a
	// [Follow]'s first snapshot and any after a failed scan), or (Changes)
	// only those whose queue or problems changed since the previous one.
	Queues []lockops.Queue
	// Changes ([Follow]): Queues holds only the locks that changed, and
	// Gone the paths of those that went away, sorted; a [Locks] applies
	// them.
	Changes bool
	Gone    []string
	// Mode ([Follow]) is how the locks are followed now.
	Mode Mode
	// Verification says what the servers could not confirm (clients,
	// watches) and why.
	Verification diagnose.Verification
	// Unreadable are the subtrees the session may not read, or that
	// vanished meanwhile, as [lockops.ProblemUnreadable] problems.
	Unreadable []lockops.Problem
	// Ensemble is what the servers said ([Read]; nil when not asked).
	Ensemble *zkview.Ensemble
}

// Read reads, verifies and diagnoses every lock at or below p. A scan
// cut short ([scan.ErrTruncated]) returns what it found with that error.
func Read(ctx context.Context, c *zkview.Client, p string, o Options) (Snapshot, error) {
	c.PrepareBulk() // the bulk-read session's handshake overlaps the first listing
	var first *zkview.Ensemble
	if o.HungAfter > 0 {
		first = c.Introspect(ctx) // the first of the two samples
	}
	queues, unreadable, err := scanAll(ctx, c, p, o, 0, nil)
	if err != nil && !errors.Is(err, scan.ErrTruncated) {
		return Snapshot{}, err
	}
	if first != nil && !waitUntil(ctx, first.End.Add(o.HungAfter)) {
		return Snapshot{}, ctx.Err()
	}
	var e *zkview.Ensemble
	if !o.NoVerify {
		e = c.Introspect(ctx)
	}
	// Plain ephemeral locks: p itself, and the ephemeral nodes the servers
	// list sessions watching.
	queues, ferr := scan.FindEphemeralLocks(ctx, c, p, e, queues)
	if ferr != nil {
		return Snapshot{}, scan.PathError(p, ferr)
	}
	// A watch the servers do not list is missing only when a second
	// sample, taken a moment later, misses it too (ConfirmWatches asks
	// only when the first misses one it may judge).
	var prev, cur *zkview.Ensemble
	if e != nil {
		var cerr error
		if prev, cur, cerr = diagnose.ConfirmWatches(ctx, c, e, queues, o.MaxLeases); cerr != nil {
			return Snapshot{}, cerr
		}
	}
	diagnose.ApplySamples(queues, prev, cur)
	do := diagnose.Options{HeldLongerThan: o.HeldLongerThan, Ensemble: cur, KindsOnly: o.KindsOnly}
	if first != nil {
		do.PingOnlySince, do.HungAfter = diagnose.PingOnlySince(first, e), o.HungAfter
		do.SilentSince = diagnose.SilentSince(first, e)
	}
	diagnose.Diagnose(queues, do)
	v := verification(len(queues), cur, c.Config().AdminPort, o.NoVerify)
	return Snapshot{Queues: queues, Verification: v, Unreadable: unreadable, Ensemble: cur}, err
}

// scanAll scans the locks at or below p, with o's progress, inFlight
// batches of reads in flight at most (0: as many as the connection
// takes), each lock directory read given to dirs when not nil
// ([scan.Options.Dirs]); the subtrees it could not read come back as
// problems, sorted by node.
func scanAll(ctx context.Context, c *zkview.Client, p string, o Options, inFlight int, dirs func(lockops.Dir)) ([]lockops.Queue, []lockops.Problem, error) {
	var unreadable []lockops.Problem
	skipped := func(p string, err error) { unreadable = append(unreadable, scan.Unreadable(p, err)) }
	so := scan.Options{MaxLeases: o.MaxLeases, Depth: o.Depth, Skipped: skipped, Reading: o.Reading, InFlight: inFlight, Dirs: dirs}
	if o.Progress != nil {
		so.Progress = o.Progress.Update
	}
	queues, err := scan.Scan(ctx, c, p, so)
	if o.Progress != nil {
		o.Progress.Done()
	}
	if err != nil && !errors.Is(err, scan.ErrTruncated) {
		return nil, nil, scan.PathError(p, err)
	}
	sort.Slice(unreadable, func(i, j int) bool { return unreadable[i].Node < unreadable[j].Node })
	return queues, unreadable, err
}

// verification is what the servers' answer e confirms of the locks (how
// many); with no lock, there is nothing to confirm.
func verification(locks int, e *zkview.Ensemble, adminPort int, noVerify bool) diagnose.Verification {
	if locks == 0 {
		return diagnose.Verification{Asked: !noVerify, ClientsKnown: true, WatchesKnown: true}
	}
	return diagnose.Verified(e, adminPort)
}

// waitUntil waits until t or ctx's end, reporting whether t came.
func waitUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}
