// Package scan reads ZooKeeper locks: every lock directory below a path
// on the tree walker ([Scan]: semaphores' two places paired, a system's
// election read with its context, elections.go), one directory read
// again cheaply ([ReadDirAgain]), the lock directory a node is in or
// would be created in ([ReadLockDirOf], [EnclosingLock], lockdir.go), the
// plain ephemeral locks the servers' watch lists point at
// ([FindEphemeralLocks]), and the subtrees it could not read
// ([Unreadable]). Decoding is the recipe model's ([lockops.Decode]).
//
// It reads through zkview; it imports no other lock package, nor ui or
// cmd.
package scan

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// Options tune [Scan].
type Options struct {
	// MaxLeases is passed to semaphore decoding (see [lockops.DecodeOptions]).
	MaxLeases int
	// Depth bounds how many levels below the path are searched for locks
	// (0: no bound).
	Depth int
	// MaxNodes stops the walk after listing this many znodes (0:
	// 5,000,000); the queues found so far are returned with
	// [ErrTruncated]. The walk's memory follows the directories waiting
	// to be listed, not the tree, so the bound is about time.
	MaxNodes int
	// Skipped, when set, is told of each subtree below the path that
	// could not be read for the session's ACL (NoAuth) or was deleted
	// while the walk went on; the walk leaves it out and goes on. Unset,
	// an unreadable subtree fails the scan (deleted ones are left out).
	// It is called from the walk's goroutines, one call at a time.
	Skipped func(path string, err error)
	// Progress, when set, is told how far the walk got after each
	// directory: nodes listed and locks found so far. It is called from
	// the walk's goroutine, often: rate-limit what it draws.
	Progress func(nodes, locks int)
	// Reading, when set, is told of each lock directory whose children
	// are about to be read (data and stat), with their number: a one-shot
	// command readies its heap for a big lock there, with no round trip
	// of its own to learn the size. Called from the walk's goroutine.
	Reading func(path string, children int)
	// InFlight, when positive, is how many batches of reads the walk
	// keeps in flight at most ([zkview.WalkOptions.InFlight]): a scan
	// beside other reads (a follow's net under its events) leaves the
	// servers room to answer them.
	InFlight int
	// Dirs, when set, is given each lock directory the walk read (not a
	// semaphore's or an election's), as decoded, for a caller that keeps
	// it as a [DirCache] ([CacheOf]). Called from the walk's goroutine.
	Dirs func(d lockops.Dir)
}

// ErrTruncated is returned (with the locks found so far) when a scan
// stopped at Options.MaxNodes.
var ErrTruncated = errors.New("stopped after listing the maximum number of znodes; scan a narrower path")

// scanParallel is how many semaphores are read at once after the walk.
const scanParallel = 16

// Scan reads the lock at p, or every lock below p when p is not a lock
// itself, and decodes each ([lockops.Decode]). The tree is walked breadth-first
// ([zkview.Client.Walk]): every listing and every lock node's data travel
// in multi-read batches, and a lock directory is recognised from its
// children's names, so only lock nodes' data is read. Semaphores (whose
// queues span two directories) are read after the walk. Paths are the
// client's view (chroot removed).
func Scan(ctx context.Context, c *zkview.Client, p string, o Options) ([]lockops.Queue, error) {
	if o.MaxNodes <= 0 {
		o.MaxNodes = 5000000
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &scanner{c: c, o: o, listed: 1, root: p, cancel: cancel}
	read := func(dir string, names []string) bool {
		ok := lockops.IsLockDir(names) && !lockops.IsCuratorSemaphore(names)
		if ok && o.Reading != nil {
			o.Reading(dir, len(names))
		}
		return ok
	}
	err := c.Walk(ctx, p, zkview.WalkOptions{Read: read, DirStat: true, InFlight: o.InFlight}, func(d *zkview.WalkDir) bool {
		return s.visit(ctx, d)
	})
	if s.err != nil {
		err = s.err
	}
	if err == nil {
		err = s.semaphores(ctx)
	}
	if err == nil {
		err = s.readElections(ctx)
	}
	if err != nil {
		return s.sorted(), err
	}
	if s.truncated {
		return s.sorted(), ErrTruncated
	}
	return s.sorted(), nil
}

type scanner struct {
	c      *zkview.Client
	o      Options
	root   string
	cancel context.CancelFunc
	err    error // the first failure that ends the scan

	mu        sync.Mutex
	queues    []lockops.Queue
	listed    int
	truncated bool
	// Semaphores met by the walk, read after it: Curator's (the path) and
	// kazoo's (the path of the semaphore, its queue being path-__lock__).
	curatorSems, kazooSems []string
	// Systems' elections met by the walk, read with their context after
	// it (elections.go).
	elections []lockops.Dir
}

// add keeps q, just read and decoded (its ReadAt is now).
func (s *scanner) add(q lockops.Queue) {
	q.ReadAt = time.Now()
	s.mu.Lock()
	s.queues = append(s.queues, q)
	s.mu.Unlock()
}

func (s *scanner) sorted() []lockops.Queue {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]lockops.Queue(nil), s.queues...)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// visit takes one directory of the walk: a lock directory (its children
// read) is decoded, a semaphore noted for later, any other directory's
// children walked in turn. It returns whether the walk goes below d.
func (s *scanner) visit(ctx context.Context, d *zkview.WalkDir) bool {
	switch {
	case d.Err != nil:
		if err := s.leaveOut(d.Path, d.Err); err != nil && s.err == nil {
			s.err = err
			s.cancel()
		}
		return false
	case d.Nodes != nil:
		noted, below := s.election(d)
		if !noted {
			dir := dirOf(d)
			if s.o.Dirs != nil {
				s.o.Dirs(dir)
			}
			s.add(lockops.Decode(dir, lockops.DecodeOptions{MaxLeases: s.o.MaxLeases}))
		}
		if !below {
			return false
		}
	case lockops.IsCuratorSemaphore(d.Names):
		s.curatorSems = append(s.curatorSems, d.Path)
		return false
	case d.Depth == 0 && s.isKazooSemaphore(d):
		s.kazooSems = append(s.kazooSems, d.Path)
		return false
	}
	if s.o.Depth > 0 && d.Depth >= s.o.Depth {
		return false
	}
	kids := d.Names
	if slices.ContainsFunc(d.Names, func(n string) bool { return strings.HasSuffix(n, lockops.KazooSemaphoreLock) }) {
		kids = s.kazooPairs(d)
	}
	s.mu.Lock()
	if s.listed+len(kids) > s.o.MaxNodes {
		s.truncated = true
		kids = kids[:max(0, s.o.MaxNodes-s.listed)]
	}
	s.listed += len(kids)
	s.mu.Unlock()
	d.Names = kids
	if s.o.Progress != nil {
		s.o.Progress(s.listed, len(s.queues))
	}
	return true
}

// kazooPairs notes the kazoo semaphores among d's children (a name and
// name-__lock__) and returns the other children.
func (s *scanner) kazooPairs(d *zkview.WalkDir) []string {
	has := make(map[string]bool, len(d.Names))
	for _, n := range d.Names {
		has[n] = true
	}
	kids := d.Names[:0:0]
	for _, n := range d.Names {
		if base, ok := strings.CutSuffix(n, lockops.KazooSemaphoreLock); ok && has[base] {
			s.kazooSems = append(s.kazooSems, zkview.Join(d.Path, base))
			continue
		}
		if has[n+lockops.KazooSemaphoreLock] {
			continue // the semaphore, read with its queue
		}
		kids = append(kids, n)
	}
	return kids
}

// isKazooSemaphore says whether the walk's root d, not a lock itself, is
// a kazoo semaphore (its queue is a sibling, d-__lock__).
func (s *scanner) isKazooSemaphore(d *zkview.WalkDir) bool {
	if d.Path == "/" || lockops.IsLockDir(d.Names) {
		return false
	}
	sibs, _, err := s.c.Children(path.Dir(d.Path))
	return err == nil && slices.Contains(sibs, path.Base(d.Path)+lockops.KazooSemaphoreLock)
}

// dirOf is the lock directory d, read by the walk, for [lockops.Decode]: children
// deleted between the listing and the read (or unreadable) are left out.
func dirOf(d *zkview.WalkDir) lockops.Dir {
	kids := make([]lockops.Child, 0, len(d.Nodes))
	for i := range d.Nodes {
		n := &d.Nodes[i]
		if n.Err != nil {
			continue
		}
		kids = append(kids, lockops.ChildOf(d.Names[i], n.Path, &n.Stat, n.Data))
	}
	return lockops.Dir{Path: d.Path, Stat: d.Stat, Children: kids}
}

// semaphores reads the semaphores the walk met.
func (s *scanner) semaphores(ctx context.Context) error {
	read := func(p string, get func(context.Context, string) (lockops.Queue, error)) error {
		q, err := get(ctx, p)
		if err == nil {
			s.add(q)
		}
		return s.leaveOut(p, err)
	}
	err := ForEach(ctx, len(s.curatorSems), func(i int) error { return read(s.curatorSems[i], s.curatorSemaphore) })
	if err != nil {
		return err
	}
	return ForEach(ctx, len(s.kazooSems), func(i int) error { return read(s.kazooSems[i], s.kazooSemaphore) })
}

func (s *scanner) curatorSemaphore(ctx context.Context, p string) (lockops.Queue, error) {
	leases, err := readDir(ctx, s.c, lockops.JoinPath(p, lockops.CuratorLeases))
	if err != nil {
		return lockops.Queue{}, err
	}
	locks, err := readDir(ctx, s.c, lockops.JoinPath(p, lockops.CuratorLocks))
	if err != nil {
		return lockops.Queue{}, err
	}
	leases.Aux = &locks
	return lockops.Decode(leases, lockops.DecodeOptions{Kind: lockops.KindCuratorSemaphoreV2, MaxLeases: s.o.MaxLeases}), nil
}

func (s *scanner) kazooSemaphore(ctx context.Context, p string) (lockops.Queue, error) {
	sem, err := readDir(ctx, s.c, p)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return lockops.Queue{}, err
	}
	sem.Path = p
	queue, err := readDir(ctx, s.c, p+lockops.KazooSemaphoreLock)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return lockops.Queue{}, err
	}
	queue.Path = p + lockops.KazooSemaphoreLock
	sem.Aux = &queue
	return lockops.Decode(sem, lockops.DecodeOptions{Kind: lockops.KindKazooSemaphore, MaxLeases: s.o.MaxLeases}), nil
}

// ReadDir reads a lock directory for [lockops.Decode]: its own data and stat and
// all its children's, in one listing and one bulk read. Children deleted
// between the two are left out.
// A system's election gets the nodes it keeps elsewhere (Dir.Context).
func ReadDir(ctx context.Context, c *zkview.Client, p string) (lockops.Dir, error) {
	d, err := readDir(ctx, c, p)
	if err != nil {
		return d, err
	}
	return withElectionContext(ctx, c, d)
}

func readDir(ctx context.Context, c *zkview.Client, p string) (lockops.Dir, error) {
	self, err := c.Get(p)
	if err != nil {
		return lockops.Dir{Path: p}, fmt.Errorf("read %s: %w", p, err)
	}
	_, nodes, err := c.ChildrenNodes(ctx, p)
	if err != nil {
		return lockops.Dir{Path: p}, fmt.Errorf("read children of %s: %w", p, err)
	}
	d := lockops.Dir{Path: p, Stat: self.Stat, Data: self.Data, Children: make([]lockops.Child, 0, len(nodes))}
	for _, n := range nodes {
		if n.Err != nil {
			continue // deleted meanwhile (or unreadable): not in the queue now
		}
		d.Children = append(d.Children, lockops.ChildOf(n.Name(), n.Path, &n.Stat, n.Data))
	}
	return d, nil
}

// readChildren bulk-reads the children of p already listed (names, with
// p's stat from the same listing): one round of multi-reads, no second
// listing. p's own data is not read (only semaphores need it).
func readChildren(ctx context.Context, c *zkview.Client, p string, names []string, st zk.Stat) (lockops.Dir, error) {
	// Read straight into the children (a 10,000-contender lock is read
	// into one slice, not copied through intermediate ones).
	kids := make([]lockops.Child, len(names))
	paths := joinAll(p, names)
	err := c.GetManyFunc(ctx, paths, func(i int, data []byte, st *zk.Stat, err error) {
		if err != nil {
			kids[i] = lockops.Child{} // deleted meanwhile (or unreadable): dropped below
			return
		}
		kids[i] = lockops.ChildOf(paths[i][len(paths[i])-len(names[i]):], paths[i], st, data)
	})
	if err != nil {
		return lockops.Dir{Path: p}, fmt.Errorf("read children of %s: %w", p, err)
	}
	kids = slices.DeleteFunc(kids, func(k lockops.Child) bool { return k.Path == "" })
	return lockops.Dir{Path: p, Stat: st, Children: kids}, nil
}

// joinAll joins dir with each name, the paths sharing one allocation
// (10,000 contenders' paths are one string, not 10,000).
func joinAll(dir string, names []string) []string {
	prefix := dir + "/"
	if dir == "/" {
		prefix = "/"
	}
	size := 0
	for _, n := range names {
		size += len(prefix) + len(n)
	}
	var all strings.Builder
	all.Grow(size)
	for _, n := range names {
		all.WriteString(prefix)
		all.WriteString(n)
	}
	s := all.String()
	paths := make([]string, len(names))
	at := 0
	for i, n := range names {
		end := at + len(prefix) + len(n)
		paths[i] = s[at:end]
		at = end
	}
	return paths
}

// ForEach runs f(0..n-1) with up to scanParallel at once and returns the
// first error.
func ForEach(ctx context.Context, n int, f func(int) error) error {
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	sem := make(chan struct{}, scanParallel)
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			once.Do(func() { first = ctx.Err() })
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			if err := f(i); err != nil {
				once.Do(func() { first = err })
			}
		}(i)
	}
	wg.Wait()
	return first
}

// leaveOut decides about a subtree at p that failed with err: nil (left
// out) when it was deleted meanwhile, or when it is not readable and the
// caller collects such subtrees ([Options.Skipped]); else err.
func (s *scanner) leaveOut(p string, err error) error {
	gone := errors.Is(err, zk.ErrNoNode)
	if err == nil || !gone && (!errors.Is(err, zk.ErrNoAuth) || s.o.Skipped == nil) {
		return err
	}
	if s.o.Skipped != nil {
		s.mu.Lock()
		s.o.Skipped(p, err)
		s.mu.Unlock()
	}
	return nil
}

// IgnoreGone is err, nil when it says the node is gone (ErrNoNode).
func IgnoreGone(err error) error {
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}

// DirCache is what one read of a lock directory learnt, for the next
// ([ReadDirAgain]): lock nodes are written once, at creation, so a child
// already read need not be read again while it exists.
type DirCache struct {
	Path     string
	Data     []byte // the directory's own data,
	Version  int32  // at this data version
	Children map[string]lockops.Child
}

// ReadDirAgain reads the lock directory p just listed as names (st: the
// listing's stat of p) for [lockops.Decode]: only children that prev (the last
// read's cache; nil: none) does not hold are read, departed ones are
// dropped, and p's own data is read only when its version changed. It
// returns the directory and the cache for the next read; prev is not
// changed. Children deleted between the listing and the read are left out.
func ReadDirAgain(ctx context.Context, c *zkview.Client, p string, names []string, st zk.Stat, prev *DirCache) (lockops.Dir, *DirCache, error) {
	next := &DirCache{Path: p, Children: make(map[string]lockops.Child, len(names))}
	if prev != nil && prev.Path == p && prev.Version == st.Version {
		next.Data, next.Version = prev.Data, prev.Version
	} else {
		self, err := c.Get(p)
		if err != nil {
			return lockops.Dir{Path: p}, nil, fmt.Errorf("read %s: %w", p, err)
		}
		next.Data, next.Version = self.Data, self.Stat.Version
	}
	var fresh []string
	for _, n := range names {
		if prev != nil && prev.Path == p {
			if k, ok := prev.Children[n]; ok {
				next.Children[n] = k
				continue
			}
		}
		fresh = append(fresh, n)
	}
	if len(fresh) > 0 {
		paths := joinAll(p, fresh)
		kids := make([]lockops.Child, len(fresh))
		err := c.GetManyFunc(ctx, paths, func(i int, data []byte, st *zk.Stat, err error) {
			if err != nil {
				kids[i] = lockops.Child{} // deleted meanwhile (or unreadable): dropped
				return
			}
			kids[i] = lockops.ChildOf(fresh[i], paths[i], st, data)
		})
		if err != nil {
			return lockops.Dir{Path: p}, nil, fmt.Errorf("read children of %s: %w", p, err)
		}
		for _, k := range kids {
			if k.Path != "" {
				next.Children[k.Name] = k
			}
		}
	}
	d := lockops.Dir{Path: p, Stat: st, Data: next.Data, Children: make([]lockops.Child, 0, len(next.Children))}
	for _, n := range names {
		if k, ok := next.Children[n]; ok {
			d.Children = append(d.Children, k)
		}
	}
	d, err := withElectionContext(ctx, c, d) // a system's election: its nodes elsewhere
	return d, next, err
}
