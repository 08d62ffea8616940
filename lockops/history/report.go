package history

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/zkscope/zkscope/lockops"
)

// Options tune [Replay.Report].
type Options struct {
	// Since bounds the tenures reported: those still in their queue at
	// Since or later (zero: all).
	Since Point
	// Until is where the replay was stopped ([ReplayAll]'s until), if it
	// was a time: tenures still open when the replay stopped before it are
	// measured up to Until (nothing happened between the last change and
	// Until).
	Until time.Time
	// WaitedLongerThan flags waits longer than this (0: off).
	WaitedLongerThan time.Duration
	// LongHoldFactor flags holds longer than this many times the lock's
	// usual (median) hold (0: 3). The usual hold needs at least
	// minUsualHolds finished holds.
	LongHoldFactor float64
}

// minUsualHolds is how many finished holds a lock needs before one can be
// called much longer than usual.
const minUsualHolds = 3

// minLongHold is how much longer than usual a hold must also be to be
// flagged: a 30 ms hold is not a problem for being 3 × 10 ms.
const minLongHold = time.Second

// Report is what a replay found: every lock's tenures in order of
// arrival, the waits behind each holder, and the problems.
type Report struct {
	Root string
	// First and Last are the moments the history covers; End is what
	// "now" means for tenures still open (Until, or Last).
	First, Last Moment
	End         time.Time
	Events      int
	Locks       []LockHistory
	// DB is a database recording's recipe ("": ZooKeeper's history): its
	// moments have no zxid, its sessions are backends.
	DB lockops.Kind
}

// LockHistory is one lock's history.
type LockHistory struct {
	Path string
	Kind lockops.Kind
	// Tenures are its nodes in order of arrival.
	Tenures []Tenure
	// Behind lists, for each tenure that held (same index as Tenures),
	// the waiters that waited while it held and for how long.
	Behind [][]Wait
	// UsualHold is the median of its finished holds (0: fewer than
	// minUsualHolds).
	UsualHold time.Duration
	Problems  []lockops.Problem
}

// Wait is one waiter's time behind one holder.
type Wait struct {
	Tenure int // index in LockHistory.Tenures
	For    time.Duration
}

// Report builds the history report of what was replayed.
func (r *Replay) Report(o Options) Report {
	if o.LongHoldFactor <= 0 {
		o.LongHoldFactor = 3
	}
	rep := Report{Root: r.root, First: r.first, Last: r.last, End: r.last.Time, Events: r.events, DB: r.db}
	if r.db != "" && r.root == "/" {
		rep.Root = "" // a database's locks have no root: every lock
	}
	if !o.Until.IsZero() && r.cut {
		rep.End = o.Until
	}
	paths := make([]string, 0, len(r.locks))
	for p := range r.locks {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		l := r.locks[p]
		h := LockHistory{Path: p, Kind: l.kind, UsualHold: usualHold(l.tenures)}
		for _, t := range l.tenures {
			if overlaps(&t, o.Since, rep.End) {
				h.Tenures = append(h.Tenures, t)
			}
		}
		if len(h.Tenures) == 0 {
			continue
		}
		sort.SliceStable(h.Tenures, func(i, j int) bool { return h.Tenures[i].Arrived.Zxid < h.Tenures[j].Arrived.Zxid })
		h.Behind = waitsBehind(h.Tenures, rep.End)
		h.Problems = historyProblems(&h, rep.End, o)
		rep.Locks = append(rep.Locks, h)
	}
	return rep
}

// overlaps reports whether t was in its queue at some time of [since, end].
func overlaps(t *Tenure, since Point, end time.Time) bool {
	switch {
	case t.Arrived.Time.After(end):
		return false
	case t.Left.IsZero():
		return true
	case since.Zxid != 0:
		return t.Left.Zxid >= since.Zxid
	}
	return !t.Left.Time.Before(since.Time)
}

// usualHold is the median of the finished holds, 0 with fewer than
// minUsualHolds of them.
func usualHold(ts []Tenure) time.Duration {
	var holds []time.Duration
	for i := range ts {
		if t := &ts[i]; !t.Held.IsZero() && !t.Left.IsZero() {
			holds = append(holds, t.HeldFor(time.Time{}))
		}
	}
	if len(holds) < minUsualHolds {
		return 0
	}
	slices.Sort(holds)
	return holds[len(holds)/2]
}

// waitsBehind finds, for each holder, the waiters whose wait overlapped
// its hold, and for how long, in order of arrival. It sweeps the holds in
// the order they began with the waits begun before each hold ended: a wait
// over before a hold began is over for every later hold too, so the work
// is the waits in the queue at each hold, not all the tenures.
func waitsBehind(ts []Tenure, end time.Time) [][]Wait {
	out := make([][]Wait, len(ts))
	var holders, waits []int
	for i := range ts {
		if !ts[i].Held.IsZero() {
			holders = append(holders, i)
		}
		if ts[i].waitEnd(end).After(ts[i].Arrived.Time) {
			waits = append(waits, i)
		}
	}
	sort.SliceStable(holders, func(a, b int) bool { return ts[holders[a]].Held.Time.Before(ts[holders[b]].Held.Time) })
	sort.SliceStable(waits, func(a, b int) bool { return ts[waits[a]].Arrived.Time.Before(ts[waits[b]].Arrived.Time) })
	var active []int
	next := 0
	for _, hi := range holders {
		from, to := ts[hi].Held.Time, ts[hi].holdEnd(end)
		for ; next < len(waits) && ts[waits[next]].Arrived.Time.Before(to); next++ {
			active = append(active, waits[next])
		}
		keep := active[:0]
		for _, wi := range active {
			if ts[wi].waitEnd(end).After(from) {
				keep = append(keep, wi)
			}
		}
		active = keep
		for _, wi := range active {
			w := &ts[wi]
			start, stop := maxTime(w.Arrived.Time, from), minTime(w.waitEnd(end), to)
			if wi != hi && stop.After(start) {
				out[hi] = append(out[hi], Wait{Tenure: wi, For: stop.Sub(start)})
			}
		}
	}
	return out
}

// maxTime and minTime are the later and the earlier of two times.
func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// historyProblems are what the history shows wrong with a lock: holds far
// longer than usual, holders whose session expired, long waits,
// force-deletes; in order of arrival.
func historyProblems(h *LockHistory, end time.Time, o Options) []lockops.Problem {
	var out []lockops.Problem
	for i := range h.Tenures {
		t := &h.Tenures[i]
		n := len(out)
		if held := t.HeldFor(end); h.UsualHold > 0 && !t.Held.IsZero() &&
			float64(held) > o.LongHoldFactor*float64(h.UsualHold) && held-h.UsualHold >= minLongHold {
			out = append(out, lockops.Problem{Kind: lockops.ProblemHeldLongerThanUsual, Node: t.Node,
				Detail: fmt.Sprintf("held %s from %s, %.0f× the lock's usual hold of %s", fmtDur(held), fmtClock(t.Held.Time), float64(held)/float64(h.UsualHold), fmtDur(h.UsualHold))})
		}
		if t.End == EndSessionExpired && !t.Held.IsZero() {
			out = append(out, lockops.Problem{Kind: lockops.ProblemHolderExpired, Node: t.Node,
				Detail: "held since " + fmtClock(t.Held.Time) + " until its session expired at " + fmtClock(t.Left.Time) + " (" + sessionEndDetail(t) + "): the client crashed, paused or was cut off while holding, and may not know it lost the lock"})
		}
		if w := t.Waited(end); o.WaitedLongerThan > 0 && w > o.WaitedLongerThan {
			out = append(out, lockops.Problem{Kind: lockops.ProblemWaitedTooLong, Node: t.Node,
				Detail: fmt.Sprintf("waited %s from %s (longer than %s)", fmtDur(w), fmtClock(t.Arrived.Time), o.WaitedLongerThan)})
		}
		if t.End == EndSessionTerminated {
			out = append(out, lockops.Problem{Kind: lockops.ProblemForceDeleted, Node: t.Node,
				Detail: "removed at " + fmtClock(t.Left.Time) + " when the server ended its session " + lockops.FormatSession(t.Session) + ", which had written " + fmtDur(t.Left.Time.Sub(t.LastWrite.Time)) + " before, within its timeout of " + fmtDur(t.SessionTimeout) + ": not an expiry (an operator's terminateSession?)"})
		}
		if t.End == EndForceDeleted {
			what := "waiting"
			if !t.Held.IsZero() {
				what = "holding"
			}
			out = append(out, lockops.Problem{Kind: lockops.ProblemForceDeleted, Node: t.Node,
				Detail: fmt.Sprintf("deleted at %s by session %s while %s (its owner is %s)", fmtClock(t.Left.Time), lockops.FormatSession(t.By), what, lockops.FormatSession(t.Session))})
		}
		for k := n; k < len(out) && t.DB != nil; k++ { // a database lock's participants share its key: name the backend
			out[k].Detail = "backend " + strconv.FormatInt(t.Session, 10) + " " + out[k].Detail
		}
	}
	return out
}

// sessionEndDetail says what the log showed of a session that ended:
// its timeout and last write.
func sessionEndDetail(t *Tenure) string {
	s := "timeout "
	if t.SessionTimeout > 0 {
		s += fmtDur(t.SessionTimeout)
	} else {
		s += "unknown (created before the log)"
	}
	if t.LastWrite.IsZero() {
		return s + ", no write of it in the log"
	}
	return s + ", last write " + fmtClock(t.LastWrite.Time) + ", " + fmtDur(t.Left.Time.Sub(t.LastWrite.Time)) + " before"
}

// fmtDur prints a duration to the millisecond under a minute, else as
// [lockops.FormatAge].
func fmtDur(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Millisecond).String()
	}
	return lockops.FormatAge(d)
}

// fmtClock prints a moment's time of day in UTC, to the millisecond.
func fmtClock(t time.Time) string { return t.UTC().Format("15:04:05.000") }
