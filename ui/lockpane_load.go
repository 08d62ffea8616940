package ui

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// lockLoadedMsg answers the pane's own read of its lock directory. changed
// is the children watch set by that read.
type lockLoadedMsg struct {
	id      uint64
	path    string
	queue   lockops.Queue
	changed <-chan zk.Event
	at      time.Time
	err     error
	// verified: the servers were asked (watch_observed, client addresses).
	verified bool
}

// lockDirChangedMsg says the children of the shown lock directory changed.
type lockDirChangedMsg struct {
	id   uint64
	path string
}

// Show tells the pane whether it is on screen and for which directory. The
// root model calls it after every change; it is cheap when nothing moved.
// While shown, the pane watches the directory and re-reads the queue on
// each change; hidden, it stops.
func (p *LockPane) Show(visible bool, path string) tea.Cmd {
	if !visible || p.client == nil {
		if p.visible {
			p.visible = false
			p.hiddenAt = p.clock()
			p.stopWatch()
			p.live = false
		}
		return nil
	}
	if p.visible && path == p.path && (p.live || p.loading) {
		return nil
	}
	if path != p.path || p.staleAt(p.clock()) {
		p.resetDir(path)
	}
	p.visible = true
	return p.load()
}

// load starts a read of the shown directory unless one is in flight (then
// one more read follows it).
func (p *LockPane) load() tea.Cmd {
	if p.client == nil || p.path == "" {
		return nil
	}
	if p.loading {
		p.dirty = true
		return nil
	}
	p.loading, p.dirty = true, false
	p.loadID++
	// Asking the servers costs a round of four-letter words to every
	// member: at most once per reverifyEvery, however busy the lock.
	return loadLockCmd(p.client, p.loadID, p.path, p.clock, p.verifyDue())
}

// verifyDue reports whether the next read should ask the servers too.
func (p *LockPane) verifyDue() bool {
	return p.verifiedAt.IsZero() || p.clock().Sub(p.verifiedAt) >= reverifyEvery
}

// Reload re-reads the shown directory now (after an action of ours).
func (p *LockPane) Reload() tea.Cmd {
	if !p.visible {
		return nil
	}
	return p.load()
}

func (p *LockPane) stopWatch() {
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
}

func (p *LockPane) onLoaded(msg lockLoadedMsg) tea.Cmd {
	if msg.id != p.loadID || msg.path != p.path {
		return nil // a read of a directory no longer shown
	}
	p.loading = false
	if !p.visible {
		return nil
	}
	if msg.err != nil {
		p.loadErr = msg.err
		p.live = false
		if errors.Is(msg.err, zk.ErrNoNode) {
			p.SetQueueAt(lockops.Queue{Path: p.path, Kind: p.queue.Kind}, msg.at)
			p.loadErr = errors.New("the lock directory no longer exists")
		}
		if p.dirty {
			return p.load()
		}
		return nil
	}
	p.loadErr = nil
	p.loadedAt = msg.at
	if msg.verified {
		p.verifiedAt = msg.at
	} else {
		msg.queue = carryVerified(msg.queue, p.queue)
	}
	p.SetQueueAt(msg.queue, msg.at)
	p.stopWatch()
	p.stop = make(chan struct{})
	p.live = true
	cmds := []tea.Cmd{watchLockCmd(msg.changed, p.stop, msg.id, p.path)}
	if p.dirty {
		cmds = append(cmds, p.load())
	}
	return tea.Batch(cmds...)
}

func (p *LockPane) onDirChanged(msg lockDirChangedMsg) tea.Cmd {
	if msg.path != p.path || !p.visible {
		return nil
	}
	p.live = false
	return p.load()
}

// carryVerified copies what the servers said of the nodes of prev (the
// owners' client addresses, and watch_observed where the node still waits
// on the same node) into q, read without asking them.
func carryVerified(q, prev lockops.Queue) lockops.Queue {
	if len(prev.Participants) == 0 {
		return q
	}
	old := make(map[string]*lockops.Participant, len(prev.Participants))
	for i := range prev.Participants {
		old[prev.Participants[i].Node] = &prev.Participants[i]
	}
	q.Participants = append([]lockops.Participant(nil), q.Participants...)
	for i := range q.Participants {
		x := &q.Participants[i]
		o := old[x.Node]
		if o == nil {
			continue
		}
		if x.Client == "" {
			x.Client = o.Client
		}
		if x.WatchObserved == nil && o.WatchObserved != nil && o.Watches == x.Watches {
			v := *o.WatchObserved
			x.WatchObserved = &v
		}
	}
	return q
}

// loadLockCmd reads and decodes the lock at path, leaving a children watch
// on it, and when verify is set asks the servers which waits they see
// (watch_observed, the owners' client addresses); then it diagnoses.
func loadLockCmd(c *zkview.Client, id uint64, path string, clock func() time.Time, verify bool) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		msg := lockLoadedMsg{id: id, path: path, verified: verify}
		type watched struct{ ch <-chan zk.Event }
		w, err := callWithContext(ctx, func() (watched, error) {
			_, _, ch, err := c.Conn().ChildrenW(c.Abs(path))
			return watched{ch}, err
		})
		if err != nil {
			msg.err, msg.at = err, clock()
			return msg
		}
		msg.changed = w.ch
		d, err := lockops.ReadDir(ctx, c, path)
		if err != nil {
			msg.err, msg.at = err, clock()
			return msg
		}
		q := lockops.Decode(d, lockops.DecodeOptions{})
		q.Path = path
		qs := []lockops.Queue{q}
		if verify {
			vctx, vcancel := context.WithTimeout(ctx, 2*time.Second)
			lockops.Verify(vctx, c, qs)
			vcancel()
		}
		msg.at = clock()
		lockops.Diagnose(qs, lockops.DiagnoseOptions{Now: msg.at})
		msg.queue = qs[0]
		return msg
	}
}

// watchLockCmd waits for the children watch to fire (or for the pane to
// stop watching) and reports the change.
func watchLockCmd(ch <-chan zk.Event, stop <-chan struct{}, id uint64, path string) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case <-ch:
			return lockDirChangedMsg{id: id, path: path}
		case <-stop:
			return nil
		}
	}
}

// callWithContext runs a blocking go-zookeeper call, returning early when
// ctx ends (the call itself finishes in the background).
func callWithContext[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type res struct {
		v   T
		err error
	}
	ch := make(chan res, 1)
	go func() {
		v, err := f()
		ch <- res{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
