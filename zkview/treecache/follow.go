package treecache

// Persistent watches (ZooKeeper 3.6+, zkview.Client.Follow): every
// expanded directory and the selected node carry one watch of mode
// PERSISTENT (the node's data and child list, set once, never re-armed),
// on zkscope's own watch session, removed (removeWatches) when the
// directory is collapsed or the selection moves. Not one recursive watch:
// the tree shows a few levels of what may be a big tree, and a recursive
// watch on an open "/" would bring every change of every node below it.
// After the watch session is opened again (a restart, a failover) each
// watch's resync re-reads what it covers, and a reconnect of the main
// session re-reads every open directory (the reads go through it). A
// server that refuses addWatch, or SetPolling, leaves the tree on the
// one-shot watches of load.go.

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/zkscope/zkscope/zkview"
)

// followRetry is how long the tree waits before trying a persistent watch
// again after one could not be set (other than the server refusing it).
const followRetry = 30 * time.Second

// follows are the tree's persistent watches (under Tree.mu).
type follows struct {
	poll    bool
	retryAt time.Time
	dirs    map[string]*zkview.Follow // expanded directories
	sel     *zkview.Follow            // the selected node
	selPath string
	// stopping: a path's watch being removed; a new watch on it waits,
	// so a removeWatches never lands after the new addWatch.
	stopping map[string]chan struct{}
}

// SetPolling keeps the tree on one-shot watches even where persistent
// watches work (the old path, for comparisons). Call it before the first
// Expand.
func (t *Tree) SetPolling(poll bool) {
	t.mu.Lock()
	t.fol.poll = poll
	t.mu.Unlock()
}

// Following says whether p's children (or, selected, its data) are kept
// current by a persistent watch rather than one-shot watches.
func (t *Tree) Following(p string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.fol.dirs[p] != nil || (t.fol.sel != nil && t.fol.selPath == p)
}

// followableLocked says whether the next watch should be persistent.
func (t *Tree) followableLocked() bool {
	if t.fol.poll || time.Now().Before(t.fol.retryAt) {
		return false
	}
	ok, known := t.c.FollowSupported()
	return ok || !known
}

// startFollow sets a persistent watch on p; the events queued before the
// read that follows are dropped (the read covers them). nil: one-shot
// watches.
func (t *Tree) startFollow(ctx context.Context, p string) *zkview.Follow {
	t.mu.Lock()
	ch := t.fol.stopping[p]
	ok := t.followableLocked()
	t.mu.Unlock()
	if !ok {
		return nil
	}
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		}
	}
	f, err := t.c.Follow(ctx, p, false)
	if err != nil {
		if !errors.Is(err, zkview.ErrFollowUnsupported) {
			t.mu.Lock()
			t.fol.retryAt = time.Now().Add(followRetry)
			t.mu.Unlock()
		}
		return nil
	}
	f.Take() // the first resync: the caller reads next
	return f
}

// followDir sets the persistent watch of an expanded directory (before
// its children are read).
func (t *Tree) followDir(ctx context.Context, p string) {
	t.mu.Lock()
	has := t.fol.dirs[p] != nil
	t.mu.Unlock()
	if has {
		return
	}
	f := t.startFollow(ctx, p)
	if f == nil {
		return
	}
	t.mu.Lock()
	if t.dirs[p] == nil || t.fol.dirs[p] != nil { // collapsed, or followed by another Expand, meanwhile
		t.mu.Unlock()
		f.Stop()
		return
	}
	t.fol.dirs[p] = f
	t.mu.Unlock()
	go t.pump(f, p, ChangeChildren)
}

// followSelected moves the selection's persistent watch to p ("" ends it).
func (t *Tree) followSelected(ctx context.Context, p string) {
	t.mu.Lock()
	if t.fol.sel != nil && t.fol.selPath == p {
		t.mu.Unlock()
		return
	}
	if t.fol.sel != nil {
		t.stopLocked(t.fol.selPath, t.fol.sel)
		t.fol.sel, t.fol.selPath = nil, ""
	}
	t.mu.Unlock()
	if p == "" {
		return
	}
	f := t.startFollow(ctx, p)
	if f == nil {
		return
	}
	t.mu.Lock()
	if t.selected != p || t.fol.sel != nil {
		t.mu.Unlock()
		f.Stop()
		return
	}
	t.fol.sel, t.fol.selPath = f, p
	t.mu.Unlock()
	go t.pump(f, p, ChangeData)
}

// stopLocked removes f's watch on p in the background (no I/O under the
// lock, nor in a caller's Update); a new watch on p waits for it.
func (t *Tree) stopLocked(p string, f *zkview.Follow) {
	prev := t.fol.stopping[p]
	done := make(chan struct{})
	t.fol.stopping[p] = done
	go func() {
		if prev != nil {
			<-prev
		}
		f.Stop()
		close(done)
		t.mu.Lock()
		if t.fol.stopping[p] == done {
			delete(t.fol.stopping, p)
		}
		t.mu.Unlock()
	}()
}

// unfollowBelowLocked removes the watches of p's expanded directories
// and of every one below it.
func (t *Tree) unfollowBelowLocked(p, prefix string) {
	for q, f := range t.fol.dirs {
		if q == p || strings.HasPrefix(q, prefix) {
			delete(t.fol.dirs, q)
			t.stopLocked(q, f)
		}
	}
}

// stopFollows removes every watch (the tree closed).
func (t *Tree) stopFollows() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for q, f := range t.fol.dirs {
		delete(t.fol.dirs, q)
		t.stopLocked(q, f)
	}
	if t.fol.sel != nil {
		t.stopLocked(t.fol.selPath, t.fol.sel)
		t.fol.sel, t.fol.selPath = nil, ""
	}
}

// current says whether f is still the watch of p in its role.
func (t *Tree) currentLocked(f *zkview.Follow, p string, role Change) bool {
	if role == ChangeChildren {
		return t.fol.dirs[p] == f
	}
	return t.fol.sel == f
}

// pump turns f's events into the worker's reads: a directory's child
// list read again when it changed, the selected node's data when it
// changed, both after a resync; a deleted node marked gone.
func (t *Tree) pump(f *zkview.Follow, p string, role Change) {
	for {
		select {
		case <-t.quit:
			return
		case <-f.Done():
			return
		case <-f.Ready():
		}
		evs := f.Take()
		t.mu.Lock()
		if !t.currentLocked(f, p, role) {
			t.mu.Unlock()
			return
		}
		queued := false
		for _, e := range evs {
			queued = t.applyFollowLocked(f, p, role, e.Type) || queued
		}
		t.mu.Unlock()
		if queued {
			t.kick()
		}
		t.signal()
	}
}

// applyFollowLocked files one event of f (watching p in role); queued
// says the worker has a read to do.
func (t *Tree) applyFollowLocked(f *zkview.Follow, p string, role Change, typ zkview.FollowEventType) (queued bool) {
	switch {
	case typ == zkview.FollowDeleted && role == ChangeChildren:
		if t.dirs[p] != nil {
			delete(t.dirs, p)
			t.markGoneLocked(p)
		}
		delete(t.fol.dirs, p)
		t.stopLocked(p, f)
	case typ == zkview.FollowDeleted:
		if p == t.selected {
			t.markGoneLocked(p)
		}
	case role == ChangeChildren && (typ == zkview.FollowResync || typ == zkview.FollowChildrenChanged):
		if t.dirs[p] != nil {
			t.reload[p] |= ChangeChildren
			return true
		}
	case role == ChangeData && typ != zkview.FollowChildrenChanged:
		// resync, data changed, or created again
		if p == t.selected {
			t.reload[p] |= ChangeData
			return true
		}
	}
	return false
}

// followingAny says whether any persistent watch is set.
func (t *Tree) followingAny() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.fol.dirs) > 0 || t.fol.sel != nil
}
