package lockops

import (
	"bytes"
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

// HoldChange is one change of a held lock's state.
type HoldChange struct {
	State HoldState
	// Reason explains StateSuspended and StateLost in one sentence.
	Reason string
	// RevokeRequested is set when someone wrote Curator's "__REVOKE__" to
	// our node (a revocation request; the state is unchanged).
	RevokeRequested bool
	Time            time.Time
}

// revokeMessage is Curator's revocation request (Revoker.REVOKE_MESSAGE).
var revokeMessage = []byte("__REVOKE__")

// Held is a lock zkscope holds. It watches the connection and its own node
// until released. All methods are safe for concurrent use.
type Held struct {
	Path     string // lock directory
	Node     string // our node (full path, caller's view)
	Recipe   string // locks-json recipe name
	Mode     Mode
	Session  int64 // the session that owns Node
	Czxid    int64 // Node's creation zxid (tells a re-created node apart)
	Acquired time.Time

	c *zkview.Client

	mu        sync.Mutex
	state     HoldState
	reason    string
	version   int32
	releasing bool
	revoke    bool
	unaudited bool
	subs      []chan HoldChange
	lost      chan struct{}
	revoked   chan struct{}
	stop      chan struct{}
	done      chan struct{}
}

func newHeld(c *zkview.Client, lockPath, node string, k Kind, mode Mode, st zk.Stat) *Held {
	h := &Held{
		Path: lockPath, Node: node, Recipe: string(k), Mode: mode,
		Session: st.EphemeralOwner, Czxid: st.Czxid, Acquired: time.Now(),
		c: c, version: st.Version,
		lost: make(chan struct{}), revoked: make(chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	sub, unsub := c.Subscribe()
	go h.monitor(sub, unsub)
	return h
}

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

// Changes returns a new channel of state changes (buffered; when a reader
// lags the oldest undelivered change is dropped, never the newest). It is
// closed after StateLost or StateReleased.
func (h *Held) Changes() <-chan HoldChange {
	ch := make(chan HoldChange, 16)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == StateLost || h.state == StateReleased {
		ch <- HoldChange{State: h.state, Reason: h.reason, Time: time.Now()}
		close(ch)
		return ch
	}
	h.subs = append(h.subs, ch)
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
	if s == StateLost || s == StateReleased {
		if s == StateLost {
			close(h.lost)
		}
		for _, ch := range h.subs {
			close(ch)
		}
		h.subs = nil
	}
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

// monitor turns connection events and node events into state changes.
func (h *Held) monitor(sub <-chan zkview.ConnEvent, unsub func()) {
	defer close(h.done)
	defer unsub()
	nodeEvents := make(chan nodeEvent)
	go h.watchNode(nodeEvents)
	var suspendTimer <-chan time.Time
	timeout := sessionTimeout(h.c)
	for {
		select {
		case <-h.stop:
			return
		case ev := <-sub:
			switch {
			case ev.State == zkview.StateExpired && !sessionEnded(ev, h.Session):
				// An older session's expiry replayed as the latest state.
			case ev.State == zkview.StateExpired:
				h.setState(StateLost, fmt.Sprintf("session 0x%x expired; our node is gone and another client may hold the lock now", uint64(h.Session)))
			case ev.State == zkview.StateClosed:
				h.setState(StateLost, "the connection was closed")
			case ev.State == zkview.StateConnected && ev.SessionID != h.Session:
				// (NewSession alone is not enough: the first event replays the
				// latest state, which may announce the session we took the
				// lock in.)
				h.setState(StateLost, fmt.Sprintf("the client is on a new session (0x%x, ours was 0x%x): the old session expired with our node", uint64(ev.SessionID), uint64(h.Session)))
			case ev.State == zkview.StateConnected:
				suspendTimer = nil
				h.setState(StateHeld, "")
			case ev.State == zkview.StateReconnecting || ev.State == zkview.StateConnecting:
				if h.State() == StateHeld {
					suspendTimer = time.After(timeout)
				}
				h.setState(StateSuspended, fmt.Sprintf("disconnected from ZooKeeper (was on %s); the lock is ours only if we reconnect within the session timeout (%s)", ev.Server, timeout))
			}
		case <-suspendTimer:
			h.setState(StateLost, fmt.Sprintf("disconnected for longer than the session timeout (%s): the session has expired or will, and another client may hold the lock now", timeout))
		case ne := <-nodeEvents:
			h.mu.Lock()
			switch {
			case ne.gone && h.releasing:
			case ne.gone:
				h.setStateLocked(StateLost, ne.event+": someone force-deleted it (or the session expired); the lock is no longer ours", false)
			case ne.expired:
				h.setStateLocked(StateLost, fmt.Sprintf("session 0x%x expired; our node is gone and another client may hold the lock now", uint64(h.Session)), false)
			case ne.st != nil:
				h.version = ne.st.Version
				if ne.st.Czxid != h.Czxid || ne.st.EphemeralOwner != h.Session {
					h.setStateLocked(StateLost, fmt.Sprintf("%s was re-created by someone else (session 0x%x)", h.Node, uint64(ne.st.EphemeralOwner)), false)
				} else if bytes.Equal(ne.data, revokeMessage) && !h.revoke {
					h.revoke = true
					close(h.revoked)
					h.setStateLocked(h.state, h.reason, true)
				}
			}
			h.mu.Unlock()
		}
	}
}

// String summarises the lock for display:
// "curator.mutex /app/lock/_c_…-lock-0000000003 (session 0x…)".
func (h *Held) String() string {
	return fmt.Sprintf("%s %s (session %s)", h.Recipe, h.Node, FormatSession(h.Session))
}
