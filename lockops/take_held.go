package lockops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// HoldState is what zkscope knows about a lock it took.
type HoldState int

const (
	// StateHeld: our node exists and our session is connected.
	StateHeld HoldState = iota
	// StateSuspended: disconnected; the session (and the lock) may still be
	// alive, or may have expired. Act as if it could be lost.
	StateSuspended
	// StateLost: the session expired or was replaced, our node was deleted by
	// someone else, or we were disconnected for longer than the session
	// timeout. Never "held" again.
	StateLost
	// StateReleased: we let go with [Held.Release].
	StateReleased
)

// String is the state's lowercase name.
func (s HoldState) String() string {
	switch s {
	case StateHeld:
		return "held"
	case StateSuspended:
		return "suspended"
	case StateLost:
		return "lost"
	case StateReleased:
		return "released"
	}
	return "unknown"
}

// OpDeleteLost is the audit operation of our own node deleted after the
// lock had been declared lost (the session came back; see [Held]).
const OpDeleteLost = "delete-lost"

// HoldChange is one change of a held lock's state.
type HoldChange struct {
	State HoldState
	// Reason explains StateSuspended and StateLost in one sentence.
	Reason string
	// Deadline (StateHeld and StateSuspended) is the moment the lock must be
	// treated as lost unless the servers answer again: the last contact
	// plus the session timeout, less a margin (see [Held.Deadline]).
	Deadline time.Time
	// RevokeRequested is set when someone wrote Curator's "__REVOKE__" to
	// our node (a revocation request; the state is unchanged).
	RevokeRequested bool
	// NodeDeleted (StateLost, last change) says that the session came back
	// after zkscope had declared the lock lost, and zkscope deleted our node
	// so that nothing holds a lock nobody knows it holds. Reason says so.
	NodeDeleted bool
	// WatchingForReturn (StateLost) says the lock was declared lost while
	// its session may still be alive: should the session come back, our
	// node is deleted at once (and a NodeDeleted change follows).
	WatchingForReturn bool
	Time              time.Time
}

// revokeMessage is Curator's revocation request (Revoker.REVOKE_MESSAGE).
var revokeMessage = []byte("__REVOKE__")

// Held is a lock zkscope holds. It watches the connection and its own node
// until released. All methods are safe for concurrent use.
//
// While held it keeps track of the last contact: the send time of the
// latest request of our session that the servers answered ([zkview.Client.Contact];
// a small heartbeat on our node keeps it fresh). The servers cannot expire
// the session before last contact + session timeout, so the lock is surely
// ours until [Held.Deadline] (that, less a margin for timer lateness and
// kill delivery). Without contact for a short while the lock goes
// SUSPENDED; at the deadline it goes LOST, whatever go-zookeeper thinks of
// the connection.
//
// What was declared lost stays lost: if the same session comes back later
// (a server restarted on its data keeps sessions alive), our node is deleted
// at once and the last change says so (NodeDeleted). Release after LOST does
// not stop that.
type Held struct {
	Path     string // lock directory
	Node     string // our node (full path, caller's view)
	Recipe   string // locks-json recipe name
	Mode     Mode
	Session  int64 // the session that owns Node
	Czxid    int64 // Node's creation zxid (tells a re-created node apart; the fencing token)
	Acquired time.Time

	c *zkview.Client

	mu          sync.Mutex
	state       HoldState
	reason      string
	version     int32
	releasing   bool
	revoke      bool
	unaudited   bool
	lastContact time.Time     // send time of our latest answered request
	timeout     time.Duration // negotiated session timeout
	cleanup     bool          // LOST by silence: delete our node if the session comes back
	subs        []chan HoldChange
	deadlines   []chan time.Time
	lost        chan struct{}
	revoked     chan struct{}
	stop        chan struct{}
	done        chan struct{}
}

func newHeld(c *zkview.Client, lockPath, node string, k Kind, mode Mode, st zk.Stat) *Held {
	h := &Held{
		Path: lockPath, Node: node, Recipe: string(k), Mode: mode,
		Session: st.EphemeralOwner, Czxid: st.Czxid, Acquired: time.Now(),
		c: c, version: st.Version,
		lost: make(chan struct{}), revoked: make(chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	// The reply that showed the lock free is on record: its request's send
	// time is the first contact.
	h.lastContact, h.timeout = h.Acquired, c.NegotiatedTimeout()
	if sent, t, ok := c.Contact(h.Session); ok {
		h.lastContact = sent
		if t > 0 {
			h.timeout = t
		}
	}
	sub, unsub := c.Subscribe()
	go h.monitor(sub, unsub)
	return h
}

// lossMargin is taken off the session timeout for the deadline: it covers
// timer lateness and the delivery of a kill.
func lossMargin(timeout time.Duration) time.Duration {
	return min(timeout/10, 500*time.Millisecond)
}

// heartbeatEvery is how often a held lock asks the servers about its node.
func heartbeatEvery(timeout time.Duration) time.Duration {
	return min(max(timeout/10, 20*time.Millisecond), time.Second)
}

// suspendAfter is the silence after which a held lock goes SUSPENDED
// (go-zookeeper itself notices only after 2/3 of the session timeout).
func suspendAfter(timeout time.Duration) time.Duration { return timeout / 4 }

// State is the lock's current state.
func (h *Held) State() HoldState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state
}

// Reason explains the current state ("" while held).
func (h *Held) Reason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reason
}

// Deadline is the moment the lock must be treated as lost unless the
// servers answer again: the last contact plus the negotiated session
// timeout, less a margin (min(timeout/10, 500ms)). Before it the servers
// cannot have expired our session. It moves on with every answer while the
// lock is held or suspended.
func (h *Held) Deadline() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.deadlineLocked()
}

func (h *Held) deadlineLocked() time.Time {
	return h.lastContact.Add(h.timeout - lossMargin(h.timeout))
}

// LastContact is the send time of the latest request of our session the
// servers answered.
func (h *Held) LastContact() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastContact
}

// Timeout is the session timeout the servers negotiated for our session.
func (h *Held) Timeout() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.timeout
}

// Changes returns a new channel of state changes (buffered; when a reader
// lags the oldest undelivered change is dropped, never the newest). It is
// closed after StateReleased, and after StateLost once nothing is left to
// do (after the NodeDeleted change when our node had to be deleted).
func (h *Held) Changes() <-chan HoldChange {
	ch := make(chan HoldChange, 16)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == StateLost || h.state == StateReleased {
		ch <- HoldChange{State: h.state, Reason: h.reason, Time: time.Now()}
		if !h.cleanup {
			close(ch)
			return ch
		}
	}
	h.subs = append(h.subs, ch)
	return ch
}

// Deadlines returns a new channel that holds the latest [Held.Deadline]
// (the current one first; a reader only ever misses stale values). It is
// closed when the lock is lost or released: from then on nothing extends it.
func (h *Held) Deadlines() <-chan time.Time {
	ch := make(chan time.Time, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == StateLost || h.state == StateReleased {
		close(ch)
		return ch
	}
	ch <- h.deadlineLocked()
	h.deadlines = append(h.deadlines, ch)
	return ch
}

// LostCh is closed when the lock is lost (not when it is released).
func (h *Held) LostCh() <-chan struct{} { return h.lost }

// RevokeCh is closed when someone asks for the lock with a Curator
// revocation ("__REVOKE__" written to our node).
func (h *Held) RevokeCh() <-chan struct{} { return h.revoked }

// setStateLocked records a change and tells subscribers. Caller holds h.mu.
func (h *Held) setStateLocked(s HoldState, reason string, revoke bool) {
	if h.state == StateLost || h.state == StateReleased {
		return
	}
	if s == h.state && !revoke {
		return
	}
	h.state, h.reason = s, reason
	if s == StateHeld {
		h.reason = ""
	}
	ev := HoldChange{State: s, Reason: h.reason, RevokeRequested: revoke, Time: time.Now()}
	if s == StateHeld || s == StateSuspended {
		ev.Deadline = h.deadlineLocked()
	}
	ev.WatchingForReturn = s == StateLost && h.cleanup
	h.notifyLocked(ev)
	if s == StateLost || s == StateReleased {
		if s == StateLost {
			close(h.lost)
		}
		for _, ch := range h.deadlines {
			close(ch)
		}
		h.deadlines = nil
		if !h.cleanup {
			h.closeSubsLocked()
		}
	}
}

// notifyLocked sends ev to every subscriber, dropping the oldest
// undelivered change of a lagging one. Caller holds h.mu.
func (h *Held) notifyLocked(ev HoldChange) {
	for _, ch := range h.subs {
		for {
			select {
			case ch <- ev:
			default:
				select {
				case <-ch:
				default:
				}
				continue
			}
			break
		}
	}
}

func (h *Held) closeSubsLocked() {
	for _, ch := range h.subs {
		close(ch)
	}
	h.subs = nil
}

// setState is setStateLocked taking h.mu.
func (h *Held) setState(s HoldState, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.setStateLocked(s, reason, false)
}

// nodeEvent is what the node watcher saw.
type nodeEvent struct {
	data    []byte
	st      *zk.Stat
	gone    bool   // the node does not exist
	expired bool   // the session expired (watch invalidated)
	err     error  // another failure
	event   string // what happened, for the reason text
}

// watchNode keeps a getData watch on our node and reports every read.
func (h *Held) watchNode(out chan<- nodeEvent) {
	abs := h.c.Abs(h.Node)
	send := func(ev nodeEvent) bool {
		select {
		case out <- ev:
			return true
		case <-h.stop:
			return false
		}
	}
	for {
		data, st, ch, err := h.c.Conn().GetW(abs)
		switch {
		case err == nil:
			if !send(nodeEvent{data: data, st: st}) {
				return
			}
		case errors.Is(err, zk.ErrNoNode):
			send(nodeEvent{gone: true, event: "our node is gone"})
			return
		case errors.Is(err, zk.ErrSessionExpired):
			send(nodeEvent{expired: true, event: "session expired"})
			return
		case errors.Is(err, zk.ErrConnectionClosed):
			// In flight at a disconnect (or the client was closed): the
			// connection monitor decides; retry after a pause.
			select {
			case <-h.stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			continue
		default:
			if !send(nodeEvent{err: err}) {
				return
			}
			select {
			case <-h.stop:
				return
			case <-time.After(time.Second):
			}
			continue
		}
		select {
		case <-h.stop:
			return
		case ev := <-ch:
			switch ev.Type {
			case zk.EventNodeDeleted:
				send(nodeEvent{gone: true, event: "our node was deleted by someone else"})
				return
			case zk.EventNotWatching:
				if errors.Is(ev.Err, zk.ErrSessionExpired) {
					send(nodeEvent{expired: true, event: "session expired"})
					return
				}
			}
		}
	}
}

// monitor turns connection events, node events and the passing of time
// into state changes; after a LOST by silence it stays to delete our node
// if the session comes back.
func (h *Held) monitor(sub <-chan zkview.ConnEvent, unsub func()) {
	defer close(h.done)
	defer h.closeStop() // ends the node watcher
	defer unsub()
	nodeEvents := make(chan nodeEvent)
	go h.watchNode(nodeEvents)
	m := &heldMonitor{h: h, beatDone: make(chan struct{}, 1), cleanDone: make(chan cleanupResult, 1)}
	beat := time.NewTicker(heartbeatEvery(h.Timeout()))
	defer beat.Stop()
	deadline := time.NewTimer(time.Until(h.Deadline()))
	defer deadline.Stop()
	m.heartbeat()
	for {
		select {
		case <-h.stop:
			return
		case ev := <-sub:
			m.onConn(ev)
		case <-beat.C:
			m.heartbeat()
		case <-m.beatDone:
			m.beating = false
		case <-deadline.C:
		case res := <-m.cleanDone:
			m.cleaning = false
			m.onCleanup(res)
		case ne := <-nodeEvents:
			m.onNode(ne)
		}
		if m.finished() {
			return
		}
		if m.check() {
			deadline.Reset(time.Until(h.Deadline()))
		}
	}
}

// heldMonitor is the monitor goroutine's own state.
type heldMonitor struct {
	h         *Held
	connected bool // the client is connected on our session
	beating   bool // a heartbeat is in flight
	beatDone  chan struct{}
	cleaning  bool // a deletion of our node (after LOST) is in flight
	cleanDone chan cleanupResult
	over      bool // nothing left to do
}

// heartbeat asks the servers about our node (one request in flight at a
// time): its answer is a contact.
func (m *heldMonitor) heartbeat() {
	if m.beating {
		return
	}
	m.beating = true
	abs := m.h.c.Abs(m.h.Node)
	conn := m.h.c.Conn()
	go func() {
		conn.Exists(abs)
		m.beatDone <- struct{}{}
	}()
}

// onConn handles one connection event.
func (m *heldMonitor) onConn(ev zkview.ConnEvent) {
	h := m.h
	switch {
	case ev.State == zkview.StateExpired && !sessionEnded(ev, h.Session):
		// An older session's expiry replayed as the latest state.
	case ev.State == zkview.StateExpired:
		m.sessionOver(fmt.Sprintf("session %s expired; our node is gone and another client may hold the lock now", FormatSession(h.Session)))
	case ev.State == zkview.StateClosed:
		m.sessionOver("the connection was closed")
	case ev.State == zkview.StateConnected && ev.SessionID != h.Session:
		// (NewSession alone is not enough: the first event replays the
		// latest state, which may announce the session we took the lock
		// in.)
		m.sessionOver(fmt.Sprintf("the client is on a new session (%s, ours was %s): the old session expired with our node", FormatSession(ev.SessionID), FormatSession(h.Session)))
	case ev.State == zkview.StateConnected:
		m.connected = true
		m.heartbeat()
	case ev.State == zkview.StateReconnecting || ev.State == zkview.StateConnecting:
		m.connected = false
		h.mu.Lock()
		if h.state == StateHeld {
			h.setStateLocked(StateSuspended, fmt.Sprintf("disconnected from ZooKeeper (was on %s)", ev.Server), false)
		}
		h.mu.Unlock()
	}
}

// sessionOver: our session ended (its node with it), or the client is gone.
func (m *heldMonitor) sessionOver(reason string) {
	h := m.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == StateLost && h.cleanup {
		// Declared lost before; the session's end took our node with it.
		h.cleanup = false
		h.closeSubsLocked()
		m.over = true
		return
	}
	h.setStateLocked(StateLost, reason, false)
}

// check moves between HELD, SUSPENDED and LOST by the last contact, and
// starts the deletion of our node when a lock declared lost comes back. It
// reports whether the deadline still matters (held or suspended).
func (m *heldMonitor) check() bool {
	h := m.h
	c := h.c
	sent, timeout, ok := c.Contact(h.Session)
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == StateLost {
		if h.cleanup && !m.cleaning && ok && sent.After(h.lastContact) {
			// The servers answered our session after we declared it lost.
			m.cleaning = true
			go m.deleteDeclaredLost()
		}
		return false
	}
	if h.state == StateReleased {
		return false
	}
	if ok && sent.After(h.lastContact) {
		h.lastContact = sent
		if timeout > 0 {
			h.timeout = timeout
		}
		d := h.deadlineLocked()
		for _, ch := range h.deadlines {
			select {
			case <-ch:
			default:
			}
			ch <- d
		}
	}
	silence := now.Sub(h.lastContact)
	switch {
	case !now.Before(h.deadlineLocked()):
		h.cleanup = true
		h.setStateLocked(StateLost, fmt.Sprintf("no answer from ZooKeeper since %s (%s ago): the servers may expire session %s from %s on (session timeout %s), so the lock is treated as lost and another client may hold it soon",
			h.lastContact.Format("15:04:05.000"), roundDur(silence), FormatSession(h.Session), h.lastContact.Add(h.timeout).Format("15:04:05.000"), h.timeout), false)
	case h.state == StateHeld && silence > suspendAfter(h.timeout):
		h.setStateLocked(StateSuspended, fmt.Sprintf("no answer from ZooKeeper for %s", roundDur(silence)), false)
	case h.state == StateSuspended && m.connected && silence <= suspendAfter(h.timeout):
		h.setStateLocked(StateHeld, "", false)
	}
	return h.state == StateHeld || h.state == StateSuspended
}

// cleanupResult is the outcome of deleteDeclaredLost.
type cleanupResult struct {
	deleted bool  // we deleted our node
	gone    bool  // it was gone already (or is another node now)
	version int32 // the version deleted
	err     error // try again on the next contact
}

// deleteDeclaredLost deletes our node after the lock was declared lost,
// provided it is still ours (same czxid and session), version-checked.
func (m *heldMonitor) deleteDeclaredLost() {
	h := m.h
	ctx, cancel := context.WithTimeout(context.Background(), h.Timeout())
	defer cancel()
	abs := h.c.Abs(h.Node)
	res, err := zkview.Call(ctx, func() (cleanupResult, error) {
		for attempt := 0; ; attempt++ {
			_, st, err := h.c.Conn().Get(abs)
			if errors.Is(err, zk.ErrNoNode) {
				return cleanupResult{gone: true}, nil
			}
			if err != nil {
				return cleanupResult{}, err
			}
			if st.Czxid != h.Czxid || st.EphemeralOwner != h.Session {
				return cleanupResult{gone: true}, nil
			}
			err = h.c.Conn().Delete(abs, st.Version)
			switch {
			case err == nil:
				return cleanupResult{deleted: true, version: st.Version}, nil
			case errors.Is(err, zk.ErrNoNode):
				return cleanupResult{gone: true}, nil
			case errors.Is(err, zk.ErrBadVersion) && attempt < 3:
				continue
			}
			return cleanupResult{}, err
		}
	})
	if err != nil {
		res = cleanupResult{err: err}
	}
	m.cleanDone <- res
}

// onCleanup reports the deletion of our node after LOST and ends the watch.
func (m *heldMonitor) onCleanup(res cleanupResult) {
	h := m.h
	if res.err != nil {
		return // the next contact tries again
	}
	if res.deleted && !h.unaudited {
		record(h.c, OpDeleteLost, h.Node, versionPtr(res.version), h.Session, nil)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if res.deleted {
		ev := HoldChange{State: StateLost, NodeDeleted: true, Time: time.Now(),
			Reason: fmt.Sprintf("deleted our node %s after session %s came back: the lock had been declared lost, so nothing holds it now", h.Node, FormatSession(h.Session))}
		h.reason = ev.Reason
		h.notifyLocked(ev)
	}
	h.cleanup = false
	h.closeSubsLocked()
	m.over = true
}

// onNode handles what the node watcher saw.
func (m *heldMonitor) onNode(ne nodeEvent) {
	h := m.h
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.state == StateLost && h.cleanup:
		if (ne.gone || ne.expired) && !m.cleaning {
			// Our node went away on its own (expiry) after LOST: done.
			h.cleanup = false
			h.closeSubsLocked()
			m.over = true
		}
	case ne.gone && h.releasing:
	case ne.gone:
		h.setStateLocked(StateLost, ne.event+": someone force-deleted it (or the session expired); the lock is no longer ours", false)
	case ne.expired:
		m.connected = false
		h.setStateLocked(StateLost, fmt.Sprintf("session %s expired; our node is gone and another client may hold the lock now", FormatSession(h.Session)), false)
	case ne.st != nil:
		h.version = ne.st.Version
		if ne.st.Czxid != h.Czxid || ne.st.EphemeralOwner != h.Session {
			h.setStateLocked(StateLost, fmt.Sprintf("%s was re-created by someone else (session %s)", h.Node, FormatSession(ne.st.EphemeralOwner)), false)
		} else if bytes.Equal(ne.data, revokeMessage) && !h.revoke && h.state != StateLost {
			h.revoke = true
			close(h.revoked)
			h.setStateLocked(h.state, h.reason, true)
		}
	}
}

// finished reports whether the monitor has nothing left to do: released,
// or lost with no node of ours that could come back.
func (m *heldMonitor) finished() bool {
	if m.over {
		return true
	}
	h := m.h
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state == StateReleased || (h.state == StateLost && !h.cleanup)
}

// roundDur rounds d for messages (10 ms).
func roundDur(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }

// closeStop closes h.stop once.
func (h *Held) closeStop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
}

// String summarises the lock for display:
// "curator.mutex /app/lock/_c_…-lock-0000000003 (session 0x…)".
func (h *Held) String() string {
	return fmt.Sprintf("%s %s (session %s)", h.Recipe, h.Node, FormatSession(h.Session))
}
