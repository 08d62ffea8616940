package take

// After a loss: the error of a place in the queue that is gone, and the
// deletion of our node once the lock was declared lost (lost stays lost).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/zkview"
)

// explainLostPlace rewrites the error of a take whose wait was cut short
// by the end of its session (or the loss of its node): the place in the
// queue does not come back on its own, so the error wraps [hold.ErrLost] and
// says how to rejoin. A wait can also fail on the connection error of a
// request made while the session ended (the watch fires before the session
// event); then the connection is given a session timeout to show whether
// our session survived.
func explainLostPlace(c *zkview.Client, lockPath string, err error) error {
	const rejoin = "our place in the queue of %s is lost: take the lock again to rejoin (at the end of the queue)"
	if errors.Is(err, hold.ErrLost) {
		return fmt.Errorf("%w; "+rejoin, err, lockPath)
	}
	var te *takeError
	if !errors.As(err, &te) || te.session == 0 ||
		!(errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrSessionExpired)) {
		return err
	}
	if !sessionGone(c, te.session, c.NegotiatedTimeout()) {
		return err
	}
	return fmt.Errorf("%w (session %s ended while waiting: %w); "+rejoin, err, lockops.FormatSession(te.session), hold.ErrLost, lockPath)
}

// sessionGone waits at most limit for the connection to show whether
// session is over (true) or connected again (false).
func sessionGone(c *zkview.Client, session int64, limit time.Duration) bool {
	sub, unsub := c.Subscribe()
	defer unsub()
	timeout := time.After(limit)
	for {
		select {
		case ev := <-sub:
			if sessionEnded(ev, session) {
				return true
			}
			if ev.State == zkview.StateConnected {
				return false
			}
		case <-timeout:
			return false
		}
	}
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
		audit.Record(h.c, hold.OpDeleteLost, h.Node, audit.VersionPtr(res.version), h.Session, nil)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if res.deleted {
		ev := hold.Change{State: hold.StateLost, NodeDeleted: true, Time: time.Now(),
			Reason: fmt.Sprintf("deleted our node %s after session %s came back: the lock had been declared lost, so nothing holds it now", h.Node, lockops.FormatSession(h.Session))}
		h.reason = ev.Reason
		h.NotifyLocked(ev)
	}
	h.cleanup = false
	h.CloseSubsLocked()
	m.over = true
}
