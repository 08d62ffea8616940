package follow

// Following the locks with one persistent recursive watch on the path
// (ZooKeeper 3.6+, zkview.Follow) instead of a children watch per lock:
// each event goes to the lock it concerns (its directory, a semaphore's
// leases or locks, a plain ephemeral lock's node), which is brought up to
// date from its events alone (scan.ApplyEvents); a node created in a
// directory that is no known lock may have made one; a resync scans the
// path again. Above Options.MaxEventRate events a second the watch is
// dropped for the children watches and the periodic scans (a firehose
// guard), and Options.Note is told.

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

const (
	// DefaultMaxEventRate is [Options.MaxEventRate]'s default.
	DefaultMaxEventRate = 5000
	// followFrameEvery is the shortest time between two snapshots while
	// following events: a change is read and shown after it, a burst
	// together (a snapshot holds only the locks that changed, so it is
	// short; at 200 changes a second, about one lock each).
	followFrameEvery = 10 * time.Millisecond
)

// eventFollow is a [Follow]'s persistent watch and what its events
// touched since the last snapshot.
type eventFollow struct {
	f       *zkview.Follow
	changed map[string][]zkview.FollowEvent // lock -> its events
	fresh   map[string]bool                 // directories that may have become locks
	// count and since: the events of the current second (firehose guard).
	count int
	since time.Time
}

// startEvents sets the persistent watch; o.Note is told when it cannot
// be set.
func (w *lockWatch) startEvents(ctx context.Context) {
	f, err := w.c.Follow(ctx, w.path, true)
	if err != nil {
		reason := err.Error()
		if errors.Is(err, zkview.ErrFollowUnsupported) {
			reason = "the server has no persistent watches (ZooKeeper 3.6+)"
		}
		w.say("following with children watches and rescans: " + reason)
		return
	}
	f.Take() // the first resync: the first scan follows
	w.ev = &eventFollow{f: f, changed: map[string][]zkview.FollowEvent{}, fresh: map[string]bool{}, since: time.Now()}
}

func (w *lockWatch) say(s string) {
	if w.o.Note != nil {
		w.o.Note(s)
	}
}

// stopEvents ends the persistent watch (the firehose guard, or the end).
func (w *lockWatch) stopEvents() {
	if w.ev != nil {
		w.ev.f.Stop()
		w.ev = nil
	}
}

// ready is the channel the events come on: nil when not following them,
// or while frame is due (it takes them).
func (w *lockWatch) ready(frame <-chan time.Time) <-chan struct{} {
	if w.ev == nil || frame != nil {
		return nil
	}
	return w.ev.f.Ready()
}

// filed reports whether events were filed for the next frame to read.
func (ev *eventFollow) filed() bool { return len(ev.changed) > 0 || len(ev.fresh) > 0 }

// takeEvents takes the queued events and files them under their locks.
// rescan says a resync came, or the firehose guard dropped the watch
// (then every lock is watched as before: the caller scans again).
func (w *lockWatch) takeEvents() (rescan bool) {
	ev := w.ev
	evs := ev.f.Take()
	if now := time.Now(); now.Sub(ev.since) >= time.Second {
		ev.count, ev.since = 0, now
	}
	ev.count += len(evs)
	if limit := w.maxEventRate(); ev.count > limit {
		w.stopEvents()
		w.say(fmt.Sprintf("over %d events a second below %s: following with children watches and rescans every %s instead", limit, w.path, w.o.Interval))
		return true
	}
	for _, e := range evs {
		if e.Type == zkview.FollowResync {
			return true
		}
		w.file(e)
	}
	return false
}

func (w *lockWatch) maxEventRate() int {
	if w.o.MaxEventRate > 0 {
		return w.o.MaxEventRate
	}
	return DefaultMaxEventRate
}

// file notes e under the locks it concerns, or its directory as one that
// may have become a lock.
func (w *lockWatch) file(e zkview.FollowEvent) {
	ev := w.ev
	dir := path.Dir(e.Path)
	found := false
	for _, p := range []string{e.Path, dir} {
		if _, ok := w.raw[p]; ok {
			ev.changed[p] = append(ev.changed[p], e)
			found = true
		}
		for _, lock := range w.owner[p] {
			if lock != p {
				ev.changed[lock] = append(ev.changed[lock], e)
				found = true
			}
		}
		if found {
			return
		}
	}
	if e.Type == zkview.FollowCreated {
		ev.fresh[dir] = true
	}
}

// applyEvents reads what the filed events changed: each lock from its
// events (the plain locks' nodes in one bulk read), and the directories
// that may have become locks.
func (w *lockWatch) applyEvents(ctx context.Context) {
	ev := w.ev
	if ev == nil {
		return
	}
	var plain []scan.DirEvents
	for lock, evs := range ev.changed {
		q, ok := w.raw[lock]
		switch {
		case !ok:
		case !fromEvents(q.Kind):
			w.rereadOne(ctx, lock)
		default:
			plain = append(plain, scan.DirEvents{Path: lock, Cache: w.caches[lock], Events: evs})
		}
	}
	clear(ev.changed)
	if len(plain) > 0 {
		for i, r := range scan.ApplyEventsMany(ctx, w.c, plain) {
			w.applyLock(plain[i].Path, r)
		}
	}
	for dir := range ev.fresh {
		if _, known := w.raw[dir]; !known {
			w.maybeLock(ctx, dir)
		}
	}
	clear(ev.fresh)
}

// applyLock brings lock up to date with what its events read.
func (w *lockWatch) applyLock(lock string, r scan.DirApplied) {
	if errors.Is(r.Err, scan.ErrDirGone) {
		w.forgetLock(lock)
		return
	}
	w.caches[lock] = r.Cache // nil after a failure: read whole next time
	if r.Err != nil {
		return // drawn as it was; the next event or scan reads it again
	}
	if q := w.raw[lock]; !q.Kind.SingleNode() && !lockDir(r.Dir) {
		// No lock node left: no lock, as a scan finds it; a node created
		// in it makes it one again (file, maybeLock).
		w.forgetLock(lock)
		return
	}
	w.keep(lock, r.Dir)
}

// scanCaches is, following events with Options.ScanCaches, where a scan
// puts the lock directories it reads (keep, for scanAll), to be taken as
// the locks' caches (takeCaches): the first events of a lock then read
// only what they changed, not the whole directory again. Nil without
// events (a children watch's reread lists the directory anyway).
func (w *lockWatch) scanCaches() (read map[string]*scan.DirCache, keep func(lockops.Dir)) {
	if w.ev == nil || !w.o.ScanCaches {
		return nil, nil
	}
	read = map[string]*scan.DirCache{}
	return read, func(d lockops.Dir) { read[d.Path] = scan.CacheOf(d) }
}

// takeCaches drops the caches of the locks gone after a scan. Following
// events, the caches are only those the scan read (read: of the locks
// read from their events; nil: none, each lock's next events read it
// whole): the events after the scan apply to them, where an older cache
// may lack what a resync's lost events changed.
func (w *lockWatch) takeCaches(read map[string]*scan.DirCache) {
	for p := range w.caches {
		if _, ok := w.raw[p]; !ok || w.ev != nil {
			delete(w.caches, p)
		}
	}
	for p, c := range read {
		if q, ok := w.raw[p]; ok && fromEvents(q.Kind) {
			w.caches[p] = c
		}
	}
}

// fromEvents says whether a lock of kind k is brought up to date from its
// events (scan.ApplyEventsMany), not read again whole (rereadOne).
func fromEvents(k lockops.Kind) bool {
	return k != lockops.KindEphemeralLock && k != lockops.KindCuratorSemaphoreV2 && k != lockops.KindKazooSemaphore
}

// lockDir reports whether d holds a lock's nodes.
func lockDir(d lockops.Dir) bool {
	names := make([]string, len(d.Children))
	for i, k := range d.Children {
		names[i] = k.Name
	}
	return lockops.IsLockDir(names)
}

// maybeLock reads dir, where a node was created, and follows it when it
// is a lock now.
func (w *lockWatch) maybeLock(ctx context.Context, dir string) {
	d, cache, err := scan.ApplyEvents(ctx, w.c, dir, nil, nil)
	if err != nil || !lockDir(d) {
		return
	}
	w.caches[dir] = cache
	w.keep(dir, d)
	q := w.raw[dir]
	for _, sub := range q.WatchDirs() {
		w.owner[sub] = append(w.owner[sub], dir)
	}
}

// keep decodes d as lock's queue, read now.
func (w *lockWatch) keep(lock string, d lockops.Dir) {
	q := lockops.Decode(d, lockops.DecodeOptions{MaxLeases: w.o.MaxLeases})
	q.ReadAt = time.Now()
	w.note(&q)
	w.setRaw(lock, &q)
	w.record(&q, d.Stat.Pzxid)
}

// forgetLock drops a lock whose directory went away.
func (w *lockWatch) forgetLock(lock string) {
	w.setRaw(lock, nil)
	delete(w.caches, lock)
	w.record(&lockops.Queue{Path: lock}, 0)
}
