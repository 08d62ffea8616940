package follow

// A Follow's snapshots, diagnosed a few locks at a time: a lock read
// again since the last snapshot is diagnosed again, with the locks a
// session-deadlock may run through (diagnose.SessionIndex); every lock
// is after a full scan, and after each new answer of the servers (every
// verifyEvery at most) sweepPerFrame a snapshot. A snapshot hands on only
// the locks whose diagnosis changed, and those gone; a consumer keeps
// them in a [Locks].

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/zkview"
)

// sweepPerFrame is how many locks a snapshot judges again of a sweep
// (startSweep), besides those read since the last.
const sweepPerFrame = 500

// Mode is how a [Follow] learns of changes.
type Mode string

const (
	// ModeEvents: one persistent recursive watch on the path (ZooKeeper
	// 3.6+), each event applied to the lock it concerns.
	ModeEvents Mode = "persistent-watches"
	// ModeChildWatches: a children watch on each lock directory (the first
	// maxWatched) and a full scan every interval.
	ModeChildWatches Mode = "watches"
)

// frameState is what a Follow showed: each lock's diagnosed queue (never
// changed once shown: a lock diagnosed again gets a new queue), and what
// decides which locks the next snapshot diagnoses again.
type frameState struct {
	diag  map[string]lockops.Queue
	dirty map[string]bool // locks read (or gone) since the last snapshot
	// all: every lock is diagnosed at the next snapshot (after a scan);
	// whole: the next snapshot hands on every lock (the first, and after
	// a failed scan); sweep: the locks still to be judged again,
	// sweepPerFrame a snapshot (startSweep).
	all, whole bool
	sweep      []string
	diagEns    *zkview.Ensemble     // the servers' answer of the last snapshot
	view       *lockops.ServersView // made from diagEns (viewMade: once made)
	viewMade   bool
	// viewOf is the view each lock of diag was last judged with; timed are
	// the locks of the sweep that time alone may change (sweepHeld): those
	// are diagnosed again whatever the servers say.
	viewOf map[string]*lockops.ServersView
	timed  map[string]bool
	// scratch and one are judged's, reused from lock to lock.
	scratch   []lockops.Participant
	one       [1]lockops.Queue
	sessions  diagnose.SessionIndex
	entangled []string
}

// setRaw makes q lock's queue as read (nil: the lock went away),
// forgetting what was seen of the nodes it no longer has.
func (w *lockWatch) setRaw(lock string, q *lockops.Queue) {
	if old, ok := w.raw[lock]; ok && len(old.Participants) > 0 {
		var keep map[string]bool
		if q != nil {
			keep = make(map[string]bool, len(q.Participants))
			for i := range q.Participants {
				keep[q.Participants[i].Node] = true
			}
		}
		for i := range old.Participants {
			if n := old.Participants[i].Node; !keep[n] {
				delete(w.seen, n)
			}
		}
	}
	if q == nil {
		delete(w.raw, lock)
	} else {
		w.raw[lock] = *q
	}
	w.dirty[lock] = true
	if w.touched != nil {
		w.touched[lock] = true
	}
}

// frame diagnoses what changed since the last snapshot and returns the
// snapshot's queues: the locks whose diagnosis changed (every lock when
// whole), sorted, and the locks gone.
func (w *lockWatch) frame() (queues []lockops.Queue, gone []string, whole bool) {
	if w.ens != w.diagEns || !w.viewMade {
		w.view = diagnose.ViewOf(w.ens)
		w.diagEns, w.viewMade = w.ens, true
		w.startSweep()
	}
	all := w.all
	w.all = false
	redo := w.dirty
	var batch []lockops.Queue
	var swept map[string]bool
	if all {
		w.sweep = w.sweep[:0]
		clear(w.timed)
		redo = make(map[string]bool, len(w.raw)+len(w.diag))
		for p := range w.raw {
			redo[p] = true
		}
		for p := range w.diag {
			redo[p] = true
		}
	} else {
		batch, swept = w.sweepSome(redo)
	}
	batch = slices.Grow(batch, len(redo))
	judged := len(batch) // the sweep's have the samples applied
	for lock := range redo {
		if q, ok := w.raw[lock]; ok {
			if !swept[lock] {
				batch = append(batch, q.Clone())
			}
		} else if old, shown := w.diag[lock]; shown {
			w.sessions.Replace(lock, &old, nil)
			delete(w.diag, lock)
			delete(w.viewOf, lock)
			gone = append(gone, lock)
		}
	}
	diagnose.ApplySamples(batch[judged:], w.samples...)
	for i := range batch {
		var old *lockops.Queue
		if q, ok := w.diag[batch[i].Path]; ok {
			old = &q
		}
		w.sessions.Replace(batch[i].Path, old, &batch[i])
	}
	batch = w.withEntangled(batch, redo)
	sort.Slice(batch, func(i, j int) bool { return batch[i].Path < batch[j].Path })
	diagnose.DiagnoseEach(batch, diagnose.Options{HeldLongerThan: w.o.HeldLongerThan, Ensemble: w.ens, KindsOnly: w.o.KindsOnly}, w.view)
	diagnose.ApplySessionProblems(batch, diagnose.SessionDeadlocks(batch))
	clear(w.dirty)
	changed := batch[:0]
	if w.viewOf == nil {
		w.viewOf = map[string]*lockops.ServersView{}
	}
	for i := range batch {
		// A lock judged the same keeps the queue shown (which its consumer
		// holds too): the new one is dropped, not kept beside it; it was
		// judged with the servers' view of now either way.
		old, ok := w.diag[batch[i].Path]
		w.viewOf[batch[i].Path] = w.view
		if !ok || !sameShown(&old, &batch[i]) {
			w.diag[batch[i].Path] = batch[i]
			changed = append(changed, batch[i])
		}
	}
	slices.Sort(gone)
	if w.whole {
		w.whole = false
		return w.shown(), nil, true
	}
	return changed, gone, false
}

// startSweep queues every lock to be looked at again, sweepPerFrame a
// frame (a new answer of the servers): no frame waits for thousands of
// locks.
func (w *lockWatch) startSweep() {
	w.sweep = w.sweep[:0]
	for p := range w.raw {
		w.sweep = append(w.sweep, p)
	}
}

// sweepSome takes up to sweepPerFrame locks off the sweep that redo does
// not hold already and returns, with the servers' samples applied, those
// to diagnose again: the locks that time alone may change (timed), and
// those whose facts from the servers differ from what their shown queue
// was judged with (viewSame), each put in redo and swept. The others keep
// their shown queue, now judged with the current view.
func (w *lockWatch) sweepSome(redo map[string]bool) (batch []lockops.Queue, swept map[string]bool) {
	swept = map[string]bool{}
	for n := 0; n < sweepPerFrame && len(w.sweep) > 0; n++ {
		lock := w.sweep[len(w.sweep)-1]
		w.sweep = w.sweep[:len(w.sweep)-1]
		q, ok := w.raw[lock]
		timed := w.timed[lock]
		delete(w.timed, lock)
		if !ok || redo[lock] {
			continue // gone, or read again: in redo
		}
		c := w.judged(q)
		if shown, ok := w.diag[lock]; ok && !timed && viewSame(&shown, &c, w.viewOf[lock], w.view) {
			shown.ReadAt = c.ReadAt // as a new diagnosis would be (read again unchanged: rescan.go)
			w.diag[lock], w.viewOf[lock] = shown, w.view
			continue
		}
		redo[lock], swept[lock] = true, true
		batch = append(batch, c.Clone()) // its own, out of the scratch
	}
	return batch, swept
}

// judged is q with the servers' samples applied, its participants in a
// scratch slice of w's (valid until the next call): a lock the sweep
// finds unchanged costs no copy of its own.
func (w *lockWatch) judged(q lockops.Queue) lockops.Queue {
	if len(q.Others) > 0 {
		q = q.Clone() // (a semaphore's or an election's: rare)
	} else {
		q.Participants = append(w.scratch[:0], q.Participants...)
	}
	w.one[0] = q
	diagnose.ApplySamples(w.one[:], w.samples...)
	q, w.one[0] = w.one[0], lockops.Queue{}
	if len(q.Others) == 0 {
		w.scratch = q.Participants[:0]
	}
	return q
}

// sweepHeld queues to be judged again the locks held longer than
// Options.HeldLongerThan at now (by what is known: since seen holding,
// else the node's age): held-too-long is the one check that time alone
// changes (it says for how long), the others change with what is read or
// what the servers say.
func (w *lockWatch) sweepHeld(now time.Time) {
	if w.o.HeldLongerThan <= 0 {
		return
	}
	for p, q := range w.diag {
		for i := range q.Participants {
			h := &q.Participants[i]
			start := h.HeldSince
			if start.IsZero() {
				start = h.Ctime
			}
			if h.State == lockops.StateHolding && !start.IsZero() && now.Sub(start) > w.o.HeldLongerThan {
				w.sweep = append(w.sweep, p)
				if w.timed == nil {
					w.timed = map[string]bool{}
				}
				w.timed[p] = true
				break
			}
		}
	}
}

// withEntangled adds to batch (the locks of redo) the locks a
// session-deadlock may run through now or ran through at the last
// snapshot, so that one found or ended is shown.
func (w *lockWatch) withEntangled(batch []lockops.Queue, redo map[string]bool) []lockops.Queue {
	entangled := w.sessions.Entangled()
	var extra []lockops.Queue
	for _, list := range [][]string{entangled, w.entangled} {
		for _, lock := range list {
			if q, ok := w.raw[lock]; ok && !redo[lock] {
				redo[lock] = true // once, though in both lists
				extra = append(extra, q.Clone())
			}
		}
	}
	w.entangled = entangled
	diagnose.ApplySamples(extra, w.samples...)
	return append(batch, extra...)
}

// shown is every lock as last diagnosed, sorted by path.
func (w *lockWatch) shown() []lockops.Queue {
	out := make([]lockops.Queue, 0, len(w.diag))
	for _, q := range w.diag {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// sameShown reports whether a and b show the same (when each was read
// aside).
func sameShown(a, b *lockops.Queue) bool {
	x, y := *a, *b
	x.ReadAt, y.ReadAt = time.Time{}, time.Time{}
	return x.Equal(&y)
}

// Locks is every lock as a Follow's snapshots showed them, sorted by
// path: a consumer applies each snapshot. The queues are shared, never
// changed: a lock shown again is a new queue.
type Locks struct {
	qs []*lockops.Queue
}

// Apply takes s in: every lock, or (s.Changes) the locks that changed and
// those gone.
func (l *Locks) Apply(s Snapshot) {
	if !s.Changes {
		l.qs = make([]*lockops.Queue, 0, len(s.Queues)) // the old slice may be shared
		for i := range s.Queues {
			q := s.Queues[i]
			l.qs = append(l.qs, &q)
		}
		sort.Slice(l.qs, func(i, j int) bool { return l.qs[i].Path < l.qs[j].Path })
		return
	}
	for _, p := range s.Gone {
		if i, ok := l.find(p); ok {
			l.qs = slices.Delete(l.qs, i, i+1)
		}
	}
	for i := range s.Queues {
		q := s.Queues[i]
		if j, ok := l.find(q.Path); ok {
			l.qs[j] = &q
		} else {
			l.qs = slices.Insert(l.qs, j, &q)
		}
	}
}

// Get is the lock at p, nil when there is none.
func (l *Locks) Get(p string) *lockops.Queue {
	if i, ok := l.find(p); ok {
		return l.qs[i]
	}
	return nil
}

func (l *Locks) find(p string) (int, bool) {
	return slices.BinarySearchFunc(l.qs, p, func(q *lockops.Queue, p string) int { return strings.Compare(q.Path, p) })
}

// All is every lock, sorted by path (shared: Apply changes it in place;
// the queues themselves are never changed).
func (l *Locks) All() []*lockops.Queue { return l.qs }

// Len is how many locks there are.
func (l *Locks) Len() int { return len(l.qs) }

// Queues is every lock, sorted by path, as values (their slices shared).
func (l *Locks) Queues() []lockops.Queue {
	out := make([]lockops.Queue, len(l.qs))
	for i, q := range l.qs {
		out[i] = *q
	}
	return out
}
