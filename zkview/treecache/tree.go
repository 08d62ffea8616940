// Package treecache owns the lazy znode tree cache a UI reads ([Tree]):
// children read when a directory is expanded, stats for the visible rows,
// the selected node's data, their watches and the coalesced events. It is
// a layer over [zkview.Client] and imports zkview only: never ui, lockops,
// cmd or config.
package treecache

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// Change says what changed about one path in a [Event] (bits).
type Change uint8

const (
	// ChangeChildren: the child list was loaded or changed.
	ChangeChildren Change = 1 << iota
	// ChangeData: data and stat were loaded or changed.
	ChangeData
	// ChangeGone: the node was deleted (see [Node.Gone]).
	ChangeGone
	// ChangeError: a read failed (see [Node.Err]).
	ChangeError
	// ChangeReset: the session was replaced; every shown directory and the
	// selected node are being reloaded (reported on "/").
	ChangeReset
)

func (c Change) String() string {
	var parts []string
	for _, x := range []struct {
		bit  Change
		name string
	}{{ChangeChildren, "children"}, {ChangeData, "data"}, {ChangeGone, "gone"}, {ChangeError, "error"}, {ChangeReset, "reset"}} {
		if c&x.bit != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, "|")
}

// Event is a coalesced batch of changes: every path (caller's view) that
// changed since the previous event, with the union of what changed.
type Event struct {
	Changes map[string]Change
}

// Paths lists the changed paths, sorted.
func (e Event) Paths() []string {
	ps := make([]string, 0, len(e.Changes))
	for p := range e.Changes {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// Node is what the tree knows about one node.
type Node struct {
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
// visible rows) and for the selected node. On ZooKeeper 3.6+ expanded
// directories and the selected node carry a persistent watch each
// (follow.go), removed when collapsed or deselected. Elsewhere (or with
// [Tree.SetPolling]) they carry a one-shot children watch and a data watch,
// re-armed after each event; collapsed subtrees are forgotten and those
// watches, which go-zookeeper cannot remove, are ignored when they fire and
// not re-armed. Every read carries a request id so a reply that was
// overtaken is dropped. Changes arrive coalesced on [Tree.Events].
//
// All methods are safe for concurrent use; the blocking ones (Expand,
// LoadStats, Select, Refresh) do network I/O and belong in a command, not
// in Update.
type Tree struct {
	c *zkview.Client

	mu       sync.Mutex
	seq      uint64
	dirs     map[string]*dir
	info     map[string]*Node  // stat/data/gone for rows asked about
	statReq  map[string]uint64 // newest stat read per path
	armedKid map[string]bool   // a server-side children watch is (believed) set
	armedDat map[string]bool   // a server-side data watch is (believed) set
	selected string
	pending  map[string]Change // changes not yet delivered
	reload   map[string]Change // work for the watch worker (ChangeChildren / ChangeData)

	wake     chan struct{} // delivery goroutine: pending has changes
	work     chan struct{} // worker goroutine: reload has work
	out      chan Event
	quit     chan struct{}
	closed   sync.Once
	removeCB func()
	unsub    func()

	fol follows // persistent watches (follow.go)
}

// treeCoalesce is how long the delivery goroutine waits after a change for
// more to arrive, so a burst becomes one event.
const treeCoalesce = 15 * time.Millisecond

// New starts a tree cache over c. Close it when done.
func New(c *zkview.Client) *Tree {
	t := &Tree{
		c:        c,
		dirs:     map[string]*dir{},
		info:     map[string]*Node{},
		statReq:  map[string]uint64{},
		armedKid: map[string]bool{},
		armedDat: map[string]bool{},
		pending:  map[string]Change{},
		reload:   map[string]Change{},
		wake:     make(chan struct{}, 1),
		work:     make(chan struct{}, 1),
		out:      make(chan Event),
		quit:     make(chan struct{}),
		fol:      follows{dirs: map[string]*zkview.Follow{}, stopping: map[string]chan struct{}{}},
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
		t.stopFollows()
	})
}

// Events delivers coalesced changes. Receive from it in one self-re-arming
// command; a slow receiver only gets bigger batches.
func (t *Tree) Events() <-chan Event { return t.out }

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
func (t *Tree) Node(p string) (Node, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.info[p]
	if n == nil {
		return Node{Path: p}, false
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
	t.followDir(ctx, p) // before the read: a change after it is an event
	return t.loadChildren(ctx, p)
}

// Collapse forgets p's children and everything known below p. Their
// persistent watches are removed (in the background); one-shot watches
// stay on the server until they fire once, and those events are ignored.
func (t *Tree) Collapse(p string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prefix := p + "/"
	if p == "/" {
		prefix = "/"
	}
	t.unfollowBelowLocked(p, prefix)
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
		if p != t.selected && p != "/" && t.dirs[zkview.Parent(p)] == nil {
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
func (t *Tree) Select(ctx context.Context, p string) (Node, error) {
	t.mu.Lock()
	t.selected = p
	t.mu.Unlock()
	t.followSelected(ctx, p) // before the read, as Expand's
	if p == "" {
		return Node{}, nil
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
