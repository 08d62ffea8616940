package history

import (
	"io"
	"path"
	"slices"
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
	// db is a database recording's recipe, once one of its events is
	// below the root ("": ZooKeeper's history).
	db lockops.Kind
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
	if ev.Zxid != r.at.Zxid || ev.Zxid == 0 && (ev.DB == nil || !ev.Time.Equal(r.at.Time)) {
		r.flush() // (a database recording's read: its events share their time)
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
	if ev.DB != nil {
		r.applyDB(ev)
		return
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
