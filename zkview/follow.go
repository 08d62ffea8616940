package zkview

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/wire"
)

// Persistent watches (addWatch, ZooKeeper 3.6+) on a session of zkscope's
// own, opened like the multi-read session (the main connection's member,
// the same credentials, chroot and TLS): every change below a path as it
// happens, without re-arming. go-zookeeper does not offer them.

// ErrFollowUnsupported means the server does not serve persistent watches
// (before ZooKeeper 3.6): callers fall back to one-shot watches and reads.
var ErrFollowUnsupported = errors.New("the server does not serve persistent watches (ZooKeeper 3.6+)")

// FollowEventType is what happened to a followed path.
type FollowEventType int

const (
	// FollowResync: read again what is followed; the events after it are
	// the changes after that read. The first event of every [Follow], and
	// the first after a reconnect (events missed meanwhile are not
	// replayed) or after the queue overflowed.
	FollowResync FollowEventType = iota
	FollowCreated
	FollowDeleted
	FollowDataChanged
	// FollowChildrenChanged comes to a non-recursive Follow only.
	FollowChildrenChanged
)

func (t FollowEventType) String() string {
	return [...]string{"resync", "created", "deleted", "data-changed", "children-changed"}[t]
}

// FollowEvent is one change, its path in the caller's view.
type FollowEvent struct {
	Type FollowEventType
	Path string
}

// Follow is one subscription's ordered stream of events.
type Follow struct {
	c   *Client
	sub *wire.Subscription
}

// followState is a client's persistent-watch session (made on first use).
type followState struct {
	mu      sync.Mutex
	w       *wire.Watches
	support atomic.Int32 // 0 unknown, 1 served, -1 refused (remembered)
	op      int32        // addWatch's op code (tests send another)
}

// Follow sets a persistent watch on p (recursive: and every node below it)
// and returns its events. A server that refuses addWatch gives
// [ErrFollowUnsupported], remembered: later calls fail at once.
func (c *Client) Follow(ctx context.Context, p string, recursive bool) (*Follow, error) {
	fs := &c.follow
	if fs.support.Load() < 0 {
		return nil, ErrFollowUnsupported
	}
	fs.mu.Lock()
	select {
	case <-c.quit:
		fs.mu.Unlock()
		return nil, fmt.Errorf("follow %s: %w", p, zk.ErrConnectionClosed)
	default:
	}
	if fs.w == nil {
		fs.w = wire.NewWatches(c.dialWatchSession)
		if fs.op != 0 {
			fs.w.AddWatchOp = fs.op
		}
	}
	w := fs.w
	fs.mu.Unlock()
	sub, err := w.Subscribe(ctx, c.Abs(p), recursive)
	if errors.Is(err, wire.ErrUnimplemented) {
		fs.support.Store(-1)
		return nil, fmt.Errorf("%w: %v", ErrFollowUnsupported, err)
	}
	if err != nil {
		return nil, fmt.Errorf("follow %s: %w", p, err)
	}
	fs.support.Store(1)
	return &Follow{c: c, sub: sub}, nil
}

// closeFollow closes the persistent-watch session (the client closed).
func (c *Client) closeFollow() {
	if w := c.watches(); w != nil {
		w.Close()
	}
}

func (c *Client) watches() *wire.Watches {
	c.follow.mu.Lock()
	defer c.follow.mu.Unlock()
	return c.follow.w
}

// FollowSupported says whether the server serves persistent watches, once
// a Follow found out (known false before).
func (c *Client) FollowSupported() (ok, known bool) {
	s := c.follow.support.Load()
	return s > 0, s != 0
}

// WatchSessionID is the id of the persistent-watch session (0 when none
// is open): one of zkscope's own, never a lock's waiter.
func (c *Client) WatchSessionID() int64 {
	if w := c.watches(); w == nil {
		return 0
	} else if s := w.Session(); s != nil && !s.Dead() {
		return s.ID()
	}
	return 0
}

// dialWatchSession opens the persistent-watch session on the member the
// main connection uses, else on the first configured member that answers.
func (c *Client) dialWatchSession(ctx context.Context, notify func([]byte)) (*wire.Session, error) {
	addrs := c.cfg.Servers
	if main := c.Server(); main != "" {
		addrs = append([]string{main}, addrs...)
	}
	if pause := c.cfg.FollowPause; pause > 0 {
		notify = pausedNotify(notify, pause)
	}
	var firstErr error
	for _, addr := range addrs {
		s, err := openSideSession(ctx, c, addr, defaultMultiReadLimits.maxReply, notify)
		if err == nil {
			return s, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// pausedNotify is notify, but the first notification after the reader
// waited for one (none came in the last millisecond: the ones already
// read follow each other within microseconds) waits pause first, so the
// reader, which calls it, reads those that arrived meanwhile with one
// wakeup.
func pausedNotify(notify func([]byte), pause time.Duration) func([]byte) {
	var last time.Time // the last return; only the session's reader calls it
	return func(body []byte) {
		if time.Since(last) > time.Millisecond {
			time.Sleep(pause)
		}
		notify(body)
		last = time.Now()
	}
}

// Ready receives when events are queued: [Follow.Take] them.
func (f *Follow) Ready() <-chan struct{} { return f.sub.Ready() }

// Done is closed when the Follow stopped (Stop, or the client closed).
func (f *Follow) Done() <-chan struct{} { return f.sub.Done() }

// Take returns the events queued since the last Take, oldest first (the
// events of one moment together, for a caller to read their nodes in one
// batch).
func (f *Follow) Take() []FollowEvent {
	evs := f.sub.Take()
	out := make([]FollowEvent, 0, len(evs))
	for _, e := range evs {
		var t FollowEventType
		switch e.Type {
		case wire.EventResync:
			t = FollowResync
		case wire.EventNodeCreated:
			t = FollowCreated
		case wire.EventNodeDeleted:
			t = FollowDeleted
		case wire.EventNodeDataChanged:
			t = FollowDataChanged
		case wire.EventNodeChildrenChanged:
			t = FollowChildrenChanged
		default:
			continue
		}
		out = append(out, FollowEvent{Type: t, Path: f.c.Rel(e.Path)})
	}
	return out
}

// Pending says whether events wait to be taken (or the watch is being set
// again after a reconnect).
func (f *Follow) Pending() bool { return f.sub.Pending() }

// Stop ends the Follow: the last follower of a path removes its watch from
// the server (removeWatches); the session closes with the last Follow.
func (f *Follow) Stop() { f.sub.Stop() }
