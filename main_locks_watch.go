package main

// `locks --watch`: a full scan at start and every --interval, and between
// them only the lock directories that changed, each re-read incrementally
// (lock nodes do not change once written). The servers are asked who
// watches what at most every watchVerifyEvery, frames are drawn at most
// every watchFrame.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/history"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

const (
	// minWatchInterval is the floor of --interval: every interval is a
	// full scan of PATH.
	minWatchInterval = time.Second
	// watchFrame is the shortest time between two frames: changes in a
	// frame's time are drawn together.
	watchFrame = 100 * time.Millisecond
	// watchVerifyEvery is how often the servers are asked (every member,
	// four-letter words), however busy the locks.
	watchVerifyEvery = 3 * time.Second
	// maxWatched is how many locks get a children watch.
	maxWatched = 200
)

// lockWatch is the state of `locks --watch`.
type lockWatch struct {
	c      *zkview.Client
	path   string
	f      lockScanFlags
	out    watchOutput
	render func(io.Writer, scanReport) error

	raw        map[string]lockops.Queue // by path, as decoded
	caches     map[string]*scan.DirCache
	owner      map[string][]string // watched directory -> the paths of its locks
	unreadable []lockops.Problem
	// ens is the servers' last answer; samples are their last answers,
	// oldest first, for diagnose.ApplySamples (a watch two of them miss
	// is missing).
	ens        *zkview.Ensemble
	samples    []*zkview.Ensemble
	verifiedAt time.Time
	// seen is what the reads showed of each node: when its wait began
	// and when it began to hold (scanned: the first scan is done; holders
	// it found began before zkscope looked).
	seen    map[string]*nodeSeen
	scanned bool

	changed chan string
	mu      sync.Mutex
	armed   map[string]bool
}

// watchLocks draws the locks at or below p until ctx ends.
func watchLocks(ctx context.Context, c *zkview.Client, out watchOutput, p string, f lockScanFlags, interval time.Duration, render func(io.Writer, scanReport) error) error {
	w := &lockWatch{c: c, path: p, f: f, out: out, render: render,
		changed: make(chan string, maxWatched*2), armed: map[string]bool{}}
	pending := map[string]bool{}
	var frame <-chan time.Time
	for {
		if err := w.scan(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			out.problem(err)
		} else if err := w.draw(ctx); err != nil {
			return err
		}
		rescan := time.After(interval)
	between:
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-rescan:
				break between
			case dir := <-w.changed:
				pending[dir] = true
				if frame == nil {
					frame = time.After(watchFrame)
				}
			case <-frame:
				frame = nil
				w.reread(ctx, pending)
				clear(pending)
				if err := w.draw(ctx); err != nil {
					return err
				}
			}
		}
	}
}

// scan reads every lock below the path afresh (keeping the caches of
// locks still there) and watches them.
func (w *lockWatch) scan(ctx context.Context) error {
	var unreadable []lockops.Problem
	skipped := func(p string, err error) { unreadable = append(unreadable, scan.Unreadable(p, err)) }
	queues, err := scan.Scan(ctx, w.c, w.path, scan.Options{MaxLeases: w.f.maxLeases, Depth: w.f.depth, Skipped: skipped})
	if err != nil && !errors.Is(err, scan.ErrTruncated) {
		return scanError(w.path, err)
	}
	sort.Slice(unreadable, func(i, j int) bool { return unreadable[i].Node < unreadable[j].Node })
	// Plain ephemeral locks: the path itself, and the ephemeral nodes the
	// servers list sessions watching (their children watch, set below,
	// fires when the node is deleted).
	w.verifyIfDue(ctx)
	if queues, err = scan.FindEphemeralLocks(ctx, w.c, w.path, w.ens, queues); err != nil {
		return scanError(w.path, err)
	}
	w.unreadable = unreadable
	w.recordScan(queues)
	w.raw = make(map[string]lockops.Queue, len(queues))
	w.owner = map[string][]string{}
	for i := range queues {
		w.note(&queues[i])
	}
	w.scanned = true
	for i, q := range queues {
		w.raw[q.Path] = q
		if i < maxWatched {
			for _, dir := range watchedDirs(q) {
				w.owner[dir] = append(w.owner[dir], q.Path)
				w.arm(ctx, dir)
			}
		}
	}
	if w.caches == nil {
		w.caches = map[string]*scan.DirCache{}
	}
	for p := range w.caches {
		if _, ok := w.raw[p]; !ok {
			delete(w.caches, p)
		}
	}
	return nil
}

// reread reads the locks whose directories changed: a plain lock only
// its new children (its watch re-armed by the same listing), a semaphore
// through a scan of its path, a plain ephemeral lock its node.
func (w *lockWatch) reread(ctx context.Context, dirs map[string]bool) {
	done := map[string]bool{}
	for dir := range dirs {
		for _, lock := range w.owner[dir] {
			if !done[lock] {
				done[lock] = true
				w.rereadOne(ctx, lock)
			}
		}
	}
}

// rereadOne reads lock again, as its kind needs.
func (w *lockWatch) rereadOne(ctx context.Context, lock string) {
	q := w.raw[lock]
	switch q.Kind {
	case lockops.KindEphemeralLock:
		w.rereadEphemeral(ctx, lock)
	case lockops.KindCuratorSemaphoreV2, lockops.KindKazooSemaphore:
		qs, err := scan.Scan(ctx, w.c, lock, scan.Options{MaxLeases: w.f.maxLeases})
		if err == nil && len(qs) == 1 {
			w.note(&qs[0])
			w.raw[lock] = qs[0]
			w.record(&qs[0], 0)
		}
		for _, d := range q.Dirs() {
			w.arm(ctx, d)
		}
	default:
		w.rereadLock(ctx, lock)
	}
}

// watchedDirs are the directories whose children watch tells a change of
// q: a plain ephemeral lock's parent (its node created or deleted; the
// servers do not list children watches, so zkscope is never counted as
// one of its waiters), else [lockops.Queue.Dirs].
func watchedDirs(q lockops.Queue) []string {
	if q.Kind == lockops.KindEphemeralLock {
		return []string{path.Dir(q.Path)}
	}
	return q.Dirs()
}

// rereadLock lists lock with a new watch and reads its new children.
func (w *lockWatch) rereadLock(ctx context.Context, lock string) {
	w.mu.Lock()
	w.armed[lock] = true
	w.mu.Unlock()
	names, st, ch, err := w.c.Conn().ChildrenW(w.c.Abs(lock))
	if err != nil {
		w.mu.Lock()
		delete(w.armed, lock)
		w.mu.Unlock()
		if errors.Is(err, zk.ErrNoNode) {
			delete(w.raw, lock) // the lock directory went away
			delete(w.caches, lock)
			w.record(&lockops.Queue{Path: lock}, 0)
		}
		return
	}
	go w.await(ctx, lock, ch)
	d, cache, err := scan.ReadDirAgain(ctx, w.c, lock, names, *st, w.caches[lock])
	if err != nil {
		return // drawn as it was; the next change or scan reads it again
	}
	w.caches[lock] = cache
	q := lockops.Decode(d, lockops.DecodeOptions{MaxLeases: w.f.maxLeases})
	q.ReadAt = time.Now()
	w.note(&q)
	w.raw[lock] = q
	w.record(&q, st.Pzxid)
}

// rereadEphemeral reads a plain ephemeral lock's node again (its
// parent's children changed: the node may be deleted or created) and
// watches the parent again. Gone, the lock is drawn free, with the
// sessions the servers list waiting for it.
func (w *lockWatch) rereadEphemeral(ctx context.Context, lock string) {
	w.arm(ctx, path.Dir(lock)) // before the read: a change after it fires
	d := lockops.EphemeralDir(lock, zk.Stat{}, nil)
	n, err := w.c.Get(lock)
	switch {
	case err == nil && n.Stat.EphemeralOwner != 0:
		d = lockops.EphemeralDir(lock, n.Stat, n.Data)
	case err != nil && !errors.Is(err, zk.ErrNoNode):
		return // drawn as it was; the next change or scan reads it again
	}
	q := lockops.Decode(d, lockops.DecodeOptions{Kind: lockops.KindEphemeralLock})
	q.ReadAt = time.Now()
	w.note(&q)
	w.raw[lock] = q
	w.record(&q, 0)
}

// arm sets a children watch on dir unless one is set.
func (w *lockWatch) arm(ctx context.Context, dir string) {
	w.mu.Lock()
	if w.armed[dir] {
		w.mu.Unlock()
		return
	}
	w.armed[dir] = true
	w.mu.Unlock()
	_, _, ch, err := w.c.Conn().ChildrenW(w.c.Abs(dir))
	if err != nil {
		w.mu.Lock()
		delete(w.armed, dir)
		w.mu.Unlock()
		return
	}
	go w.await(ctx, dir, ch)
}

// await reports dir's change once its watch fires.
func (w *lockWatch) await(ctx context.Context, dir string, ch <-chan zk.Event) {
	select {
	case <-ch:
	case <-ctx.Done():
		return
	}
	w.mu.Lock()
	delete(w.armed, dir)
	w.mu.Unlock()
	select {
	case w.changed <- dir:
	case <-ctx.Done():
	}
}

// draw writes one frame: the queues as known, with the servers' view
// (asked again when due) and diagnosed now.
func (w *lockWatch) draw(ctx context.Context) error {
	queues := make([]lockops.Queue, 0, len(w.raw))
	for _, q := range w.raw {
		queues = append(queues, q.Clone())
	}
	sort.Slice(queues, func(i, j int) bool { return queues[i].Path < queues[j].Path })
	if len(queues) > 0 {
		w.verifyIfDue(ctx)
	}
	w.forgetGone(queues)
	diagnose.ApplySamples(queues, w.samples...)
	diagnose.Diagnose(queues, diagnose.Options{HeldLongerThan: w.f.heldLimit, Ensemble: w.ens})
	v := diagnose.Verified(w.ens, w.c.Config().AdminPort)
	if len(queues) == 0 {
		v = diagnose.Verification{Asked: !w.f.noVerify, ClientsKnown: true, WatchesKnown: true}
	}
	r := scanReport{queues: queues, v: v, unreadable: w.unreadable}
	if err := w.out.frame(func(out io.Writer) error { return w.render(out, r) }); err != nil {
		return fmt.Errorf("draw: %w", err)
	}
	return nil
}

// verifyIfDue asks the servers who is connected and watching what, at
// most every watchVerifyEvery (never with --no-verify).
func (w *lockWatch) verifyIfDue(ctx context.Context) {
	if w.f.noVerify || time.Since(w.verifiedAt) < watchVerifyEvery {
		return
	}
	vctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	w.ens, w.verifiedAt = w.c.Introspect(vctx), time.Now()
	cancel()
	w.samples = append(w.samples[max(len(w.samples)-2, 0):], w.ens)
}

// nodeSeen is what `locks --watch` saw of one lock node.
type nodeSeen struct {
	czxid     int64
	watches   string    // the node it waited on when last read
	waitSeen  time.Time // since when it has waited on watches
	holding   bool
	heldSince time.Time // when it was first read holding (zero: at the first scan)
}

// note takes q, just read (ReadAt set), into what was seen of its nodes
// and fills its participants' WaitSeen and HeldSince from it: a wait on
// the same node as before keeps when it was first read; a holder's start
// is the read that first showed it holding, unknown for a holder already
// there at the first scan.
func (w *lockWatch) note(q *lockops.Queue) {
	if w.seen == nil {
		w.seen = map[string]*nodeSeen{}
	}
	for i := range q.Participants {
		p := &q.Participants[i]
		if p.WatcherOnly {
			continue
		}
		m := w.seen[p.Node]
		if m == nil || m.czxid != p.Czxid {
			m = &nodeSeen{czxid: p.Czxid}
			w.seen[p.Node] = m
			if p.State == lockops.StateHolding && w.scanned {
				m.heldSince = q.ReadAt // appeared holding after the first scan
			}
		}
		if p.State == lockops.StateWaiting && (m.watches != p.Watches || m.waitSeen.IsZero()) {
			m.watches, m.waitSeen = p.Watches, q.ReadAt
		}
		if p.State == lockops.StateHolding && !m.holding {
			m.holding = true
			if m.heldSince.IsZero() && !m.waitSeen.IsZero() {
				m.heldSince = q.ReadAt // seen waiting, now holding
			}
		}
		if p.State == lockops.StateWaiting {
			p.WaitSeen = m.waitSeen
		}
		if p.State == lockops.StateHolding && !m.heldSince.IsZero() {
			p.HeldSince, p.HeldSource = m.heldSince, lockops.HeldSeen
		}
	}
}

// forgetGone drops what was seen of nodes no longer in queues.
func (w *lockWatch) forgetGone(queues []lockops.Queue) {
	present := make(map[string]bool, len(w.seen))
	for _, q := range queues {
		for _, p := range q.Participants {
			present[p.Node] = true
		}
	}
	for n := range w.seen {
		if !present[n] {
			delete(w.seen, n)
		}
	}
}

// newRecordFile refuses, before anything connects, a --record FILE that
// exists (a recording is never overwritten) or whose directory does not;
// "" is no recording. startRecording checks again as it creates the file.
func newRecordFile(file string) error {
	if file == "" {
		return nil
	}
	if _, err := os.Lstat(file); err == nil {
		return usagef("--record %s: the file exists; record to a new file (zkscope never overwrites one)", file)
	}
	if st, err := os.Stat(filepath.Dir(file)); err != nil || !st.IsDir() {
		return usagef("--record %s: no directory %s to create it in", file, filepath.Dir(file))
	}
	return nil
}

// startRecording opens FILE for --record (a new file: a recording is
// never overwritten) and writes its header; the returned func closes it.
func (w *watchOutput) startRecording(file, root string, servers []string) (func(), error) {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("--record %s: the file exists; record to a new file (zkscope never overwrites one)", file)
	}
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	rec, err := history.NewRecorder(f, root, servers, time.Now())
	if err != nil {
		f.Close()
		return nil, err
	}
	w.rec = rec
	return func() { rec.Flush(); f.Close() }, nil
}

// recordScan records what a full scan found: every lock's queue, and the
// locks of the last scan it no longer found as empty.
func (w *lockWatch) recordScan(queues []lockops.Queue) {
	if w.out.rec == nil {
		return
	}
	found := make(map[string]bool, len(queues))
	for i := range queues {
		found[queues[i].Path] = true
		w.record(&queues[i], 0)
	}
	for p := range w.raw {
		if !found[p] {
			w.record(&lockops.Queue{Path: p}, 0)
		}
	}
}

// record writes how q (read now, its directory's pzxid then; 0: unknown)
// differs from the last queue of its lock recorded. A failed write stops
// the recording and says so once.
func (w *lockWatch) record(q *lockops.Queue, pzxid int64) {
	if w.out.rec == nil {
		return
	}
	if err := w.out.rec.Observe(q, pzxid, time.Now()); err != nil {
		fmt.Fprintf(w.out.errOut, "zkscope: %s: recording stopped\n", printable.String(err.Error()))
		w.out.rec = nil
	}
}
