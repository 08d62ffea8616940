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

// Delta is what one [ApplyEventsDelta] changed in a cached directory.
type Delta struct {
	// Whole: the directory was read whole (a resync, no cache), and Dir
	// has its children; else Dir has only its path, stat and data.
	Whole bool
	Dir   lockops.Dir
	// Gone are the children of the cache before that left or changed;
	// Fresh the children read (arrived or changed), in name order.
	Gone  []string
	Fresh []lockops.Child
}

// ApplyEventsDelta is [ApplyEvents] saying what changed rather than
// listing every child, for a caller that keeps the decoded queue up to
// date ([lockops.Splicer]); [CachedDir] gives the whole directory.
func ApplyEventsDelta(ctx context.Context, c *zkview.Client, p string, prev *DirCache, evs []zkview.FollowEvent) (Delta, *DirCache, error) {
	full := prev == nil || prev.Path != p
	for _, e := range evs {
		if e.Type == zkview.FollowResync || e.Path == p && e.Type == zkview.FollowCreated {
			full = true
		}
	}
	gone := Delta{Dir: lockops.Dir{Path: p}}
	if full {
		d, next, err := readWhole(ctx, c, p)
		return Delta{Whole: true, Dir: d}, next, err
	}
	if prev.Children == nil {
		return gone, prev, ErrDirGone // gone, and no event brought it back
	}
	next := prev
	names, left, dirGone := childEvents(p, evs, next)
	if dirGone {
		return gone, &DirCache{Path: p}, ErrDirGone
	}
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
	dl := Delta{Dir: lockops.Dir{Path: p, Stat: st, Data: next.Data}, Gone: left, Fresh: kids[:0]}
	for i, k := range kids {
		if _, ok := next.Children[names[i]]; ok {
			dl.Gone = append(dl.Gone, names[i]) // changed (or deleted meanwhile)
		}
		if k.Path == "" {
			delete(next.Children, names[i]) // deleted meanwhile: its event follows
		} else {
			next.Children[names[i]] = k
			dl.Fresh = append(dl.Fresh, k)
		}
	}
	if err == nil && dirErr != nil {
		err = dirErr
	}
	if errors.Is(err, zk.ErrNoNode) {
		return gone, &DirCache{Path: p}, ErrDirGone
	}
	if err != nil {
		return gone, nil, fmt.Errorf("read %s: %w", p, err)
	}
	return dl, next, nil
}

// childEvents applies evs' departures to cache and returns the children
// to read (created or changed, in name order), those of cache that left,
// and whether p itself was deleted.
func childEvents(p string, evs []zkview.FollowEvent, cache *DirCache) (read, left []string, dirGone bool) {
	fresh := map[string]bool{}
	for _, e := range evs {
		if e.Path == p {
			if e.Type == zkview.FollowDeleted {
				return nil, nil, true
			}
			continue // its data: read with its stat
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
			if _, ok := cache.Children[name]; ok {
				left = append(left, name)
				delete(cache.Children, name)
			}
		}
	}
	read = make([]string, 0, len(fresh))
	for n := range fresh {
		read = append(read, n)
	}
	slices.Sort(read)
	return read, left, false
}

// CachedDir is the directory as cache holds it, with stat st (the
// election context read where it is one).
func CachedDir(ctx context.Context, c *zkview.Client, st zk.Stat, cache *DirCache) (lockops.Dir, *DirCache, error) {
	return cachedDir(ctx, c, cache.Path, st, cache)
}
