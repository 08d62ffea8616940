// Package dbtree is a database server's locks as the terminal UI's tree
// source: the server → its lock namespaces (PostgreSQL: the databases;
// MySQL: one, GET_LOCK) → the locks held or waited on, read as one
// snapshot (dbview) every few seconds, decoded and diagnosed by
// lockops/dblock as `zkscope locks` does.
package dbtree

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/dblock"
	"github.com/zkscope/zkscope/zkview/treecache"
)

// Every is how often the tree reads the server's locks again.
const Every = 2 * time.Second

// Help is the `?` screen's words on a database server.
const Help = "The tree is the server, its lock namespaces (PostgreSQL: the databases of advisory locks; MySQL: GET_LOCK) and the locks held or waited on, read again every 2 s (r: now). " +
	"A lock opens the lock pane: holders, then waiters in the order the server grants them, each with its pid or connection id, client address, state and statement, and the problems `zkscope doctor` finds. " +
	"Nothing is changed here: zkscope lock KEY -- CMD takes a lock, zkscope evict KEY ends a holder's session."

// MySQLNamespace is the one namespace of a MySQL server's GET_LOCK names.
const MySQLNamespace = "GET_LOCK"

// Tree is the tree source over a database server. Its methods are safe
// for concurrent use.
type Tree struct {
	c     *dbview.Client
	every time.Duration
	o     dblock.DiagnoseOptions

	mu     sync.Mutex
	read   bool                     // a read answered
	err    error                    // the last read's error
	kids   map[string][]string      // a level's names, sorted
	locks  map[string]lockops.Queue // by tree path
	events chan treecache.Event
	kick   chan struct{}
	done   chan struct{}
	once   sync.Once
	first  chan struct{} // closed when the first read answered
}

// New reads c's locks now and then every `every` (0: Every) until Close.
func New(c *dbview.Client, every time.Duration, o dblock.DiagnoseOptions) *Tree {
	if every <= 0 {
		every = Every
	}
	t := &Tree{c: c, every: every, o: o, kids: map[string][]string{}, locks: map[string]lockops.Queue{},
		events: make(chan treecache.Event, 1), kick: make(chan struct{}, 1), done: make(chan struct{}), first: make(chan struct{})}
	go t.poll()
	return t
}

func (t *Tree) poll() {
	tk := time.NewTicker(t.every)
	defer tk.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		snap, err := t.c.Locks(ctx)
		cancel()
		t.apply(snap, err)
		select {
		case <-t.done:
			return
		case <-tk.C:
		case <-t.kick:
		}
	}
}

// Elem is a tree path element for a lock key or database name: a '/' in
// it is written %2F (and a '%' %25), so that a name is one element.
func Elem(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "%", "%25"), "/", "%2F")
}

// pathOf is the tree path of a decoded lock.
func pathOf(k lockops.Kind, q lockops.Queue) string {
	ns, key := MySQLNamespace, q.Participants[0].Name
	if k == lockops.KindPostgresAdvisory && q.Participants[0].DB != nil {
		ns = q.Participants[0].DB.Database
	}
	return "/" + Elem(ns) + "/" + Elem(key)
}

// apply takes a read's answer and says what changed.
func (t *Tree) apply(snap *dbview.Snapshot, err error) {
	kids, locks := map[string][]string{"/": nil}, map[string]lockops.Queue{}
	if err == nil {
		for _, q := range dblock.Locks(snap, t.o) {
			if len(q.Participants) == 0 {
				continue
			}
			p := pathOf(q.Kind, q)
			q.Path = p
			locks[p] = distinct(q)
			dir := path.Dir(p)
			if _, ok := kids[dir]; !ok {
				kids["/"] = append(kids["/"], path.Base(dir))
			}
			kids[dir] = append(kids[dir], path.Base(p))
		}
		if snap.Kind == dbview.KindMySQL && len(kids["/"]) == 0 {
			kids["/"], kids["/"+MySQLNamespace] = []string{MySQLNamespace}, nil
		}
		for _, v := range kids {
			slices.Sort(v)
		}
	}
	t.mu.Lock()
	changes := map[string]treecache.Change{}
	if err != nil {
		changes["/"] = treecache.ChangeError
		t.err = err
	} else {
		t.err = nil
		for dir, names := range kids {
			if old, ok := t.kids[dir]; !ok || !slices.Equal(old, names) {
				changes[dir] |= treecache.ChangeChildren
			}
		}
		for dir := range t.kids {
			if _, ok := kids[dir]; !ok {
				changes[dir] |= treecache.ChangeGone
			}
		}
		for p := range locks {
			changes[p] |= treecache.ChangeData
		}
		for p := range t.locks {
			if _, ok := locks[p]; !ok {
				changes[p] |= treecache.ChangeGone
			}
		}
		t.kids, t.locks = kids, locks
	}
	if !t.read {
		t.read = true
		close(t.first)
	}
	t.mu.Unlock()
	t.send(treecache.Event{Changes: changes})
}

// send hands ev to the listener, merged with one not yet taken.
func (t *Tree) send(ev treecache.Event) {
	for {
		select {
		case t.events <- ev:
			return
		case old := <-t.events:
			for p, c := range old.Changes {
				ev.Changes[p] |= c
			}
		case <-t.done:
			return
		}
	}
}

// distinct gives each participant a node of its own, KEY#ID (Name keeps
// the key): the pane keys its rows by node.
func distinct(q lockops.Queue) lockops.Queue {
	ps := slices.Clone(q.Participants)
	for i := range ps {
		ps[i].Node = fmt.Sprintf("%s#%d", ps[i].Name, ps[i].Session)
	}
	q.Participants = ps
	return q
}

// Events are the reads' changes, coalesced, for the one listener.
func (t *Tree) Events() <-chan treecache.Event { return t.events }

// Expand waits for the first read (its levels are all known then).
func (t *Tree) Expand(ctx context.Context, p string) error {
	select {
	case <-t.first:
	case <-ctx.Done():
		return ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil && len(t.kids) == 0 {
		return t.err
	}
	return nil
}

// Collapse does nothing: every level is read at each poll.
func (t *Tree) Collapse(string) {}

// Children are a level's names as of the last read (a lock: none).
func (t *Tree) Children(p string) ([]string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if names, ok := t.kids[p]; ok {
		return names, true
	}
	_, lock := t.locks[p]
	return nil, lock
}

// DirStat is a level's stat: only its number of names is meaningful.
func (t *Tree) DirStat(p string) (zk.Stat, bool) {
	names, ok := t.Children(p)
	return zk.Stat{NumChildren: int32(len(names))}, ok
}

// Node is what the last read says of p: a level's number of names, a
// lock's number of participants (its data: nothing).
func (t *Tree) Node(p string) (treecache.Node, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if names, ok := t.kids[p]; ok {
		return treecache.Node{Path: p, HasStat: true, Stat: zk.Stat{NumChildren: int32(len(names))}, Expanded: true}, true
	}
	if _, ok := t.locks[p]; ok {
		return treecache.Node{Path: p, HasStat: true}, true
	}
	if t.read {
		return treecache.Node{Path: p, Gone: true, HasStat: true}, true
	}
	return treecache.Node{}, false
}

// LoadStats does nothing: the rows' stats come with each read.
func (t *Tree) LoadStats(context.Context, []string) error { return nil }

// Select is what the last read says of p.
func (t *Tree) Select(ctx context.Context, p string) (treecache.Node, error) {
	if err := t.Expand(ctx, p); err != nil {
		return treecache.Node{Path: p, Err: err}, err
	}
	n, _ := t.Node(p)
	return n, nil
}

// Refresh reads the server's locks again now.
func (t *Tree) Refresh() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// Close stops the reads.
func (t *Tree) Close() { t.once.Do(func() { close(t.done) }) }

// IsLock reports whether p is a lock as of the last read.
func (t *Tree) IsLock(p string) (lockops.Queue, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	q, ok := t.locks[p]
	return q, ok
}

// ReadLock is the lock pane's loader: the lock at p as of the last read
// (an empty queue when nobody holds or waits on it any more; r or the
// next poll reads again).
func (t *Tree) ReadLock(ctx context.Context, p string) (lockops.Queue, error) {
	if err := t.Expand(ctx, p); err != nil {
		return lockops.Queue{Path: p}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return lockops.Queue{Path: p}, t.err
	}
	q, ok := t.locks[p]
	if !ok {
		kind := lockops.KindPostgresAdvisory
		if t.c.Kind() == dbview.KindMySQL {
			kind = lockops.KindMySQLGetLock
		}
		return lockops.Queue{Path: p, Kind: kind}, nil // its recipe, still known
	}
	return q, nil
}

// Err is the last read's error (nil when it answered).
func (t *Tree) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}
