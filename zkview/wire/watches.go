package wire

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
)

// EventResync is zkscope's own event type, never a server's: what a
// subscriber follows may have changed without events (its watches were
// just set, set again after a reconnect, or its queue overflowed), so it
// reads it again; the events after it are the changes after that read.
const EventResync int32 = -100

// WatchEvent is one event of a subscription: a notification's type and
// server path, or [EventResync] with the subscription's root.
type WatchEvent struct {
	Type int32
	Path string
}

// MaxQueuedEvents bounds a subscription's queue: beyond it the queue is
// replaced by one [EventResync] (memory stays bounded when a subscriber
// falls behind; it reads again instead).
const MaxQueuedEvents = 1 << 16

// Dialer opens a session whose notifications go to notify
// ([Session.StartNotify]).
type Dialer func(ctx context.Context, notify func(body []byte)) (*Session, error)

// Watches are persistent watches on one session of zkscope's own, shared
// by every subscription: each watch is set once however many subscribers
// follow it (and removed with removeWatches when the last stops); when the
// session fails it is opened again, the watches set again with
// setWatches2 and every subscriber told to resync before new events.
type Watches struct {
	dial Dialer
	// AddWatchOp is the op code of addWatch (tests make the server refuse
	// it by sending another).
	AddWatchOp int32

	dmu   sync.Mutex // one restore at a time
	mu    sync.Mutex
	sess  *Session
	count map[watchKey]int
	// removing: a path whose removeWatches is on its way; a new watch on
	// it waits, so the removal never lands after it.
	removing map[string]chan struct{}
	subs     map[*Subscription]struct{}
	closed   bool
	wake     chan struct{} // the keeper's: a session to watch over
	quit     chan struct{}
}

type watchKey struct {
	path string
	mode int32
}

// NewWatches starts the keeper that re-opens the session; Close stops it.
func NewWatches(dial Dialer) *Watches {
	w := &Watches{dial: dial, AddWatchOp: OpAddWatch, count: map[watchKey]int{}, removing: map[string]chan struct{}{},
		subs: map[*Subscription]struct{}{}, wake: make(chan struct{}, 1), quit: make(chan struct{})}
	go w.keep()
	return w
}

var errWatchesClosed = errors.New("the watches were closed")

// Subscription is one subscriber's ordered queue of events below (or at)
// its root.
type Subscription struct {
	w         *Watches
	root      string
	recursive bool
	queue     []WatchEvent // under w.mu
	ready     bool         // its watch is set: Take gives the queue
	signal    chan struct{}
	done      chan struct{}
	stopOnce  sync.Once
}

// Subscribe sets a persistent watch on root (recursive: on every node
// below it too) unless one is set, and returns the subscription, whose
// first event is an [EventResync]. A server that does not know addWatch
// gives [ErrUnimplemented].
func (w *Watches) Subscribe(ctx context.Context, root string, recursive bool) (*Subscription, error) {
	mode := ModePersistent
	if recursive {
		mode = ModePersistentRecursive
	}
	key := watchKey{root, mode}
	s := &Subscription{w: w, root: root, recursive: recursive, signal: make(chan struct{}, 1), done: make(chan struct{})}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, errWatchesClosed
	}
	w.subs[s] = struct{}{}
	w.count[key]++
	// The first follower sets the watch, unless the recursive watch on the
	// same path serves a persistent follower (see eventFor).
	first := w.count[key] == 1 && (recursive || w.count[watchKey{root, ModePersistentRecursive}] == 0)
	removal := w.removing[root]
	w.mu.Unlock()
	if removal != nil && first {
		select {
		case <-removal:
		case <-ctx.Done():
		}
	}
	err := w.addWatch(ctx, key, first)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		delete(w.subs, s)
		if w.count[key]--; w.count[key] <= 0 {
			delete(w.count, key)
		}
		return nil, err
	}
	if !s.ready {
		s.queue = append([]WatchEvent{{Type: EventResync, Path: root}}, s.queue...)
		s.ready = true
	}
	s.wakeLocked()
	return s, nil
}

// addWatch sets key's watch on the current session (opening one) when it
// is the first of its kind; it waits for any session otherwise.
// A session closed under the call (its last follower stopped meanwhile)
// is opened again once.
func (w *Watches) addWatch(ctx context.Context, key watchKey, first bool) error {
	for attempt := 0; ; attempt++ {
		sess, err := w.session(ctx)
		if err != nil || !first {
			return err
		}
		_, err = sess.Call(ctx, func(xid int32) []byte {
			b := AddWatchRequest(xid, key.path, key.mode)
			if w.AddWatchOp != OpAddWatch {
				b[8+3] = byte(w.AddWatchOp) // the op code's low byte, after length and xid
			}
			return b
		})
		if err == nil || attempt > 0 || errors.Is(err, ErrUnimplemented) || !sess.Dead() || ctx.Err() != nil {
			return err
		}
	}
}

// session returns the live session, opening one (and setting every
// watch again) when there is none.
func (w *Watches) session(ctx context.Context) (*Session, error) {
	w.mu.Lock()
	sess := w.sess
	w.mu.Unlock()
	if sess != nil && !sess.Dead() {
		return sess, nil
	}
	return w.restore(ctx)
}

// restore opens a session, sets every followed watch on it (setWatches2)
// and queues a resync for every subscriber, unless another call did
// meanwhile.
func (w *Watches) restore(ctx context.Context) (*Session, error) {
	w.dmu.Lock()
	defer w.dmu.Unlock()
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, errWatchesClosed
	}
	if w.sess != nil && !w.sess.Dead() {
		sess := w.sess
		w.mu.Unlock()
		return sess, nil
	}
	for s := range w.subs {
		s.ready = false // what they queued is superseded by the resync
	}
	w.mu.Unlock()
	sess, err := w.dial(ctx, w.notify)
	if err != nil {
		return nil, err
	}
	var set SetWatches2
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		sess.Close()
		return nil, errWatchesClosed
	}
	w.sess = sess
	for k := range w.count {
		if k.mode == ModePersistentRecursive {
			set.PersistentRecursive = append(set.PersistentRecursive, k.path)
		} else if w.count[watchKey{k.path, ModePersistentRecursive}] == 0 {
			set.Persistent = append(set.Persistent, k.path)
		}
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	if len(set.Persistent)+len(set.PersistentRecursive) > 0 {
		if _, err := sess.Call(ctx, set.Request); err != nil {
			sess.Fail(err)
			return nil, err
		}
	}
	w.mu.Lock()
	for s := range w.subs {
		s.queue = append(s.queue[:0], WatchEvent{Type: EventResync, Path: s.root})
		s.ready = true
		s.wakeLocked()
	}
	w.mu.Unlock()
	return sess, nil
}

// notify hands a notification to every subscription it concerns: at or
// below the root of a recursive one, at the root of a persistent one.
func (w *Watches) notify(body []byte) {
	n, err := DecodeNotification(body)
	if err != nil || n.Type == EventNone {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for s := range w.subs {
		ev, ok := w.eventFor(s, n)
		if !ok {
			continue
		}
		if len(s.queue) >= MaxQueuedEvents {
			s.queue = append(s.queue[:0], WatchEvent{Type: EventResync, Path: s.root})
		}
		s.queue = append(s.queue, ev)
		if s.ready {
			s.wakeLocked()
		}
	}
}

// eventFor is what notification n means to s, if anything (under w.mu).
// A session has one watch per path (a server before 3.9 keeps the mode set
// last), so where a path is followed both ways only the recursive watch is
// set and the persistent follower's children changes are made from its
// children's creations and deletions.
func (w *Watches) eventFor(s *Subscription, n Notification) (WatchEvent, bool) {
	ev := WatchEvent{Type: n.Type, Path: n.Path}
	if !s.recursive {
		if n.Path == s.root {
			return ev, true
		}
		if w.count[watchKey{s.root, ModePersistentRecursive}] > 0 && (n.Type == EventNodeCreated || n.Type == EventNodeDeleted) &&
			parent(n.Path) == s.root {
			return WatchEvent{Type: EventNodeChildrenChanged, Path: s.root}, true
		}
		return ev, false
	}
	if n.Type == EventNodeChildrenChanged {
		return ev, false // another subscription's persistent watch
	}
	return ev, n.Path == s.root || under(n.Path, s.root)
}

// parent is p's parent directory ("/" for a top-level node).
func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// under says whether p is strictly below root.
func under(p, root string) bool {
	if root == "/" {
		return p != "/" && strings.HasPrefix(p, "/")
	}
	return len(p) > len(root) && p[len(root)] == '/' && strings.HasPrefix(p, root)
}

func (s *Subscription) wakeLocked() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// Ready receives when events are queued: Take them.
func (s *Subscription) Ready() <-chan struct{} { return s.signal }

// Done is closed when the subscription stopped (Stop, or the watches
// closed).
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Take returns the events queued since the last Take, oldest first.
func (s *Subscription) Take() []WatchEvent {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if !s.ready {
		return nil
	}
	q := s.queue
	s.queue = nil
	return q
}

// Pending says whether events are queued (or the watch is being set
// again): without, what was applied is the server's present.
func (s *Subscription) Pending() bool {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return len(s.queue) > 0 || !s.ready
}

// Stop ends the subscription; the last subscriber of a watch removes it
// from the server (removeWatches).
func (s *Subscription) Stop() {
	s.stopOnce.Do(func() {
		close(s.done)
		w := s.w
		mode := ModePersistent
		if s.recursive {
			mode = ModePersistentRecursive
		}
		key := watchKey{s.root, mode}
		w.mu.Lock()
		delete(w.subs, s)
		w.count[key]--
		last := w.count[key] <= 0
		if last {
			delete(w.count, key)
		}
		sess := w.sess
		idle := len(w.subs) == 0
		if idle {
			w.sess = nil
		}
		var removal chan struct{}
		if last && !idle && sess != nil && !sess.Dead() {
			removal = make(chan struct{})
			w.removing[s.root] = removal
			defer func() {
				w.mu.Lock()
				if w.removing[s.root] == removal {
					delete(w.removing, s.root)
				}
				w.mu.Unlock()
				close(removal)
			}()
		}
		w.mu.Unlock()
		if idle && sess != nil {
			sess.Close() // the server drops the session's watches with it
			return
		}
		if removal == nil {
			return
		}
		other := watchKey{s.root, ModePersistent}
		w.mu.Lock()
		again := s.recursive && w.count[other] > 0
		covered := !s.recursive && w.count[watchKey{s.root, ModePersistentRecursive}] > 0
		w.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), sess.timeout*2/3)
		defer cancel()
		switch {
		case covered: // the recursive watch on the path stays
		case again: // the persistent watch replaces the recursive one
			sess.Call(ctx, func(xid int32) []byte { return AddWatchRequest(xid, other.path, other.mode) })
		default:
			sess.Call(ctx, func(xid int32) []byte { return RemoveWatchesRequest(xid, s.root, WatcherTypeAny) })
		}
	})
}

// Session is the current session (nil before the first subscription):
// its id is one of zkscope's own.
func (w *Watches) Session() *Session {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sess
}

// Close ends every subscription and the session.
func (w *Watches) Close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	sess := w.sess
	subs := w.subs
	w.subs = map[*Subscription]struct{}{}
	w.mu.Unlock()
	close(w.quit)
	for s := range subs {
		s.stopOnce.Do(func() { close(s.done) })
	}
	if sess != nil {
		sess.Close()
	}
}

// keep waits for the session to fail and, while any watch is followed,
// opens another, sets the watches again and tells every subscriber to
// resync.
func (w *Watches) keep() {
	for {
		w.mu.Lock()
		sess := w.sess
		w.mu.Unlock()
		var ended <-chan struct{}
		if sess != nil {
			ended = sess.Done()
		}
		select {
		case <-w.quit:
			return
		case <-w.wake:
			continue
		case <-ended:
		}
		for delay := 50 * time.Millisecond; ; delay = min(delay*2, 2*time.Second) {
			w.mu.Lock()
			idle := len(w.count) == 0
			w.mu.Unlock()
			if idle {
				break // the next subscription opens a session
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err := w.restore(ctx)
			cancel()
			if err == nil || errors.Is(err, errWatchesClosed) {
				break
			}
			select {
			case <-w.quit:
				return
			case <-time.After(delay):
			}
		}
	}
}
