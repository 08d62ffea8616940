package follow

// Following the locks: a full scan at start, then only the lock
// directories that changed, each re-read incrementally (lock nodes do not
// change once written): from the persistent watch's events (events.go;
// a scan beside them every scanEveryWhileFollowing intervals, rescan.go),
// or from children watches and a full scan every interval. The servers
// are asked who watches what at most every verifyEvery (seen.go);
// snapshots are diagnosed and handed on a few locks at a time (frame.go).

import (
	"context"
	"errors"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

const (
	// MinInterval is the floor of [Options.Interval]: every interval is a
	// full scan of the path.
	MinInterval = time.Second
	// snapshotEvery is the shortest time between two snapshots: changes
	// in a snapshot's time are shown together.
	snapshotEvery = 100 * time.Millisecond
	// verifyEvery is how often the servers are asked (every member,
	// four-letter words), however busy the locks.
	verifyEvery = 3 * time.Second
	// maxWatched is how many locks get a children watch.
	maxWatched = 200
	// scanEveryWhileFollowing: while the persistent watch brings every
	// change, the path is scanned again every this many intervals (a net
	// under the events); the intervals between judge every lock again.
	scanEveryWhileFollowing = 10
)

// lockWatch is the state of a [Follow].
type lockWatch struct {
	c    *zkview.Client
	path string
	o    Options
	show func(Snapshot) error
	// observer is o.Observer until it fails.
	observer Observer

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
	// verifying: an answer is awaited on verified (verifySoon).
	verifying bool
	verified  chan *zkview.Ensemble
	// seen is what the reads showed of each node: when its wait began
	// and when it began to hold (scanned: the first scan is done; holders
	// it found began before zkscope looked).
	seen    map[string]*nodeSeen
	scanned bool

	changed chan string
	mu      sync.Mutex
	armed   map[string]bool
	// ev is the persistent watch on the path, while it is followed so
	// (events.go); nil: children watches.
	ev *eventFollow
	// touched: the locks read since a scan beside the events began (nil:
	// none runs); its result is taken in a few locks a frame (merge;
	// rescan.go).
	touched map[string]bool
	merge   *merging
	// later brings what reads in the background found (a scan beside the
	// events, a look for plain ephemeral locks), to take in on the loop.
	later chan func()
	// finding: a look for plain ephemeral locks is under way (refresh).
	finding bool
	scans   int // scans in the loop so far
	frameState
}

// Follow shows the locks at or below p (show is given a snapshot after
// every scan, and after every burst of changes) until ctx ends (nil) or
// show fails (its error). A scan that fails is told to failed, and tried
// again an interval later.
func Follow(ctx context.Context, c *zkview.Client, p string, o Options, show func(Snapshot) error, failed func(error)) error {
	o.Interval = max(o.Interval, MinInterval)
	w := &lockWatch{c: c, path: p, o: o, show: show, observer: o.Observer,
		changed: make(chan string, maxWatched*2), armed: map[string]bool{}, caches: map[string]*scan.DirCache{},
		verified: make(chan *zkview.Ensemble), later: make(chan func()),
		frameState: frameState{diag: map[string]lockops.Queue{}, dirty: map[string]bool{}, whole: true}}
	w.startEvents(ctx)
	defer w.stopEvents()
	pending := map[string]bool{}
	var frame <-chan time.Time
	for {
		err := w.scan(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			w.whole = true // the consumer drops what it had: the next snapshot is whole
			failed(err)
		} else if err := w.draw(ctx); err != nil {
			return err
		}
		rescan := time.After(o.Interval)
		refreshes := 0
	between:
		for {
			if frame == nil && (len(w.sweep) > 0 || w.merge != nil) {
				frame = time.After(w.frameEvery()) // the sweep, or a merge, goes on
			}
			select {
			case <-ctx.Done():
				return nil
			case <-rescan:
				if w.ev == nil || err != nil {
					break between // children watches, or the scan failed: scan again
				}
				// Following events: every lock judged again now (times,
				// the servers' view), the path scanned again less often,
				// beside the events (rescan.go).
				if refreshes++; refreshes%scanEveryWhileFollowing == 0 {
					w.scanBeside(ctx)
				}
				w.refresh(ctx)
				if err := w.draw(ctx); err != nil {
					return err
				}
				rescan = time.After(o.Interval)
			case f := <-w.later:
				f()
				frame = soon(frame, w.frameEvery())
			case e := <-w.verified:
				w.takeVerified(e) // every lock judged again, from the next frame
				frame = soon(frame, w.frameEvery())
			case dir := <-w.changed:
				pending[dir] = true
				frame = soon(frame, max(snapshotEvery, w.o.Batch))
			case <-w.ready(frame): // while a frame is due, its events wait for it
				if w.takeEvents() {
					break between // a resync, or the firehose guard: scan again
				}
				if w.ev.filed() {
					frame = soon(frame, w.frameEvery())
				}
			case <-frame:
				frame = nil
				if err != nil {
					continue // the scan failed: nothing to show until one succeeds
				}
				if w.ev != nil && w.takeEvents() {
					break between // as on ready
				}
				w.readChanged(ctx, pending)
				if err := w.draw(ctx); err != nil {
					return err
				}
			}
		}
	}
}

// readChanged reads, for the next frame, what changed: what the events
// touched (following them), the directories whose children watch fired
// (pending, then cleared), and the next locks of a scan beside being
// taken in.
func (w *lockWatch) readChanged(ctx context.Context, pending map[string]bool) {
	w.applyEvents(ctx) // nothing when not following events
	w.mergeSome()      // nothing when no scan beside is being taken in
	w.reread(ctx, pending)
	clear(pending)
}

// frameEvery is the time from a change to the snapshot that shows it,
// following events.
func (w *lockWatch) frameEvery() time.Duration { return max(followFrameEvery, w.o.Batch) }

// soon is frame, or a frame after d when none is due.
func soon(frame <-chan time.Time, d time.Duration) <-chan time.Time {
	if frame == nil {
		return time.After(d)
	}
	return frame
}

// scan reads every lock below the path afresh and watches them; the
// locks' caches are, following events, only what it read (with
// Options.ScanCaches; else none), or those of the locks still there.
func (w *lockWatch) scan(ctx context.Context) error {
	w.scans++
	read, keep := w.scanCaches()
	queues, unreadable, err := scanAll(ctx, w.c, w.path, Options{MaxLeases: w.o.MaxLeases, Depth: w.o.Depth}, 0, keep)
	if err != nil && !errors.Is(err, scan.ErrTruncated) {
		return err
	}
	// Plain ephemeral locks: the path itself, and the ephemeral nodes the
	// servers list sessions watching (their children watch, set below,
	// fires when the node is deleted).
	w.verifyIfDue(ctx)
	if queues, err = scan.FindEphemeralLocks(ctx, w.c, w.path, w.ens, queues); err != nil {
		return scan.PathError(w.path, err)
	}
	w.unreadable = unreadable
	w.recordScan(queues)
	w.raw = make(map[string]lockops.Queue, len(queues))
	w.owner = map[string][]string{}
	for i := range queues {
		w.note(&queues[i])
	}
	w.forgetGone(queues)
	w.scanned, w.all = true, true
	for i, q := range queues {
		w.raw[q.Path] = q
		if i < maxWatched || w.ev != nil { // the persistent watch covers all
			for _, dir := range q.WatchDirs() {
				w.owner[dir] = append(w.owner[dir], q.Path)
				w.arm(ctx, dir)
			}
		}
	}
	w.takeCaches(read)
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
		qs, err := scan.Scan(ctx, w.c, lock, scan.Options{MaxLeases: w.o.MaxLeases})
		if err == nil && len(qs) == 1 {
			w.note(&qs[0])
			w.setRaw(lock, &qs[0])
			w.record(&qs[0], 0)
		}
		for _, d := range q.Dirs() {
			w.arm(ctx, d)
		}
	default:
		w.rereadLock(ctx, lock)
	}
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
			w.setRaw(lock, nil) // the lock directory went away
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
	q := lockops.Decode(d, lockops.DecodeOptions{MaxLeases: w.o.MaxLeases})
	q.ReadAt = time.Now()
	w.note(&q)
	w.setRaw(lock, &q)
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
	w.setRaw(lock, &q)
	w.record(&q, 0)
}

// arm sets a children watch on dir unless one is set (or the persistent
// watch covers it).
func (w *lockWatch) arm(ctx context.Context, dir string) {
	if w.ev != nil {
		return
	}
	w.mu.Lock()
	if w.armed[dir] {
		w.mu.Unlock()
		return
	}
	w.armed[dir] = true
	w.mu.Unlock()
	names, _, ch, err := w.c.Conn().ChildrenW(w.c.Abs(dir))
	if err != nil {
		w.mu.Lock()
		delete(w.armed, dir)
		w.mu.Unlock()
		return
	}
	if w.missed(dir, names) {
		// Changed between the scan's read and this watch: read it again.
		select {
		case w.changed <- dir:
		default:
		}
	}
	go w.await(ctx, dir, ch)
}

// missed says whether the listing names, taken as dir's watch was set,
// holds lock nodes that dir's queue as read lacks, or lacks some it holds.
func (w *lockWatch) missed(dir string, names []string) bool {
	q, ok := w.raw[dir]
	if !ok {
		return false
	}
	known := map[string]bool{}
	for _, p := range q.Participants {
		if !p.WatcherOnly && path.Dir(p.Node) == dir {
			known[p.Name] = true
		}
	}
	listed := 0
	for _, n := range names {
		if !lockops.IsLockDir([]string{n}) {
			continue
		}
		if listed++; !known[n] {
			return true
		}
	}
	return listed != len(known)
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

// draw shows one snapshot: the locks read since the last one (every lock
// after a scan or a new answer of the servers) with the servers' view
// (asked again when due), diagnosed now; handed on when they changed.
func (w *lockWatch) draw(ctx context.Context) error {
	if len(w.raw) > 0 {
		w.verifySoon(ctx)
	}
	queues, gone, whole := w.frame()
	v := verification(len(w.diag), w.ens, w.c.Config().AdminPort, w.o.NoVerify)
	mode := ModeChildWatches
	if w.ev != nil {
		mode = ModeEvents
	}
	return w.show(Snapshot{Queues: queues, Changes: !whole, Gone: gone, Mode: mode, Verification: v, Unreadable: w.unreadable})
}

// refresh is the interval's look at the locks while following events:
// the servers asked again (when due, in the background), the locks
// whose judgement time alone changes judged again (sweepHeld), and the
// plain ephemeral locks the servers' last answer names looked for (in
// the background: no event waits for its reads; takeEphemeral).
func (w *lockWatch) refresh(ctx context.Context) {
	w.verifySoon(ctx)
	w.sweepHeld(time.Now())
	if w.ens == nil || w.finding {
		return
	}
	// Only the locks that decide what it finds (not a copy of every one).
	known := scan.KnownForEphemeral(w.path, w.ens, func(yield func(lockops.Queue) bool) {
		for _, q := range w.raw {
			if !yield(q) {
				return
			}
		}
	})
	w.finding = true
	e := w.ens
	go func() {
		found, err := scan.FindEphemeralLocks(ctx, w.c, w.path, e, known)
		if err != nil || len(found) == len(known) {
			found = nil
		}
		select {
		case w.later <- func() { w.takeEphemeral(ctx, found) }:
		case <-ctx.Done():
		}
	}()
}

// takeEphemeral follows the locks a look for plain ephemeral locks found
// that are not known (yet). Each plain one is read again now that it is
// known: a change between the look's read and now came as an event for
// no lock.
func (w *lockWatch) takeEphemeral(ctx context.Context, found []lockops.Queue) {
	w.finding = false
	for i := range found {
		q := &found[i]
		if _, ok := w.raw[q.Path]; ok {
			continue
		}
		w.note(q)
		w.setRaw(q.Path, q)
		w.record(q, 0)
		for _, dir := range q.WatchDirs() {
			w.owner[dir] = append(w.owner[dir], q.Path)
		}
		if q.Kind == lockops.KindEphemeralLock {
			w.rereadEphemeral(ctx, q.Path)
		}
	}
}

// recordScan records what a full scan found: every lock's queue, and the
// locks of the last scan it no longer found as empty.
func (w *lockWatch) recordScan(queues []lockops.Queue) {
	if w.observer == nil {
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

// record tells the observer q (read now, its directory's pzxid then; 0:
// unknown). A failure stops the observing and is told once.
func (w *lockWatch) record(q *lockops.Queue, pzxid int64) {
	if w.observer == nil {
		return
	}
	if err := w.observer.Observe(q, pzxid, time.Now()); err != nil {
		w.observer = nil
		if w.o.ObserveFailed != nil {
			w.o.ObserveFailed(err)
		}
	}
}
