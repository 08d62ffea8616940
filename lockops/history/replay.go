package history

import (
	"io"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/zkscope/zkscope/lockops"
)

// ReplayOptions tune a [Replay].
type ReplayOptions struct {
	// MaxLeases is passed to semaphore decoding (see [lockops.DecodeOptions]).
	MaxLeases int
	// OnChange, when set, is told each new state of a lock, after the
	// events of one transaction changed it. The queue is the replay's
	// own: clone it to keep it past the call.
	OnChange func(at Moment, q *lockops.Queue)
}

// LockState is one lock's queue as it was at a moment of a history.
type LockState struct {
	At    Moment
	Queue lockops.Queue
}

// Replay rebuilds the locks at or below a path over time from history
// events: it keeps the nodes below the path, and at each transaction that
// changes a lock directory decodes the directory again ([lockops.Decode], as
// `zkscope locks` does) and notes who arrived, who became a holder and who
// left, and why ([Tenure]). Feed it with [Replay.Apply] in order, then
// [Replay.Finish].
type Replay struct {
	root string
	o    ReplayOptions

	nodes  map[string]*lockops.Child            // the nodes at or below root, by path
	kids   map[string]map[string]*lockops.Child // a directory's children, by name
	owned  map[int64]map[string]struct{}        // ephemeral nodes below root, by owner
	named  map[string]int                       // a directory's children named like lock nodes
	sess   map[int64]*SessionInfo               // open sessions
	locks  map[string]*lockLog
	buf    []lockops.Child // the children of the directory decoded last (Queue keeps no *Child)
	first  Moment
	last   Moment
	events int
	cut    bool // ReplayAll stopped before an event past its until

	// The transaction being applied: its moment, the locks it changed and
	// how each node it removed left.
	at    Moment
	dirty map[string]bool
	ends  map[string]Tenure

	// source says where the events come from ([lockops.HeldTxnlog] or
	// [lockops.HeldRecording], set by [ReplayAll]; "": holders' starts are not
	// given to the queues).
	source lockops.HeldSource
}

// lockLog is one lock's history so far.
type lockLog struct {
	path    string
	kind    lockops.Kind
	tenures []Tenure
	open    map[string]int   // present nodes: their tenure's index
	present map[string]int64 // update's scratch: the nodes decoded, their czxid
	queue   lockops.Queue    // the last decoded queue
}

// NewReplay starts an empty replay of the locks at or below root.
func NewReplay(root string, o ReplayOptions) *Replay {
	if root == "" {
		root = "/"
	}
	return &Replay{root: root, o: o,
		nodes: map[string]*lockops.Child{}, kids: map[string]map[string]*lockops.Child{},
		owned: map[int64]map[string]struct{}{}, named: map[string]int{}, sess: map[int64]*SessionInfo{},
		locks: map[string]*lockLog{}, dirty: map[string]bool{}, ends: map[string]Tenure{}}
}

// ReplayAll applies every event of src up to until (zero: all of them)
// and finishes the replay.
func ReplayAll(src EventSource, root string, until Point, o ReplayOptions) (*Replay, error) {
	r := NewReplay(root, o)
	r.source = lockops.HeldTxnlog
	if _, ok := src.(*recordingSource); ok {
		r.source = lockops.HeldRecording
	}
	if s, ok := src.(Seeder); ok {
		if err := s.Seed(r); err != nil {
			return r, err
		}
	}
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			r.Finish()
			return r, err
		}
		if until.Passed(&ev) {
			r.cut = true
			break
		}
		r.Apply(ev)
	}
	r.Finish()
	return r, nil
}

// Span is the first and last moment the replay saw, and how many events.
func (r *Replay) Span() (first, last Moment, events int) { return r.first, r.last, r.events }

// below reports whether p is at or below the root (or in the sibling
// queue of a kazoo semaphore at the root).
func (r *Replay) below(p string) bool {
	if r.root == "/" {
		return true
	}
	for _, top := range []string{r.root, r.root + lockops.KazooSemaphoreLock} {
		if p == top || strings.HasPrefix(p, top) && len(p) > len(top) && p[len(top)] == '/' {
			return true
		}
	}
	return false
}

// Apply applies one event. Events of one transaction (same zxid) are
// applied together: the locks they change are decoded once, after the
// last of them.
func (r *Replay) Apply(ev Event) {
	if ev.Zxid != r.at.Zxid || ev.Zxid == 0 {
		r.flush()
	}
	r.at = Moment{Zxid: ev.Zxid, Time: ev.Time}
	if r.first.IsZero() {
		r.first = r.at
	}
	r.last = r.at
	r.events++
	if ev.SessionKnown && ev.Session != 0 && ev.Kind != EventSessionClose {
		r.session(ev.Session).LastWrite = r.at
	}
	switch ev.Kind {
	case EventCreate:
		r.create(ev)
	case EventDelete, EventGone:
		r.remove(ev.Path, r.endOf(ev))
	case EventSetData:
		if n := r.nodes[ev.Path]; n != nil {
			n.Data = slices.Clone(ev.Data)
			n.Version++
			// A node's data orders no queue: only a lock's own node
			// matters (a kazoo semaphore's lease count). A participant's
			// data is kept from its arrival; [Replay.Queues] reads it anew.
			r.touch(ev.Path)
		}
	case EventSessionCreate:
		s := r.session(ev.Session)
		s.Timeout, s.Created = ev.Timeout, r.at
	case EventSessionClose:
		r.closeSession(ev)
	}
}

// Finish applies what is pending. Call it after the last event.
func (r *Replay) Finish() { r.flush() }

func (r *Replay) session(id int64) *SessionInfo {
	s := r.sess[id]
	if s == nil {
		s = &SessionInfo{ID: id}
		r.sess[id] = s
	}
	return s
}

func (r *Replay) create(ev Event) {
	if !r.below(ev.Path) {
		return
	}
	ct := ev.Ctime
	if ct.IsZero() {
		ct = ev.Time
	}
	if old := r.nodes[ev.Path]; old != nil {
		r.drop(old) // a snapshot's change logged again
	}
	dir, name := path.Dir(ev.Path), path.Base(ev.Path)
	n := &lockops.Child{Name: name, Path: ev.Path, Data: slices.Clone(ev.Data), Owner: ev.Owner, Ctime: ct.UnixMilli(), Czxid: ev.Zxid}
	r.nodes[ev.Path] = n
	if r.kids[dir] == nil {
		r.kids[dir] = map[string]*lockops.Child{}
	}
	r.kids[dir][name] = n
	if lockops.LibraryOf(name) != nil {
		r.named[dir]++
	}
	if ev.Owner != 0 {
		if r.owned[ev.Owner] == nil {
			r.owned[ev.Owner] = map[string]struct{}{}
		}
		r.owned[ev.Owner][ev.Path] = struct{}{}
	}
	r.touch(dir)
	r.touchRoot(ev.Path)
}

// endOf is how a node removed by ev leaves its queue.
func (r *Replay) endOf(ev Event) Tenure {
	n := r.nodes[ev.Path]
	switch {
	case ev.Kind == EventGone || !ev.SessionKnown || n == nil:
		return Tenure{End: EndGone}
	case n.Owner == ev.Session:
		return Tenure{End: EndReleased, By: ev.Session}
	}
	return Tenure{End: EndForceDeleted, By: ev.Session}
}

func (r *Replay) remove(p string, end Tenure) {
	n := r.nodes[p]
	if n == nil {
		return
	}
	r.drop(n)
	r.ends[p] = end
	r.touch(path.Dir(p))
	r.touchRoot(p)
}

// drop forgets node n.
func (r *Replay) drop(n *lockops.Child) {
	p := n.Path
	delete(r.nodes, p)
	dir := path.Dir(p)
	delete(r.kids[dir], n.Name)
	if len(r.kids[dir]) == 0 {
		delete(r.kids, dir)
	}
	if lockops.LibraryOf(n.Name) != nil {
		if r.named[dir]--; r.named[dir] <= 0 {
			delete(r.named, dir)
		}
	}
	if n.Owner != 0 {
		delete(r.owned[n.Owner], p)
		if len(r.owned[n.Owner]) == 0 {
			delete(r.owned, n.Owner)
		}
	}
}

// closeSession removes the session's ephemeral nodes: those the log lists
// and those the replay saw it create.
func (r *Replay) closeSession(ev Event) {
	s := r.session(ev.Session)
	s.Closed, s.Expired = r.at, ev.Cxid == 0
	end := Tenure{End: EndSessionClosed, By: ev.Session, SessionTimeout: s.Timeout, LastWrite: s.LastWrite}
	switch {
	case s.Expired && s.Timeout > 0 && !s.LastWrite.IsZero() && r.at.Time.Sub(s.LastWrite.Time) < s.Timeout*9/10:
		end.End = EndSessionTerminated // it was alive within its timeout
	case s.Expired:
		end.End = EndSessionExpired
	}
	gone := make([]string, 0, len(r.owned[ev.Session])+len(ev.Deletes))
	for p := range r.owned[ev.Session] {
		gone = append(gone, p)
	}
	gone = append(gone, ev.Deletes...)
	for _, p := range gone {
		r.remove(p, end)
	}
	delete(r.sess, ev.Session)
}

// touch notes that the children (or data) of dir changed: the lock it
// belongs to is decoded again at the end of the transaction.
func (r *Replay) touch(dir string) {
	if r.below(dir) {
		r.dirty[r.lockOf(dir)] = true
	}
}

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
