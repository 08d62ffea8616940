package history

import (
	"path"
	"sort"
	"strings"

	"github.com/zkscope/zkscope/lockops"
)

// The lock directories the events of one zxid touched, rebuilt from the
// nodes the replay keeps and decoded again with [lockops.Decode]; the
// new queue against the last one makes arrivals, holders and departures.

// lockOf is the lock a directory's children belong to: a semaphore's
// path for the two directories of a semaphore, else the directory.
func (r *Replay) lockOf(dir string) string {
	parent, base := path.Dir(dir), path.Base(dir)
	if (base == lockops.CuratorLeases || base == lockops.CuratorLocks) && r.isCuratorSemaphore(parent) {
		return parent
	}
	if sem, ok := strings.CutSuffix(dir, lockops.KazooSemaphoreLock); ok && r.nodes[sem] != nil {
		return sem
	}
	if e := r.electionOf(dir); e != "" {
		return e
	}
	return dir
}

// isCuratorSemaphore says whether p is a Curator semaphore: its children
// are leases and locks (and maybe its lease count, as a scan sees it), or,
// when p's creation is older than the history, both hold nodes. Once
// known, it stays one while either directory is left: both are
// containers, and the server deletes one the moment it is empty (the
// leases then held are still held).
func (r *Replay) isCuratorSemaphore(p string) bool {
	if k := r.kids[p]; k != nil {
		_, leases := k[lockops.CuratorLeases]
		_, locks := k[lockops.CuratorLocks]
		if l := r.locks[p]; l != nil && l.kind == lockops.KindCuratorSemaphoreV2 && len(k) <= 3 {
			return leases || locks
		}
		return leases && locks && len(k) <= 3
	}
	_, leases := r.kids[lockops.JoinPath(p, lockops.CuratorLeases)]
	_, locks := r.kids[lockops.JoinPath(p, lockops.CuratorLocks)]
	return leases && locks
}

// flush decodes the locks the pending transaction changed and notes what
// changed in their queues.
func (r *Replay) flush() {
	if len(r.dirty) == 0 {
		clear(r.ends)
		return
	}
	paths := make([]string, 0, len(r.dirty))
	for p := range r.dirty {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if l := r.locks[p]; l != nil && l.kind.IsDB() {
			l.queue, _ = r.dbQueue(l)
			if r.o.OnChange != nil {
				r.o.OnChange(r.at, &l.queue)
			}
			continue
		}
		d, ok := r.dirOf(p)
		l := r.locks[p]
		if !ok && l == nil {
			continue
		}
		q := lockops.Decode(d, r.decodeOptions(p))
		if l == nil {
			l = &lockLog{path: p, open: map[string]int{}}
			r.locks[p] = l
		}
		r.adopt(l)
		l.update(q, r.at, r.ends)
		r.heldSince(l, &l.queue)
		if r.o.OnChange != nil {
			r.o.OnChange(r.at, &l.queue)
		}
	}
	clear(r.dirty)
	clear(r.ends)
}

// adopt moves into l the history of the directories that became part of
// it: a semaphore's internal lock, seen as a lock of its own until the
// semaphore's other directory was created (Curator makes locks/ before
// leases/).
func (r *Replay) adopt(l *lockLog) {
	for _, sub := range []string{lockops.JoinPath(l.path, lockops.CuratorLocks), lockops.JoinPath(l.path, lockops.CuratorLeases), l.path + lockops.KazooSemaphoreLock} {
		s := r.locks[sub]
		if s == nil || r.lockOf(sub) != l.path {
			continue
		}
		for i, t := range s.tenures {
			l.tenures = append(l.tenures, t)
			if j, ok := s.open[t.Node]; ok && j == i {
				l.open[t.Node] = len(l.tenures) - 1
			}
		}
		delete(r.locks, sub)
	}
}

// dirOf is the lock at p as [lockops.Decode] wants it, from the nodes the replay
// knows; ok is false when p is not (or no longer) a lock directory.
func (r *Replay) dirOf(p string) (lockops.Dir, bool) {
	switch {
	case r.isCuratorSemaphore(p):
		leases, locks := r.plainDir(lockops.JoinPath(p, lockops.CuratorLeases)), r.plainDir(lockops.JoinPath(p, lockops.CuratorLocks))
		leases.Aux = &locks
		return leases, len(leases.Children)+len(locks.Children) > 0
	case r.nodes[p+lockops.KazooSemaphoreLock] != nil || r.kids[p+lockops.KazooSemaphoreLock] != nil:
		sem, queue := r.plainDir(p), r.plainDir(p+lockops.KazooSemaphoreLock)
		sem.Aux = &queue
		return sem, len(sem.Children)+len(queue.Children) > 0
	}
	if d, ok := r.singleNodeDir(p); ok {
		return d, true
	}
	if r.named[p] == 0 {
		return lockops.Dir{Path: p}, false // no lock node (IsLockDir), without listing
	}
	d := r.plainDirInto(p, r.buf[:0]) // decoded before the next one: its children's slice is reused
	r.buf = d.Children
	if leader := lockops.SolrLeaderOf(p); leader != "" && r.below(leader) {
		d.Context = []lockops.Child{} // read: the leader node, or none
		if n := r.nodes[leader]; n != nil {
			d.Context = append(d.Context, *n)
		}
	}
	return d, true
}

// plainDir is directory p with its children, in no particular order (as
// the servers list them: the decoders sort them as their libraries do,
// ties broken by name).
func (r *Replay) plainDir(p string) lockops.Dir {
	return r.plainDirInto(p, make([]lockops.Child, 0, len(r.kids[p])))
}

// plainDirInto is [Replay.plainDir] with its children appended to buf.
func (r *Replay) plainDirInto(p string, buf []lockops.Child) lockops.Dir {
	d := lockops.Dir{Path: p, Children: buf}
	if n := r.nodes[p]; n != nil {
		d.Data = n.Data
	}
	for _, n := range r.kids[p] {
		d.Children = append(d.Children, *n)
	}
	return d
}

// update notes the differences between l's last queue and q, decoded at
// at: departures (with how each left, from ends), arrivals, new holders.
func (l *lockLog) update(q lockops.Queue, at Moment, ends map[string]Tenure) {
	if len(q.Participants) > 0 || l.kind == "" {
		l.kind = q.Kind // an emptied directory keeps its recipe
	}
	if l.present == nil {
		l.present = make(map[string]int64, len(q.Participants))
	}
	present := l.present // node -> its czxid
	clear(present)
	for i := range q.Participants {
		if p := &q.Participants[i]; !p.WatcherOnly {
			present[p.Node] = p.Czxid
		}
	}
	for node, i := range l.open {
		if czxid, ok := present[node]; ok && (czxid == l.tenures[i].Arrived.Zxid || czxid == 0) {
			continue // (a node deleted and created again in one transaction is a new tenure)
		}
		t := &l.tenures[i]
		end, ok := ends[node]
		if !ok {
			end.End = EndGone
		}
		t.Left, t.End, t.By, t.SessionTimeout, t.LastWrite = at, end.End, end.By, end.SessionTimeout, end.LastWrite
		delete(l.open, node)
	}
	for i := range q.Participants {
		p := &q.Participants[i]
		if p.WatcherOnly {
			continue
		}
		ti, ok := l.open[p.Node]
		if !ok {
			l.tenures = append(l.tenures, Tenure{Node: p.Node, Session: p.Session, Mode: p.Mode, Data: p.Data, Payload: p.Payload.String(),
				Arrived: Moment{Zxid: p.Czxid, Time: p.Ctime}, End: EndPresent})
			ti = len(l.tenures) - 1
			l.open[p.Node] = ti
		}
		t := &l.tenures[ti]
		t.Mode = p.Mode // (a node adopted from a semaphore's internal lock)
		if p.State == lockops.StateHolding && t.Held.IsZero() {
			t.Held = at
			if q.Kind.SingleNode() && p.Mode != lockops.ModeLease {
				t.Held = t.Arrived // its node is the lock: held from its creation
			}
		}
	}
	l.queue = q
}

// Queues are the locks as they are at this point of the replay, decoded
// afresh (sorted by path), as `zkscope locks` would have read them.
func (r *Replay) Queues() []lockops.Queue {
	var out []lockops.Queue
	paths := make([]string, 0, len(r.locks))
	for p := range r.locks {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if l := r.locks[p]; l.kind.IsDB() {
			if q, ok := r.dbQueue(l); ok {
				out = append(out, q)
			}
			continue
		}
		if d, ok := r.dirOf(p); ok {
			q := lockops.Decode(d, r.decodeOptions(p))
			r.heldSince(r.locks[p], &q)
			out = append(out, q)
		}
	}
	return out
}

// heldSince gives the holders of q (l's lock as decoded now) the moment
// the replay saw each begin to hold, where it knows it: after the
// history's first moment (what was there at its start, a snapshot's
// nodes or a recording's first read, held since before it).
func (r *Replay) heldSince(l *lockLog, q *lockops.Queue) {
	if r.source == "" || l == nil {
		return
	}
	for i := range q.Participants {
		p := &q.Participants[i]
		ti, ok := l.open[p.Node]
		if p.State != lockops.StateHolding || p.WatcherOnly || !ok {
			continue
		}
		if t := &l.tenures[ti]; !t.Held.IsZero() && t.Held.Time.After(r.first.Time) {
			p.HeldSince, p.HeldSource = t.Held.Time, r.source
		}
	}
}
