package treecache

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// loadChildren reads p's children, arming the children watch unless one is
// already set, and applies the reply if it is still the newest for p.
func (t *Tree) loadChildren(ctx context.Context, p string) error {
	t.mu.Lock()
	d := t.dirs[p]
	if d == nil {
		t.mu.Unlock()
		return ErrStale
	}
	t.seq++
	id := t.seq
	d.req = id
	arm := !t.armedKid[p] && t.fol.dirs[p] == nil
	if arm {
		// Set before the request: the watch may fire before the reply is
		// processed here, and its event must be able to clear the flag.
		t.armedKid[p] = true
	}
	t.mu.Unlock()

	abs := t.c.Abs(p)
	type reply struct {
		names []string
		st    *zk.Stat
		err   error
	}
	r, err := zkview.Call(ctx, func() (reply, error) {
		var r reply
		conn := t.c.Conn()
		if arm {
			r.names, r.st, _, r.err = conn.ChildrenW(abs)
		} else {
			r.names, r.st, r.err = conn.Children(abs)
		}
		if r.err == nil {
			sort.Strings(r.names)
		}
		return r, nil
	})
	if err != nil {
		if arm {
			t.disarm(t.armedKid, p)
		}
		return fmt.Errorf("list children of %s: %w", p, err)
	}
	if r.err != nil && arm {
		t.disarm(t.armedKid, p)
	}
	return t.applyChildren(p, id, r.names, r.st, r.err)
}

// applyChildren stores a children reply tagged id, unless a newer request
// for p was issued or p was collapsed meanwhile (then ErrStale).
func (t *Tree) applyChildren(p string, id uint64, names []string, st *zk.Stat, err error) error {
	t.mu.Lock()
	d := t.dirs[p]
	if d == nil || d.req != id {
		t.mu.Unlock()
		return ErrStale
	}
	switch {
	case errors.Is(err, zk.ErrNoNode):
		delete(t.dirs, p)
		t.markGoneLocked(p)
	case err != nil:
		n := t.infoLocked(p)
		n.Err = err
		t.pending[p] |= ChangeError
	default:
		d.names, d.stat, d.loaded = names, *st, true
		t.pending[p] |= ChangeChildren
		if n := t.info[p]; n != nil {
			n.Gone, n.Err = false, nil
		}
	}
	t.mu.Unlock()
	t.signal()
	if err != nil {
		return fmt.Errorf("list children of %s: %w", p, zkview.Explain(err))
	}
	return nil
}

// loadData reads p's data and stat, arming a data watch when p is still
// selected and none is set.
func (t *Tree) loadData(ctx context.Context, p string) error {
	t.mu.Lock()
	t.seq++
	id := t.seq
	t.statReq[p] = id
	arm := p == t.selected && !t.armedDat[p] && (t.fol.sel == nil || t.fol.selPath != p)
	if arm {
		t.armedDat[p] = true
	}
	t.mu.Unlock()

	abs := t.c.Abs(p)
	type reply struct {
		data []byte
		st   *zk.Stat
		err  error
	}
	r, err := zkview.Call(ctx, func() (reply, error) {
		var r reply
		conn := t.c.Conn()
		if arm {
			r.data, r.st, _, r.err = conn.GetW(abs)
		} else {
			r.data, r.st, r.err = conn.Get(abs)
		}
		return r, nil
	})
	if err != nil || r.err != nil {
		if arm {
			t.disarm(t.armedDat, p)
		}
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	t.mu.Lock()
	if t.statReq[p] != id {
		t.mu.Unlock()
		return ErrStale
	}
	delete(t.statReq, p)
	var st zk.Stat
	if r.st != nil {
		st = *r.st
	}
	t.applyNodeLocked(p, r.data, st, r.err)
	t.mu.Unlock()
	t.signal()
	if r.err != nil {
		return fmt.Errorf("read %s: %w", p, zkview.Explain(r.err))
	}
	return nil
}

func (t *Tree) disarm(m map[string]bool, p string) {
	t.mu.Lock()
	delete(m, p)
	t.mu.Unlock()
}

func (t *Tree) infoLocked(p string) *Node {
	n := t.info[p]
	if n == nil {
		n = &Node{Path: p}
		t.info[p] = n
	}
	return n
}

func (t *Tree) applyNodeLocked(p string, data []byte, st zk.Stat, err error) {
	switch {
	case errors.Is(err, zk.ErrNoNode):
		t.markGoneLocked(p)
	case err != nil:
		n := t.infoLocked(p)
		n.Err = err
		t.pending[p] |= ChangeError
	default:
		n := t.infoLocked(p)
		n.Data, n.Stat, n.HasStat, n.Gone, n.Err = data, st, true, false, nil
		t.pending[p] |= ChangeData
	}
}

func (t *Tree) markGoneLocked(p string) {
	n := t.infoLocked(p)
	n.Gone, n.Err = true, nil
	t.pending[p] |= ChangeGone
}

// onWatch handles a watch event on the connection's receive goroutine: it
// only updates flags and queues work, never calls the server.
func (t *Tree) onWatch(e zk.Event) {
	p, ok := t.relPath(e.Path)
	if !ok {
		return
	}
	t.mu.Lock()
	queued := false
	switch e.Type {
	case zk.EventNodeChildrenChanged:
		delete(t.armedKid, p)
		if t.dirs[p] != nil {
			t.reload[p] |= ChangeChildren
			queued = true
		}
	case zk.EventNodeDataChanged:
		delete(t.armedDat, p)
		if p == t.selected {
			t.reload[p] |= ChangeData
			queued = true
		}
	case zk.EventNodeDeleted:
		delete(t.armedKid, p)
		delete(t.armedDat, p)
		_, shown := t.dirs[p]
		if shown || t.info[p] != nil || p == t.selected {
			delete(t.dirs, p)
			t.markGoneLocked(p)
		}
	case zk.EventNodeCreated:
		// Only exists watches report creation; zkscope sets none here.
	case zk.EventNotWatching:
		// The session expired: every watch is gone (see followSession).
		delete(t.armedKid, p)
		delete(t.armedDat, p)
	}
	t.mu.Unlock()
	if queued {
		t.kick()
	}
	t.signal()
}

// relPath maps an event's server path to the caller's view; ok is false for
// paths outside the chroot.
func (t *Tree) relPath(server string) (string, bool) {
	if server == "" {
		return "", false
	}
	root := t.c.Config().Chroot
	if root != "" && server != root && !strings.HasPrefix(server, root+"/") {
		return "", false
	}
	return t.c.Rel(server), true
}

// followSession reloads everything when the session is replaced (its
// watches died with it), and what the persistent watches cover when the
// session is back after a disconnection (a watch's resync may have come
// while the reads, which go through this session, could not be made).
func (t *Tree) followSession(sub <-chan zkview.ConnEvent) {
	connected := true // New is called on a connected client
	for {
		select {
		case <-t.quit:
			return
		case ev := <-sub:
			back := ev.State == zkview.StateConnected && !connected
			connected = ev.State == zkview.StateConnected
			if back && !ev.NewSession && t.followingAny() {
				t.Refresh()
				continue
			}
			if ev.State != zkview.StateConnected || !ev.NewSession {
				continue
			}
			t.mu.Lock()
			clear(t.armedKid)
			clear(t.armedDat)
			t.pending["/"] |= ChangeReset
			t.mu.Unlock()
			t.Refresh()
			t.signal()
		}
	}
}

// treeReloadEvery is the shortest time between the starts of two rounds
// of re-reads: events in between (a lock churning hundreds of times a
// second) are read once, in the next round.
const treeReloadEvery = 100 * time.Millisecond

// reloadCostTimes: a round of re-reads that took d is followed by the next
// no sooner than reloadCostTimes×d after its start, so re-reading an open
// directory of 100,000 children that churns takes the servers and the
// tree a bounded share of their time, not a listing every 100 ms (0: every
// treeReloadEvery, whatever a round costs).
var reloadCostTimes time.Duration = 10

// worker re-reads what watch events asked for, re-arming the watches.
func (t *Tree) worker() {
	var last time.Time
	var took time.Duration
	for {
		select {
		case <-t.quit:
			return
		case <-t.work:
		}
		if wait := max(treeReloadEvery, reloadCostTimes*took) - time.Since(last); wait > 0 {
			select {
			case <-t.quit:
				return
			case <-time.After(wait):
			}
		}
		last = time.Now()
		// The round reads what was asked before it began: what events ask
		// meanwhile waits for the next round (read at once, a directory
		// churning faster than it lists would be listed back to back).
		t.mu.Lock()
		round := t.reload
		t.reload = map[string]Change{}
		t.mu.Unlock()
		for p, what := range round {
			if what == 0 {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*t.c.Config().SessionTimeout)
			if what&ChangeChildren != 0 {
				t.loadChildren(ctx, p) // errors are recorded on the node and reported as events
			}
			if what&ChangeData != 0 && p == t.Selected() {
				t.loadData(ctx, p)
			}
			cancel()
			select {
			case <-t.quit:
				return
			default:
			}
		}
		took = time.Since(last)
	}
}

func (t *Tree) kick() {
	select {
	case t.work <- struct{}{}:
	default:
	}
}

func (t *Tree) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// deliver sends pending changes as one event, merging whatever piles up
// while the receiver is busy.
func (t *Tree) deliver() {
	for {
		select {
		case <-t.quit:
			return
		case <-t.wake:
		}
		select {
		case <-t.quit:
			return
		case <-time.After(treeCoalesce):
		}
		t.mu.Lock()
		batch := t.pending
		if len(batch) == 0 {
			t.mu.Unlock()
			continue
		}
		t.pending = map[string]Change{}
		t.mu.Unlock()
		select {
		case t.out <- Event{Changes: batch}:
		case <-t.quit:
			return
		}
	}
}
