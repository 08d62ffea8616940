package lockops

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// ScanOptions tune [Scan].
type ScanOptions struct {
	// MaxLeases is passed to semaphore decoding (see [DecodeOptions]).
	MaxLeases int
	// Depth bounds how many levels below the path are searched for locks
	// (0: no bound).
	Depth int
	// MaxNodes stops the walk after listing this many znodes (0: 100,000);
	// the queues found so far are returned with ErrScanTruncated.
	MaxNodes int
	// Skipped, when set, is told of each subtree below the path that
	// could not be read for the session's ACL (NoAuth) or was deleted
	// while the walk went on; the walk leaves it out and goes on. Unset,
	// an unreadable subtree fails the scan (deleted ones are left out).
	// It is called from the walk's goroutines, one call at a time.
	Skipped func(path string, err error)
}

// ErrScanTruncated is returned (with the locks found so far) when a scan
// stopped at ScanOptions.MaxNodes.
var ErrScanTruncated = errors.New("stopped after listing the maximum number of znodes; scan a narrower path")

// scanParallel is how many directories are listed at once: requests are
// pipelined on the one connection, so this hides latency without
// flooding the server.
const scanParallel = 16

// Scan reads the lock at p, or every lock below p when p is not a lock
// itself, and decodes each ([Decode]). Each lock directory costs one
// children listing and one bulk read of all its children; directories are
// listed concurrently. Paths are the client's view (chroot removed).
func Scan(ctx context.Context, c *zkview.Client, p string, o ScanOptions) ([]Queue, error) {
	if o.MaxNodes <= 0 {
		o.MaxNodes = 100000
	}
	s := &scanner{c: c, o: o}
	names, st, err := c.ListChildren(ctx, p)
	if err != nil {
		return nil, err // "list children of p: ..."
	}
	// p itself may be a kazoo semaphore (its queue is a sibling).
	if p != "/" && !IsLockDir(names) {
		if sibs, _, err := c.Children(path.Dir(p)); err == nil && slices.Contains(sibs, path.Base(p)+"-__lock__") {
			q, err := s.kazooSemaphore(ctx, p)
			if err != nil {
				return nil, err
			}
			return []Queue{q}, nil
		}
	}
	level := []listing{{path: p, names: names, stat: st, depth: 0}}
	s.listed = 1
	for len(level) > 0 {
		var next []listing
		var mu sync.Mutex
		err := forEach(ctx, len(level), func(i int) error {
			found, err := s.visit(ctx, level[i])
			mu.Lock()
			next = append(next, found...)
			mu.Unlock()
			return err
		})
		if err != nil {
			return s.sorted(), err
		}
		level = next
	}
	if s.truncated {
		return s.sorted(), ErrScanTruncated
	}
	return s.sorted(), nil
}

type listing struct {
	path  string
	names []string
	stat  zk.Stat
	depth int
}

type scanner struct {
	c         *zkview.Client
	o         ScanOptions
	mu        sync.Mutex
	queues    []Queue
	listed    int
	truncated bool
}

func (s *scanner) add(q Queue) {
	s.mu.Lock()
	s.queues = append(s.queues, q)
	s.mu.Unlock()
}

func (s *scanner) sorted() []Queue {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]Queue(nil), s.queues...)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// visit decodes l if it is a lock and otherwise lists its children for the
// next level.
func (s *scanner) visit(ctx context.Context, l listing) ([]listing, error) {
	switch {
	case slices.Contains(l.names, "leases") && slices.Contains(l.names, "locks") && len(l.names) <= 3:
		q, err := s.curatorSemaphore(ctx, l.path)
		if err == nil {
			s.add(q)
		}
		return nil, s.leaveOut(l.path, err)
	case IsLockDir(l.names):
		d, err := readChildren(ctx, s.c, l.path, l.names, l.stat)
		if err == nil {
			s.add(Decode(d, DecodeOptions{MaxLeases: s.o.MaxLeases}))
		}
		return nil, s.leaveOut(l.path, err)
	}
	if s.o.Depth > 0 && l.depth >= s.o.Depth {
		return nil, nil
	}
	has := make(map[string]bool, len(l.names))
	for _, n := range l.names {
		has[n] = true
	}
	var kids []string
	for _, n := range l.names {
		if base, ok := strings.CutSuffix(n, "-__lock__"); ok && has[base] {
			q, err := s.kazooSemaphore(ctx, zkview.Join(l.path, base))
			if err != nil {
				if err := s.leaveOut(zkview.Join(l.path, base), err); err != nil {
					return nil, err
				}
				continue
			}
			s.add(q)
			continue
		}
		if has[n+"-__lock__"] {
			continue // the semaphore, decoded with its queue above
		}
		kids = append(kids, n)
	}
	s.mu.Lock()
	if s.listed+len(kids) > s.o.MaxNodes {
		s.truncated = true
		kids = kids[:max(0, s.o.MaxNodes-s.listed)]
	}
	s.listed += len(kids)
	s.mu.Unlock()
	out := make([]listing, len(kids))
	err := forEach(ctx, len(kids), func(i int) error {
		p := zkview.Join(l.path, kids[i])
		names, st, err := s.c.Children(p)
		out[i] = listing{path: p, names: names, stat: st, depth: l.depth + 1}
		return s.leaveOut(p, err)
	})
	kept := out[:0]
	for _, o := range out {
		if len(o.names) > 0 {
			kept = append(kept, o)
		}
	}
	return kept, err
}

func (s *scanner) curatorSemaphore(ctx context.Context, p string) (Queue, error) {
	leases, err := readDir(ctx, s.c, zkview.Join(p, "leases"))
	if err != nil {
		return Queue{}, err
	}
	locks, err := readDir(ctx, s.c, zkview.Join(p, "locks"))
	if err != nil {
		return Queue{}, err
	}
	leases.Aux = &locks
	return Decode(leases, DecodeOptions{Kind: KindCuratorSemaphoreV2, MaxLeases: s.o.MaxLeases}), nil
}

func (s *scanner) kazooSemaphore(ctx context.Context, p string) (Queue, error) {
	sem, err := readDir(ctx, s.c, p)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return Queue{}, err
	}
	sem.Path = p
	queue, err := readDir(ctx, s.c, p+"-__lock__")
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return Queue{}, err
	}
	queue.Path = p + "-__lock__"
	sem.Aux = &queue
	return Decode(sem, DecodeOptions{Kind: KindKazooSemaphore, MaxLeases: s.o.MaxLeases}), nil
}

// ReadDir reads a lock directory for [Decode]: its own data and stat and
// all its children's, in one listing and one bulk read. Children deleted
// between the two are left out.
func ReadDir(ctx context.Context, c *zkview.Client, p string) (Dir, error) {
	return readDir(ctx, c, p)
}

func readDir(ctx context.Context, c *zkview.Client, p string) (Dir, error) {
	self, err := c.Get(p)
	if err != nil {
		return Dir{Path: p}, fmt.Errorf("read %s: %w", p, err)
	}
	_, nodes, err := c.ChildrenNodes(ctx, p)
	if err != nil {
		return Dir{Path: p}, fmt.Errorf("read children of %s: %w", p, err)
	}
	d := Dir{Path: p, Stat: self.Stat, Data: self.Data, Children: make([]Child, 0, len(nodes))}
	for _, n := range nodes {
		if n.Err != nil {
			continue // deleted meanwhile (or unreadable): not in the queue now
		}
		d.Children = append(d.Children, ChildOf(n.Name(), n.Path, &n.Stat, n.Data))
	}
	return d, nil
}

// readChildren bulk-reads the children of p already listed (names, with
// p's stat from the same listing): one round of multi-reads, no second
// listing. p's own data is not read (only semaphores need it).
func readChildren(ctx context.Context, c *zkview.Client, p string, names []string, st zk.Stat) (Dir, error) {
	// Read straight into the children (a 10,000-contender lock is read
	// into one slice, not copied through intermediate ones).
	kids := make([]Child, len(names))
	paths := joinAll(p, names)
	err := c.GetManyFunc(ctx, paths, func(i int, data []byte, st *zk.Stat, err error) {
		if err != nil {
			kids[i] = Child{} // deleted meanwhile (or unreadable): dropped below
			return
		}
		kids[i] = ChildOf(paths[i][len(paths[i])-len(names[i]):], paths[i], st, data)
	})
	if err != nil {
		return Dir{Path: p}, fmt.Errorf("read children of %s: %w", p, err)
	}
	kids = slices.DeleteFunc(kids, func(k Child) bool { return k.Path == "" })
	return Dir{Path: p, Stat: st, Children: kids}, nil
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

// forEach runs f(0..n-1) with up to scanParallel at once and returns the
// first error.
func forEach(ctx context.Context, n int, f func(int) error) error {
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
// caller collects such subtrees ([ScanOptions.Skipped]); else err.
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

func ignoreGone(err error) error {
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}
