package take

// The monitor of a held lock: connection events, heartbeats, the node
// watcher's reads and the deadline turned into state changes.

import (
	"bytes"
	"fmt"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/zkview"
)

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
		m.sessionOver(fmt.Sprintf("session %s expired; our node is gone and another client may hold the lock now", lockops.FormatSession(h.Session)))
	case ev.State == zkview.StateClosed:
		m.sessionOver("the connection was closed")
	case ev.State == zkview.StateConnected && ev.SessionID != h.Session:
		// (NewSession alone is not enough: the first event replays the
		// latest state, which may announce the session we took the lock
		// in.)
		m.sessionOver(fmt.Sprintf("the client is on a new session (%s, ours was %s): the old session expired with our node", lockops.FormatSession(ev.SessionID), lockops.FormatSession(h.Session)))
	case ev.State == zkview.StateConnected:
		m.connected = true
		m.heartbeat()
	case ev.State == zkview.StateReconnecting || ev.State == zkview.StateConnecting:
		m.connected = false
		h.mu.Lock()
		if h.state == hold.StateHeld {
			h.setStateLocked(hold.StateSuspended, fmt.Sprintf("disconnected from ZooKeeper (was on %s)", ev.Server), false)
		}
		h.mu.Unlock()
	}
}

// sessionOver: our session ended (its node with it), or the client is gone.
func (m *heldMonitor) sessionOver(reason string) {
	h := m.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == hold.StateLost && h.cleanup {
		// Declared lost before; the session's end took our node with it.
		h.cleanup = false
		h.CloseSubsLocked()
		m.over = true
		return
	}
	h.setStateLocked(hold.StateLost, reason, false)
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
	if h.state == hold.StateLost {
		if h.cleanup && !m.cleaning && ok && sent.After(h.lastContact) {
			// The servers answered our session after we declared it lost.
			m.cleaning = true
			go m.deleteDeclaredLost()
		}
		return false
	}
	if h.state == hold.StateReleased {
		return false
	}
	if ok && sent.After(h.lastContact) {
		h.lastContact = sent
		if timeout > 0 {
			h.timeout = timeout
		}
		h.SendDeadlineLocked(h.deadlineLocked())
	}
	silence := now.Sub(h.lastContact)
	switch {
	case !now.Before(h.deadlineLocked()):
		h.cleanup = true
		h.setStateLocked(hold.StateLost, fmt.Sprintf("no answer from ZooKeeper since %s (%s ago): the servers may expire session %s from %s on (session timeout %s), so the lock is treated as lost and another client may hold it soon",
			h.lastContact.Format("15:04:05.000"), hold.RoundDuration(silence), lockops.FormatSession(h.Session), h.lastContact.Add(h.timeout).Format("15:04:05.000"), h.timeout), false)
	case h.state == hold.StateHeld && silence > suspendAfter(h.timeout):
		h.setStateLocked(hold.StateSuspended, fmt.Sprintf("no answer from ZooKeeper for %s", hold.RoundDuration(silence)), false)
	case h.state == hold.StateSuspended && m.connected && silence <= suspendAfter(h.timeout):
		h.setStateLocked(hold.StateHeld, "", false)
	}
	return h.state == hold.StateHeld || h.state == hold.StateSuspended
}

// onNode handles what the node watcher saw.
func (m *heldMonitor) onNode(ne nodeEvent) {
	h := m.h
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.state == hold.StateLost && h.cleanup:
		if (ne.gone || ne.expired) && !m.cleaning {
			// Our node went away on its own (expiry) after LOST: done.
			h.cleanup = false
			h.CloseSubsLocked()
			m.over = true
		}
	case ne.gone && h.releasing:
	case ne.gone:
		h.setStateLocked(hold.StateLost, ne.event+": someone force-deleted it (or the session expired); the lock is no longer ours", false)
	case ne.expired:
		m.connected = false
		h.setStateLocked(hold.StateLost, fmt.Sprintf("session %s expired; our node is gone and another client may hold the lock now", lockops.FormatSession(h.Session)), false)
	case ne.st != nil:
		h.version = ne.st.Version
		if ne.st.Czxid != h.Czxid || ne.st.EphemeralOwner != h.Session {
			h.setStateLocked(hold.StateLost, fmt.Sprintf("%s was re-created by someone else (session %s)", h.Node, lockops.FormatSession(ne.st.EphemeralOwner)), false)
		} else if bytes.Equal(ne.data, lockops.RevokeMessage) && !h.revoke && h.state != hold.StateLost {
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
	return h.state == hold.StateReleased || (h.state == hold.StateLost && !h.cleanup)
}
