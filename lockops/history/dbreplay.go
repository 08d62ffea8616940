package history

import (
	"slices"
	"strings"

	"github.com/zkscope/zkscope/lockops"
)

// A database recording replayed: its lines say who arrived waiting, who
// was seen holding and who went, so a lock's queue is its participants
// present (no node to decode): holders in the order they were seen
// holding, then waiters in the order their waits began (the order the
// server grants them).

// DB is the recipe of the database recording replayed ("": a ZooKeeper
// history, or no lock of the recording at or below the root).
func (r *Replay) DB() lockops.Kind { return r.db }

// dbBelow reports whether a database lock (its path and key) is the one
// the replay's root names: the root "/" is every lock; else its path, its
// key, or a path ending in /root (a PostgreSQL key in any database).
func (r *Replay) dbBelow(path, key string) bool {
	return r.root == "/" || path == r.root || key == r.root || strings.HasSuffix(path, "/"+r.root)
}

// applyDB applies a database recording's event: a participant arrives
// waiting (its arrival the server's wait start when known), is seen
// holding, or goes.
func (r *Replay) applyDB(ev Event) {
	d := ev.DB
	if !r.dbBelow(ev.Path, d.Key) {
		return
	}
	r.db = d.Kind
	l := r.locks[ev.Path]
	if l == nil {
		l = &lockLog{path: ev.Path, kind: d.Kind, open: map[string]int{}}
		r.locks[ev.Path] = l
	}
	id := dbIDOf(ev.Path, ev.Session, d.Session.BackendStart, d.Mode).key()
	i, open := l.open[id]
	if open && ev.Kind == EventDBWait && !l.tenures[i].Held.IsZero() {
		l.leave(id, r.at) // holding, then waiting: a new wait (the recorder writes a gone first)
		open = false
	}
	switch {
	case ev.Kind == EventGone:
		if open {
			l.leave(id, r.at)
		}
	case !open:
		t := Tenure{Node: d.Key, Session: ev.Session, Mode: d.Mode, Client: d.Client, Arrived: r.at, End: EndPresent}
		s := d.Session
		t.DB = &s
		if ev.Kind == EventDBWait && !d.Ctime.IsZero() && d.Ctime.Before(r.at.Time) {
			t.Arrived.Time = d.Ctime // the server's wait start, before the read that saw it
		}
		if ev.Kind == EventDBHold {
			t.Held, t.ArrivedSeen = r.at, true
		}
		l.tenures = append(l.tenures, t)
		l.open[id] = len(l.tenures) - 1
	case ev.Kind == EventDBHold && l.tenures[i].Held.IsZero():
		l.tenures[i].Held = r.at
	}
	r.dirty[ev.Path] = true
}

// leave ends the open tenure id at at: gone (a recording does not know why).
func (l *lockLog) leave(id string, at Moment) {
	t := &l.tenures[l.open[id]]
	t.Left, t.End = at, EndGone
	delete(l.open, id)
}

// dbQueue is database lock l's queue as the replay has it now: holders in
// the order they were seen holding (each given that moment when it came
// after the replay's first read), then waiters in the order they began to
// wait; ok is false when nobody is in it.
func (r *Replay) dbQueue(l *lockLog) (lockops.Queue, bool) {
	q := lockops.Queue{Path: l.path, Kind: l.kind, ReadAt: r.last.Time}
	idx := make([]int, 0, len(l.open))
	for _, i := range l.open {
		idx = append(idx, i)
	}
	ts := l.tenures
	slices.SortFunc(idx, func(a, b int) int {
		ha, hb := !ts[a].Held.IsZero(), !ts[b].Held.IsZero()
		switch {
		case ha != hb && ha:
			return -1
		case ha != hb:
			return 1
		case ha && !ts[a].Held.Time.Equal(ts[b].Held.Time):
			return ts[a].Held.Time.Compare(ts[b].Held.Time)
		case !ha && !ts[a].Arrived.Time.Equal(ts[b].Arrived.Time):
			return ts[a].Arrived.Time.Compare(ts[b].Arrived.Time)
		}
		return a - b // seen in that order
	})
	for pos, i := range idx {
		t := &ts[i]
		s := *t.DB
		p := lockops.Participant{Node: t.Node, Name: t.Node, Session: t.Session, Ephemeral: true, Client: t.Client, Mode: t.Mode,
			State: lockops.StateWaiting, Position: pos, Ctime: t.Arrived.Time, DB: &s}
		if !t.Held.IsZero() {
			p.State = lockops.StateHolding
			if r.source != "" && t.Held.Time.After(r.first.Time) {
				p.HeldSince, p.HeldSource = t.Held.Time, r.source
			}
		}
		q.Participants = append(q.Participants, p)
	}
	return q, len(q.Participants) > 0
}
