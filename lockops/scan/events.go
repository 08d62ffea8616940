package scan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// ErrDirGone is [ApplyEvents]' answer when the lock directory was deleted
// (it wraps zk.ErrNoNode); the cache it returns waits for the directory to
// come back.
var ErrDirGone = fmt.Errorf("the lock directory no longer exists: %w", zk.ErrNoNode)

// ApplyEvents brings the lock directory p that prev caches (nil: nothing
// known) up to date with evs, the events of a recursive [zkview.Follow] on
// p in order, for [lockops.Decode]: a child created or whose data changed
// is read (all of them, and p itself for its stat, in one bulk read), a
// deleted child leaves; a resync, or no cache, reads the whole directory
// again. It returns the directory and the cache for the next call: prev,
// changed in place (a 1,000-child cache is not copied per event; the
// caller keeps only the cache returned, nil after a failure). What it returns is what a fresh read would decode once the
// events up to the server's present have been applied.
func ApplyEvents(ctx context.Context, c *zkview.Client, p string, prev *DirCache, evs []zkview.FollowEvent) (lockops.Dir, *DirCache, error) {
	out := ApplyEventsMany(ctx, c, []DirEvents{{Path: p, Cache: prev, Events: evs}})
	return out[0].Dir, out[0].Cache, out[0].Err
}

// DirEvents are one lock directory's events for [ApplyEventsMany], with
// its cache (nil: nothing known).
type DirEvents struct {
	Path   string
	Cache  *DirCache
	Events []zkview.FollowEvent
}

// DirApplied is what [ApplyEvents] returns for one directory.
type DirApplied struct {
	Dir   lockops.Dir
	Cache *DirCache
	Err   error
}

// CacheOf is the cache of d, a lock directory as a scan read it
// ([Options.Dirs]), for [ApplyEvents] and [ReadDirAgain]: its children
// as read; its own data unknown (the next read reads it).
func CacheOf(d lockops.Dir) *DirCache {
	c := &DirCache{Path: d.Path, Version: -1, Children: make(map[string]lockops.Child, len(d.Children))}
	for _, k := range d.Children {
		c.Children[k.Name] = k
	}
	return c
}

// ApplyEventsMany is [ApplyEvents] on several directories at once: the
// directories read whole listed together (concurrently), then the nodes
// they all need (each directory's stat, its new children, every child of
// those read whole) in one bulk read, not round trips per directory.
func ApplyEventsMany(ctx context.Context, c *zkview.Client, dirs []DirEvents) []DirApplied {
	out := make([]DirApplied, len(dirs))
	type part struct {
		at, n int // the directory's paths in the bulk read: at, then n children
		names []string
		cache *DirCache // what the children read are put in
		read  bool      // in the bulk read
		st    zk.Stat
		err   error
	}
	parts := make([]part, len(dirs))
	var whole []int
	for i, de := range dirs {
		parts[i] = part{at: -1, cache: de.Cache}
		names, all, done := changedNames(de)
		switch {
		case done != nil:
			out[i] = *done
		case all:
			whole = append(whole, i)
		default:
			parts[i].names, parts[i].read = names, true
		}
	}
	lists := listAll(c, dirs, whole)
	for k, i := range whole {
		if l := lists[k]; l.err != nil {
			out[i] = l.failed(dirs[i].Path)
		} else {
			parts[i].names, parts[i].read = l.names, true
			parts[i].cache = &DirCache{Path: dirs[i].Path, Children: make(map[string]lockops.Child, len(l.names))}
		}
	}
	var paths []string
	for i := range parts {
		if parts[i].read {
			parts[i].at, parts[i].n = len(paths), len(parts[i].names)
			paths = append(paths, dirs[i].Path)
			paths = append(paths, joinAll(dirs[i].Path, parts[i].names)...)
		}
	}
	if len(paths) == 0 {
		return out
	}
	// owner is each path's directory (parts' index), for the results.
	owner := make([]int, len(paths))
	for i := range parts {
		for k := 0; parts[i].at >= 0 && k <= parts[i].n; k++ {
			owner[parts[i].at+k] = i
		}
	}
	kids := make([]lockops.Child, len(paths))
	// each may be called concurrently (batches in flight): results by index.
	err := c.GetManyFunc(ctx, paths, func(j int, data []byte, s *zk.Stat, err error) {
		pt := &parts[owner[j]]
		switch {
		case j == pt.at && err != nil:
			pt.err = err
		case j == pt.at:
			pt.st = *s
			pt.cache.Data, pt.cache.Version = data, s.Version
		case err == nil:
			kids[j] = lockops.ChildOf(pt.names[j-pt.at-1], paths[j], s, data)
		}
	})
	for i := range parts {
		if parts[i].at < 0 {
			continue
		}
		de := DirEvents{Path: dirs[i].Path, Cache: parts[i].cache, Events: dirs[i].Events}
		out[i] = finishApply(ctx, c, de, parts[i].names, kids[parts[i].at+1:parts[i].at+1+parts[i].n], parts[i].st, cmp.Or(err, parts[i].err))
	}
	return out
}

// listing is a directory's children as listed.
type listing struct {
	names []string
	err   error
}

// failed is what ApplyEvents answers for p, whose listing failed.
func (l listing) failed(p string) DirApplied {
	if errors.Is(l.err, zk.ErrNoNode) {
		return DirApplied{Dir: lockops.Dir{Path: p}, Cache: &DirCache{Path: p}, Err: ErrDirGone}
	}
	return DirApplied{Dir: lockops.Dir{Path: p}, Err: fmt.Errorf("list %s: %w", p, l.err)}
}

// listWidth is how many listings listAll keeps in flight.
const listWidth = 64

// listAll lists the children of dirs[i] for each i of which, concurrently
// (a listing each, pipelined on the connection).
func listAll(c *zkview.Client, dirs []DirEvents, which []int) []listing {
	out := make([]listing, len(which))
	if len(which) == 1 {
		out[0].names, _, out[0].err = c.Children(dirs[which[0]].Path)
		return out
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, listWidth)
	for k, i := range which {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[k].names, _, out[k].err = c.Children(dirs[i].Path)
		}()
	}
	wg.Wait()
	return out
}

// changedNames is what de's events ask: the children to read (created
// or changed, sorted), or the whole directory again (a resync, no cache,
// the directory itself created), or an answer already (done: the
// directory gone).
func changedNames(de DirEvents) (names []string, whole bool, done *DirApplied) {
	p, prev := de.Path, de.Cache
	if prev == nil || prev.Path != p {
		return nil, true, nil
	}
	for _, e := range de.Events {
		if e.Type == zkview.FollowResync || e.Path == p && e.Type == zkview.FollowCreated {
			return nil, true, nil
		}
	}
	if prev.Children == nil {
		return nil, false, &DirApplied{Dir: lockops.Dir{Path: p}, Cache: prev, Err: ErrDirGone} // gone, and no event brought it back
	}
	names, _, dirGone := childEvents(p, de.Events, prev)
	if dirGone {
		return nil, false, &DirApplied{Dir: lockops.Dir{Path: p}, Cache: &DirCache{Path: p}, Err: ErrDirGone}
	}
	return names, false, nil
}

// finishApply puts the children read (kids, by names; an empty Path: not
// read) into de's cache and returns the directory (st: its stat; err:
// the bulk read's, or the directory's own).
func finishApply(ctx context.Context, c *zkview.Client, de DirEvents, names []string, kids []lockops.Child, st zk.Stat, err error) DirApplied {
	p, next := de.Path, de.Cache
	for i, k := range kids {
		if k.Path == "" {
			delete(next.Children, names[i]) // deleted meanwhile: its event follows
		} else {
			next.Children[names[i]] = k
		}
	}
	if errors.Is(err, zk.ErrNoNode) {
		return DirApplied{Dir: lockops.Dir{Path: p}, Cache: &DirCache{Path: p}, Err: ErrDirGone}
	}
	if err != nil {
		return DirApplied{Dir: lockops.Dir{Path: p}, Err: fmt.Errorf("read %s: %w", p, err)}
	}
	d, cache, err := cachedDir(ctx, c, p, st, next)
	return DirApplied{Dir: d, Cache: cache, Err: err}
}

// readWhole lists and reads the whole directory p (a resync).
func readWhole(ctx context.Context, c *zkview.Client, p string) (lockops.Dir, *DirCache, error) {
	names, st, err := c.Children(p)
	if errors.Is(err, zk.ErrNoNode) {
		return lockops.Dir{Path: p}, &DirCache{Path: p}, ErrDirGone
	}
	if err != nil {
		return lockops.Dir{Path: p}, nil, fmt.Errorf("list %s: %w", p, err)
	}
	return ReadDirAgain(ctx, c, p, names, st, nil)
}

// cachedDir is the directory as cache holds it.
func cachedDir(ctx context.Context, c *zkview.Client, p string, st zk.Stat, cache *DirCache) (lockops.Dir, *DirCache, error) {
	d := lockops.Dir{Path: p, Stat: st, Data: cache.Data, Children: make([]lockops.Child, 0, len(cache.Children))}
	for _, k := range cache.Children {
		d.Children = append(d.Children, k) // in no order: Decode orders them
	}
	d, err := withElectionContext(ctx, c, d)
	return d, cache, err
}
