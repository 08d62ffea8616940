package scan

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"

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
	full := prev == nil || prev.Path != p
	for _, e := range evs {
		if e.Type == zkview.FollowResync || e.Path == p && e.Type == zkview.FollowCreated {
			full = true
		}
	}
	if full {
		return readWhole(ctx, c, p)
	}
	if prev.Children == nil {
		return lockops.Dir{Path: p}, prev, ErrDirGone // gone, and no event brought it back
	}
	next := prev
	fresh := map[string]bool{}
	for _, e := range evs {
		if e.Path == p {
			if e.Type == zkview.FollowDeleted {
				return lockops.Dir{Path: p}, &DirCache{Path: p}, ErrDirGone
			}
			continue // its data: read below with its stat
		}
		if path.Dir(e.Path) != p {
			continue // deeper: no lock node has children a decoder reads
		}
		name := path.Base(e.Path)
		switch e.Type {
		case zkview.FollowCreated, zkview.FollowDataChanged:
			fresh[name] = true
		case zkview.FollowDeleted:
			delete(fresh, name)
			delete(next.Children, name)
		}
	}
	names := make([]string, 0, len(fresh))
	for n := range fresh {
		names = append(names, n)
	}
	slices.Sort(names)
	paths := append([]string{p}, joinAll(p, names)...)
	// each may be called concurrently (batches in flight): results by index.
	var st zk.Stat
	var dirErr error
	kids := make([]lockops.Child, len(names))
	err := c.GetManyFunc(ctx, paths, func(i int, data []byte, s *zk.Stat, err error) {
		switch {
		case i == 0 && err != nil:
			dirErr = err
		case i == 0:
			st, next.Data, next.Version = *s, data, s.Version
		case err == nil:
			kids[i-1] = lockops.ChildOf(names[i-1], paths[i], s, data)
		}
	})
	for i, k := range kids {
		if k.Path == "" {
			delete(next.Children, names[i]) // deleted meanwhile: its event follows
		} else {
			next.Children[names[i]] = k
		}
	}
	if err == nil && dirErr != nil {
		err = dirErr
	}
	if errors.Is(err, zk.ErrNoNode) {
		return lockops.Dir{Path: p}, &DirCache{Path: p}, ErrDirGone
	}
	if err != nil {
		return lockops.Dir{Path: p}, nil, fmt.Errorf("read %s: %w", p, err)
	}
	return cachedDir(ctx, c, p, st, next)
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
