package zkview

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// TreeChange says what changed about one path in a [TreeEvent] (bits).
type TreeChange uint8

const (
	// ChangeChildren: the child list was loaded or changed.
	ChangeChildren TreeChange = 1 << iota
	// ChangeData: data and stat were loaded or changed.
	ChangeData
	// ChangeGone: the node was deleted (see [TreeNode.Gone]).
	ChangeGone
	// ChangeError: a read failed (see [TreeNode.Err]).
	ChangeError
	// ChangeReset: the session was replaced; every shown directory and the
	// selected node are being reloaded (reported on "/").
	ChangeReset
)

func (c TreeChange) String() string {
	var parts []string
	for _, x := range []struct {
		bit  TreeChange
		name string
	}{{ChangeChildren, "children"}, {ChangeData, "data"}, {ChangeGone, "gone"}, {ChangeError, "error"}, {ChangeReset, "reset"}} {
		if c&x.bit != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, "|")
}

// TreeEvent is a coalesced batch of changes: every path (caller's view) that
// changed since the previous event, with the union of what changed.
type TreeEvent struct {
	Changes map[string]TreeChange
}

// Paths lists the changed paths, sorted.
func (e TreeEvent) Paths() []string {
	ps := make([]string, 0, len(e.Changes))
	for p := range e.Changes {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// TreeNode is what the tree knows about one node.
type TreeNode struct {
	Path     string
	Stat     zk.Stat
	Data     []byte
	HasStat  bool  // Stat and Data were read (LoadStats, Select, or a watch)
	Gone     bool  // the node was deleted (seen by a read or a watch)
	Err      error // the last read failed (other than deletion)
	Expanded bool  // its children are loaded and watched
}

// ErrStale is returned by [Tree.Expand] when the reply was superseded (the
// path was collapsed, or expanded again, while the read was in flight); the
// reply was dropped.
var ErrStale = errors.New("superseded by a newer request; reply dropped")

// dir is one expanded directory.
type dir struct {
	names  []string // sorted; replaced on reload, never changed in place
	stat   zk.Stat
	req    uint64 // id of the newest children read
	loaded bool
}

// Tree is a lazy cache of the znode tree for a UI: children are read when a
// directory is expanded, stat and data only for the paths asked for (the
// visible rows) and for the selected node. Expanded directories carry a
// one-shot children watch and the selected node a data watch, re-armed
// after each event; collapsed subtrees are forgotten and their watches,
// which go-zookeeper cannot remove, are ignored when they fire and not
// re-armed. Every read carries a request id so a reply that was overtaken
// is dropped. Changes arrive coalesced on [Tree.Events].
//
// All methods are safe for concurrent use; the blocking ones (Expand,
// LoadStats, Select, Refresh) do network I/O and belong in a command, not
// in Update.
type Tree struct {
	c *Client

	mu       sync.Mutex
	seq      uint64
	dirs     map[string]*dir
	info     map[string]*TreeNode // stat/data/gone for rows asked about
	statReq  map[string]uint64    // newest stat read per path
	armedKid map[string]bool      // a server-side children watch is (believed) set
	armedDat map[string]bool      // a server-side data watch is (believed) set
	selected string
	pending  map[string]TreeChange // changes not yet delivered
	reload   map[string]TreeChange // work for the watch worker (ChangeChildren / ChangeData)

	wake     chan struct{} // delivery goroutine: pending has changes
	work     chan struct{} // worker goroutine: reload has work
	out      chan TreeEvent
	quit     chan struct{}
	closed   sync.Once
	removeCB func()
	unsub    func()
}

// treeCoalesce is how long the delivery goroutine waits after a change for
// more to arrive, so a burst becomes one event.
const treeCoalesce = 15 * time.Millisecond

// NewTree starts a tree cache over c. Close it when done.
func NewTree(c *Client) *Tree {
	t := &Tree{
		c:        c,
		dirs:     map[string]*dir{},
		info:     map[string]*TreeNode{},
		statReq:  map[string]uint64{},
		armedKid: map[string]bool{},
		armedDat: map[string]bool{},
		pending:  map[string]TreeChange{},
		reload:   map[string]TreeChange{},
		wake:     make(chan struct{}, 1),
		work:     make(chan struct{}, 1),
		out:      make(chan TreeEvent),
		quit:     make(chan struct{}),
	}
	t.removeCB = c.AddNodeEventHandler(t.onWatch)
	sub, unsub := c.Subscribe()
	t.unsub = unsub
	go t.deliver()
	go t.worker()
	go t.followSession(sub)
	return t
}

// Close stops the tree's goroutines; Events is never closed, it just goes quiet.
func (t *Tree) Close() {
	t.closed.Do(func() {
		close(t.quit)
		t.removeCB()
		t.unsub()
	})
}

// Events delivers coalesced changes. Receive from it in one self-re-arming
// command; a slow receiver only gets bigger batches.
func (t *Tree) Events() <-chan TreeEvent { return t.out }

// Expanded reports whether p's children are loaded and watched.
func (t *Tree) Expanded(p string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.dirs[p]
	return d != nil && d.loaded
}

// Children returns p's sorted child names (ok false when p is not expanded).
// The slice is shared: do not modify it.
func (t *Tree) Children(p string) (names []string, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.dirs[p]
	if d == nil || !d.loaded {
		return nil, false
	}
	return d.names, true
}

// DirStat is the stat read with p's child list (ok false when not expanded).
func (t *Tree) DirStat(p string) (zk.Stat, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.dirs[p]
	if d == nil || !d.loaded {
		return zk.Stat{}, false
	}
	return d.stat, true
}

// Node returns what is known about p (ok false when nothing was read).
func (t *Tree) Node(p string) (TreeNode, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.info[p]
	if n == nil {
		return TreeNode{Path: p}, false
	}
	out := *n
	d := t.dirs[p]
	out.Expanded = d != nil && d.loaded
	return out, true
}

// Selected is the path whose data is watched ("" when none).
func (t *Tree) Selected() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.selected
}

// Expand loads p's children (one round trip, whatever their number) and
// keeps them current with a children watch until [Tree.Collapse]. A node
// deleted meanwhile is marked gone and its zk.ErrNoNode returned.
func (t *Tree) Expand(ctx context.Context, p string) error {
	t.mu.Lock()
	if t.dirs[p] == nil {
		t.dirs[p] = &dir{}
	}
	t.mu.Unlock()
	return t.loadChildren(ctx, p)
}

// Collapse forgets p's children and everything known below p. Their
// server-side watches stay until they fire once; those events are ignored.
func (t *Tree) Collapse(p string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prefix := p + "/"
	if p == "/" {
		prefix = "/"
	}
	for q := range t.dirs {
		if q == p || strings.HasPrefix(q, prefix) {
			delete(t.dirs, q)
		}
	}
	for q := range t.info {
		if strings.HasPrefix(q, prefix) && q != t.selected {
			delete(t.info, q)
			delete(t.statReq, q)
		}
	}
	for q := range t.reload {
		if q == p || strings.HasPrefix(q, prefix) {
			t.reload[q] &^= ChangeChildren
			if t.reload[q] == 0 {
				delete(t.reload, q)
			}
		}
	}
}

// LoadStats reads stat and data of paths (the visible rows) with one bulk
// read. Replies overtaken by a newer read of the same path, or for paths
// whose parent was collapsed meanwhile, are dropped; deleted nodes are
// marked gone. The changes are also reported on Events.
func (t *Tree) LoadStats(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	ids := make([]uint64, len(paths))
	t.mu.Lock()
	for i, p := range paths {
		t.seq++
		ids[i] = t.seq
		t.statReq[p] = t.seq
	}
	t.mu.Unlock()
	nodes, err := t.c.GetMany(ctx, paths)
	if err != nil {
		return fmt.Errorf("read %d nodes: %w", len(paths), err)
	}
	t.mu.Lock()
	for i, n := range nodes {
		p := paths[i]
		if t.statReq[p] != ids[i] {
			continue // a newer read of p is on its way
		}
		delete(t.statReq, p)
		if p != t.selected && p != "/" && t.dirs[Parent(p)] == nil {
			continue // collapsed while reading
		}
		t.applyNodeLocked(p, n.Data, n.Stat, n.Err)
	}
	t.mu.Unlock()
	t.signal()
	return nil
}

// Select makes p the node whose data and stat are watched (replacing the
// previous selection, whose watch is then ignored) and reads it. Select of
// "" clears the selection.
func (t *Tree) Select(ctx context.Context, p string) (TreeNode, error) {
	t.mu.Lock()
	t.selected = p
	t.mu.Unlock()
	if p == "" {
		return TreeNode{}, nil
	}
	err := t.loadData(ctx, p)
	n, _ := t.Node(p)
	return n, err
}

// Refresh reloads every expanded directory and the selected node (after a
// reconnect, or on the user's request).
func (t *Tree) Refresh() {
	t.mu.Lock()
	for p := range t.dirs {
		t.reload[p] |= ChangeChildren
	}
	if t.selected != "" {
		t.reload[t.selected] |= ChangeData
	}
	t.mu.Unlock()
	t.kick()
}

// loadChildren reads p's children, arming the children watch unless one is
// already set, and applies the reply if it is still the newest for p.
func (t *Tree) loadChildren(ctx context.Context, p string) error {
	t.mu.Lock()
	d := t.dirs[p]
	if d == nil {
		t.mu.Unlock()
		return ErrStale
	}
	t.seq++
	id := t.seq
	d.req = id
	arm := !t.armedKid[p]
	if arm {
		// Set before the request: the watch may fire before the reply is
		// processed here, and its event must be able to clear the flag.
		t.armedKid[p] = true
	}
	t.mu.Unlock()

	abs := t.c.Abs(p)
	type reply struct {
		names []string
		st    *zk.Stat
		err   error
	}
	r, err := Call(ctx, func() (reply, error) {
		var r reply
		conn := t.c.Conn()
		if arm {
			r.names, r.st, _, r.err = conn.ChildrenW(abs)
		} else {
			r.names, r.st, r.err = conn.Children(abs)
		}
		if r.err == nil {
			sort.Strings(r.names)
		}
		return r, nil
	})
	if err != nil {
		if arm {
			t.disarm(t.armedKid, p)
		}
		return fmt.Errorf("list children of %s: %w", p, err)
	}
	if r.err != nil && arm {
		t.disarm(t.armedKid, p)
	}
	return t.applyChildren(p, id, r.names, r.st, r.err)
}

// applyChildren stores a children reply tagged id, unless a newer request
// for p was issued or p was collapsed meanwhile (then ErrStale).
func (t *Tree) applyChildren(p string, id uint64, names []string, st *zk.Stat, err error) error {
	t.mu.Lock()
	d := t.dirs[p]
	if d == nil || d.req != id {
		t.mu.Unlock()
		return ErrStale
	}
	switch {
	case errors.Is(err, zk.ErrNoNode):
		delete(t.dirs, p)
		t.markGoneLocked(p)
	case err != nil:
		n := t.infoLocked(p)
		n.Err = err
		t.pending[p] |= ChangeError
	default:
		d.names, d.stat, d.loaded = names, *st, true
		t.pending[p] |= ChangeChildren
		if n := t.info[p]; n != nil {
			n.Gone, n.Err = false, nil
		}
	}
	t.mu.Unlock()
	t.signal()
	if err != nil {
		return fmt.Errorf("list children of %s: %w", p, Explain(err))
	}
	return nil
}

// loadData reads p's data and stat, arming a data watch when p is still
// selected and none is set.
func (t *Tree) loadData(ctx context.Context, p string) error {
	t.mu.Lock()
	t.seq++
	id := t.seq
	t.statReq[p] = id
	arm := p == t.selected && !t.armedDat[p]
	if arm {
		t.armedDat[p] = true
	}
	t.mu.Unlock()

	abs := t.c.Abs(p)
	type reply struct {
		data []byte
		st   *zk.Stat
		err  error
	}
	r, err := Call(ctx, func() (reply, error) {
		var r reply
		conn := t.c.Conn()
		if arm {
			r.data, r.st, _, r.err = conn.GetW(abs)
		} else {
			r.data, r.st, r.err = conn.Get(abs)
		}
		return r, nil
	})
	if err != nil || r.err != nil {
		if arm {
			t.disarm(t.armedDat, p)
		}
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	t.mu.Lock()
	if t.statReq[p] != id {
		t.mu.Unlock()
		return ErrStale
	}
	delete(t.statReq, p)
	var st zk.Stat
	if r.st != nil {
		st = *r.st
	}
	t.applyNodeLocked(p, r.data, st, r.err)
	t.mu.Unlock()
	t.signal()
	if r.err != nil {
		return fmt.Errorf("read %s: %w", p, Explain(r.err))
	}
	return nil
}

func (t *Tree) disarm(m map[string]bool, p string) {
	t.mu.Lock()
	delete(m, p)
	t.mu.Unlock()
}

func (t *Tree) infoLocked(p string) *TreeNode {
	n := t.info[p]
	if n == nil {
		n = &TreeNode{Path: p}
		t.info[p] = n
	}
	return n
}

func (t *Tree) applyNodeLocked(p string, data []byte, st zk.Stat, err error) {
	switch {
	case errors.Is(err, zk.ErrNoNode):
		t.markGoneLocked(p)
	case err != nil:
		n := t.infoLocked(p)
		n.Err = err
		t.pending[p] |= ChangeError
	default:
		n := t.infoLocked(p)
		n.Data, n.Stat, n.HasStat, n.Gone, n.Err = data, st, true, false, nil
		t.pending[p] |= ChangeData
	}
}

func (t *Tree) markGoneLocked(p string) {
	n := t.infoLocked(p)
	n.Gone, n.Err = true, nil
	t.pending[p] |= ChangeGone
}

// onWatch handles a watch event on the connection's receive goroutine: it
// only updates flags and queues work, never calls the server.
func (t *Tree) onWatch(e zk.Event) {
	p, ok := t.relPath(e.Path)
	if !ok {
		return
	}
	t.mu.Lock()
	queued := false
	switch e.Type {
	case zk.EventNodeChildrenChanged:
		delete(t.armedKid, p)
		if t.dirs[p] != nil {
			t.reload[p] |= ChangeChildren
			queued = true
		}
	case zk.EventNodeDataChanged:
		delete(t.armedDat, p)
		if p == t.selected {
			t.reload[p] |= ChangeData
			queued = true
		}
	case zk.EventNodeDeleted:
		delete(t.armedKid, p)
		delete(t.armedDat, p)
		_, shown := t.dirs[p]
		if shown || t.info[p] != nil || p == t.selected {
			delete(t.dirs, p)
			t.markGoneLocked(p)
		}
	case zk.EventNodeCreated:
		// Only exists watches report creation; zkscope sets none here.
	case zk.EventNotWatching:
		// The session expired: every watch is gone (see followSession).
		delete(t.armedKid, p)
		delete(t.armedDat, p)
	}
	t.mu.Unlock()
	if queued {
		t.kick()
	}
	t.signal()
}

// relPath maps an event's server path to the caller's view; ok is false for
// paths outside the chroot.
func (t *Tree) relPath(server string) (string, bool) {
	if server == "" {
		return "", false
	}
	root := t.c.cfg.Chroot
	if root != "" && server != root && !strings.HasPrefix(server, root+"/") {
		return "", false
	}
	return t.c.Rel(server), true
}

// followSession reloads everything when the session is replaced (its
// watches died with it).
func (t *Tree) followSession(sub <-chan ConnEvent) {
	for {
		select {
		case <-t.quit:
			return
		case ev := <-sub:
			if ev.State != StateConnected || !ev.NewSession {
				continue
			}
			t.mu.Lock()
			clear(t.armedKid)
			clear(t.armedDat)
			t.pending["/"] |= ChangeReset
			t.mu.Unlock()
			t.Refresh()
			t.signal()
		}
	}
}

// treeReloadEvery is the shortest time between two rounds of re-reads:
// events in between (a lock churning hundreds of times a second) are read
// once, in the next round.
const treeReloadEvery = 100 * time.Millisecond

// worker re-reads what watch events asked for, re-arming the watches.
func (t *Tree) worker() {
	var last time.Time
	for {
		select {
		case <-t.quit:
			return
		case <-t.work:
		}
		if wait := treeReloadEvery - time.Since(last); wait > 0 {
			select {
			case <-t.quit:
				return
			case <-time.After(wait):
			}
		}
		last = time.Now()
		for {
			t.mu.Lock()
			var p string
			var what TreeChange
			for q, w := range t.reload {
				p, what = q, w
				break
			}
			if what == 0 {
				t.mu.Unlock()
				break
			}
			delete(t.reload, p)
			t.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 2*t.c.cfg.SessionTimeout)
			if what&ChangeChildren != 0 {
				t.loadChildren(ctx, p) // errors are recorded on the node and reported as events
			}
			if what&ChangeData != 0 && p == t.Selected() {
				t.loadData(ctx, p)
			}
			cancel()
			select {
			case <-t.quit:
				return
			default:
			}
		}
	}
}

func (t *Tree) kick() {
	select {
	case t.work <- struct{}{}:
	default:
	}
}

func (t *Tree) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// deliver sends pending changes as one event, merging whatever piles up
// while the receiver is busy.
func (t *Tree) deliver() {
	for {
		select {
		case <-t.quit:
			return
		case <-t.wake:
		}
		select {
		case <-t.quit:
			return
		case <-time.After(treeCoalesce):
		}
		t.mu.Lock()
		batch := t.pending
		if len(batch) == 0 {
			t.mu.Unlock()
			continue
		}
		t.pending = map[string]TreeChange{}
		t.mu.Unlock()
		select {
		case t.out <- TreeEvent{Changes: batch}:
		case <-t.quit:
			return
		}
	}
}

// Parent is the parent of a znode path ("/" for top-level nodes and "/").
func Parent(p string) string {
	d := path.Dir(p)
	if d == "." {
		return "/"
	}
	return d
}
