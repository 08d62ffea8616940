package scan

import (
	"cmp"
	"context"
	"errors"
	"fmt"

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

// ApplyEventsMany is [ApplyEvents] on several directories at once: the
// nodes they need read (each directory's stat and its new children) in
// one bulk read, not one round trip per directory.
func ApplyEventsMany(ctx context.Context, c *zkview.Client, dirs []DirEvents) []DirApplied {
	out := make([]DirApplied, len(dirs))
	type part struct {
		at, n int // the directory's paths in the bulk read: at, then n children
		names []string
		st    zk.Stat
		err   error
	}
	parts := make([]part, len(dirs))
	var paths []string
	for i, de := range dirs {
		parts[i].at = -1
		names, whole, done := changedNames(de)
		switch {
		case done != nil:
			out[i] = *done
		case whole:
			out[i].Dir, out[i].Cache, out[i].Err = readWhole(ctx, c, de.Path)
		default:
			parts[i] = part{at: len(paths), n: len(names), names: names}
			paths = append(paths, de.Path)
			paths = append(paths, joinAll(de.Path, names)...)
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
			cache := dirs[owner[j]].Cache
			cache.Data, cache.Version = data, s.Version
		case err == nil:
			kids[j] = lockops.ChildOf(pt.names[j-pt.at-1], paths[j], s, data)
		}
	})
	for i := range parts {
		if parts[i].at < 0 {
			continue
		}
		out[i] = finishApply(ctx, c, dirs[i], parts[i].names, kids[parts[i].at+1:parts[i].at+1+parts[i].n], parts[i].st, cmp.Or(err, parts[i].err))
	}
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
