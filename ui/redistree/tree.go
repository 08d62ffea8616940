// Package redistree is the Redis keyspace as the TUI's tree: [Tree] gives
// the levels of names that redisview lists (SCAN MATCH prefix*, names
// grouped by ':') to the root model as directories of paths, so the tree,
// `:cd`, the `/` filter and the stat loads work as they do on ZooKeeper.
// Beside it, what the root's Redis mode reads through the same keyspace:
// the locks among keys ([Queues], decoded by lockops/redislock), the key
// names a find or a `:cd` completion needs, and errors worded for the
// status line ([Error]).
//
// A key's path is its names joined with '/' (lock:orders:42 is
// /lock/orders/42, escaped as ui/common/redis.go says). Redis has no
// watches: a level is read when opened and again on a refresh (r); while
// a huge level is scanned, what was found so far is shown and the header
// counts the keys seen.
//
// It does I/O only in the methods and functions the root calls from its
// commands (and in Tree's own goroutines). It imports ui/common and no
// other ui package; only the root model imports it.
package redistree

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview/treecache"
)

// prefixOf is the SCAN prefix of the level under path p.
func prefixOf(p string) string {
	if k := common.RedisKeyOf(p); k != "" || p != "/" && p != "" {
		return k + redisview.Separator
	}
	return ""
}

// refreshTimeout bounds the listing of one level on a refresh.
const refreshTimeout = 10 * time.Second

// listing is one listed level, as far as its scan got.
type listing struct {
	names []string // sorted path elements; replaced, never changed
	kids  map[string]redisview.Child
	level redisview.Level
}

// Tree is the tree's source over a Redis keyspace (the root model's
// treeSource, as *treecache.Tree is on ZooKeeper).
type Tree struct {
	c     *redisview.Client
	limit int

	events chan treecache.Event
	notify chan struct{}
	done   chan struct{}
	closed sync.Once

	mu      sync.Mutex
	levels  map[string]*listing
	loads   map[string]*levelScan // scans in flight, by path
	pending map[string]treecache.Change
}

// levelScan is one scan of a level in flight.
type levelScan struct {
	cancel context.CancelFunc
}

// New starts a tree over c's keyspace, listing at most limit keys per
// level (0: redisview.DefaultListLimit); Close stops it.
func New(c *redisview.Client, limit int) *Tree {
	t := &Tree{
		c: c, limit: limit,
		events:  make(chan treecache.Event),
		notify:  make(chan struct{}, 1),
		done:    make(chan struct{}),
		levels:  map[string]*listing{},
		loads:   map[string]*levelScan{},
		pending: map[string]treecache.Change{},
	}
	go t.pump()
	return t
}

// pump hands the coalesced changes to the one listener.
func (t *Tree) pump() {
	for {
		select {
		case <-t.notify:
		case <-t.done:
			return
		}
		t.mu.Lock()
		ev := treecache.Event{Changes: t.pending}
		t.pending = map[string]treecache.Change{}
		t.mu.Unlock()
		if len(ev.Changes) == 0 {
			continue
		}
		select {
		case t.events <- ev:
		case <-t.done:
			return
		}
	}
}

// changed records a change of p (t.mu held) and wakes the pump.
func (t *Tree) changed(p string, c treecache.Change) {
	t.pending[p] |= c
	select {
	case t.notify <- struct{}{}:
	default:
	}
}

// Events are the levels' changes, coalesced, for the one listener.
func (t *Tree) Events() <-chan treecache.Event { return t.events }

// Expand lists the level under p (every server's keys starting with its
// prefix), showing the names found so far while the scan goes on. A newer
// listing of p, or a collapse, makes this one stale (treecache.ErrStale).
func (t *Tree) Expand(ctx context.Context, p string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	load := &levelScan{cancel: cancel}
	t.mu.Lock()
	if n, ok := t.nodeLocked(p); ok && !n.Gone && n.Stat.NumChildren == 0 && p != "/" {
		// Its level's listing saw no key below it: nothing to scan.
		t.levels[p] = newListing(redisview.Level{Prefix: prefixOf(p), Done: true})
		t.mu.Unlock()
		return nil
	}
	if old := t.loads[p]; old != nil {
		old.cancel()
	}
	t.loads[p] = load
	t.mu.Unlock()
	l, err := t.c.ListLevel(ctx, prefixOf(p), redisview.ListOptions{Limit: t.limit,
		Progress: func(l redisview.Level) { t.apply(p, load, l) }})
	if errors.Is(err, context.DeadlineExceeded) && l.Scanned > 0 {
		l.Truncated, err = true, nil // out of time: show what was found
	}
	var rl *listing
	if err == nil {
		rl = newListing(l) // outside the lock: a big level takes a while
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.loads[p] != load {
		return fmt.Errorf("list %s: %w", p, treecache.ErrStale)
	}
	delete(t.loads, p)
	if err != nil {
		return Error(err)
	}
	t.levels[p] = rl
	return nil
}

// apply shows a scan's level found so far, unless the scan is no longer
// p's newest. The level is built before taking the lock: the UI reads
// the tree meanwhile.
func (t *Tree) apply(p string, load *levelScan, l redisview.Level) {
	rl := newListing(l)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.loads[p] == load {
		t.levels[p] = rl
		t.changed(p, treecache.ChangeChildren)
	}
}

// newListing indexes a listing by path element.
func newListing(l redisview.Level) *listing {
	rl := &listing{names: make([]string, len(l.Children)), kids: make(map[string]redisview.Child, len(l.Children)), level: l}
	for i, c := range l.Children {
		rl.names[i] = common.RedisName(c.Name)
		rl.kids[rl.names[i]] = c
	}
	// Escaping keeps the order of all but names holding '%' or '/'.
	if !slices.IsSorted(rl.names) {
		slices.Sort(rl.names)
	}
	return rl
}

// Progress is how far the listing of p got: keys seen, whether it is
// still scanning and whether it stopped at the limit.
func (t *Tree) Progress(p string) (scanned int, scanning, truncated bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.levels[p]
	scanning = t.loads[p] != nil
	if l == nil {
		return 0, scanning, false
	}
	return l.level.Scanned, scanning, l.level.Truncated
}

// Scanning is a level being listed (ok false: none), with the keys seen.
func (t *Tree) Scanning() (p string, scanned int, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for q := range t.loads {
		if p == "" || q < p {
			p, ok = q, true
		}
	}
	if l := t.levels[p]; ok && l != nil {
		scanned = l.level.Scanned
	}
	return p, scanned, ok
}

// Collapse forgets p's level and every level below it, stopping their
// scans.
func (t *Tree) Collapse(p string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prefix := strings.TrimSuffix(p, "/") + "/"
	for q, l := range t.loads {
		if q == p || strings.HasPrefix(q, prefix) {
			l.cancel()
			delete(t.loads, q)
		}
	}
	for q := range t.levels {
		if q == p || strings.HasPrefix(q, prefix) {
			delete(t.levels, q)
		}
	}
}

// Children are the names of p's level as far as listed (false: not
// listed).
func (t *Tree) Children(p string) ([]string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.levels[p]; l != nil {
		return l.names, true
	}
	return nil, false
}

// DirStat is a level's stat: only its number of names is meaningful.
func (t *Tree) DirStat(p string) (zk.Stat, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.levels[p]; l != nil {
		return zk.Stat{NumChildren: int32(len(l.names))}, true
	}
	return zk.Stat{}, false
}

// Node is what the listing of p's level says of p: a stat whose child
// count is the number of keys below it (not its names: that would need
// the level under it scanned).
func (t *Tree) Node(p string) (treecache.Node, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nodeLocked(p)
}

func (t *Tree) nodeLocked(p string) (treecache.Node, bool) {
	if p == "/" {
		l := t.levels["/"]
		if l == nil {
			return treecache.Node{}, false
		}
		return treecache.Node{Path: p, HasStat: true, Stat: zk.Stat{NumChildren: int32(len(l.names))}, Expanded: true}, true
	}
	i := strings.LastIndexByte(p, '/')
	dir := p[:i]
	if dir == "" {
		dir = "/"
	}
	l := t.levels[dir]
	if l == nil {
		return treecache.Node{}, false
	}
	c, ok := l.kids[p[i+1:]]
	if !ok {
		return treecache.Node{Path: p, Gone: l.level.Done}, l.level.Done
	}
	_, open := t.levels[p]
	return treecache.Node{Path: p, HasStat: true, Stat: zk.Stat{NumChildren: int32(min(c.Below, 1<<31-1))}, Expanded: open}, true
}

// IsKey reports whether p is a key (not only a group of keys), as its
// level's listing says.
func (t *Tree) IsKey(p string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := strings.LastIndexByte(p, '/')
	if i < 0 || p == "/" {
		return false
	}
	dir := p[:i]
	if dir == "" {
		dir = "/"
	}
	l := t.levels[dir]
	return l != nil && l.kids[p[i+1:]].IsKey
}

// LoadStats has nothing to read: a row's stat comes from its level's
// listing (the keys themselves are read for the lock tags and the detail
// pane, see ui/redis.go).
func (t *Tree) LoadStats(context.Context, []string) error { return nil }

// Select is what the listing knows of p; the key itself is read by the
// root's Redis select command.
func (t *Tree) Select(_ context.Context, p string) (treecache.Node, error) {
	n, _ := t.Node(p)
	n.Path = p
	return n, nil
}

// Refresh lists every open level again, one after the other (each is a
// SCAN of the whole keyspace), in the background; the tree follows
// through Events. A level being listed already is left to that listing.
func (t *Tree) Refresh() {
	t.mu.Lock()
	var open []string
	for p := range t.levels {
		if t.loads[p] == nil {
			open = append(open, p)
		}
	}
	t.mu.Unlock()
	slices.Sort(open) // parents first: a level gone from its parent is not listed
	go func() {
		for _, p := range open {
			select {
			case <-t.done:
				return // the tree closed: the levels left are not listed
			default:
			}
			t.mu.Lock()
			_, still := t.levels[p]
			t.mu.Unlock()
			if !still {
				continue // collapsed meanwhile
			}
			ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
			err := t.Expand(ctx, p)
			cancel()
			if err == nil {
				t.mu.Lock()
				t.changed(p, treecache.ChangeChildren)
				t.mu.Unlock()
			}
		}
	}()
}

// Close stops every scan and the event pump.
func (t *Tree) Close() {
	t.closed.Do(func() {
		close(t.done)
		t.mu.Lock()
		for _, l := range t.loads {
			l.cancel()
		}
		t.mu.Unlock()
	})
}
