package take

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/zkview"
)

// Release lets go of the lock: it deletes our node with the version we last
// saw (a node re-created by someone else is never deleted). It is
// idempotent: releasing a released lock returns nil. When the lock was lost
// it returns an error wrapping [hold.ErrLost] that says why (nothing to delete).
// While disconnected it waits for the reconnect until ctx ends.
//
// Releasing a lock declared lost for silence does not stop the watch for
// its session: if the session comes back, our node is still deleted (see
// [Held]).
func (h *Held) Release(ctx context.Context) error {
	h.mu.Lock()
	switch h.state {
	case hold.StateReleased:
		h.mu.Unlock()
		return nil
	case hold.StateLost:
		reason, cleanup := h.reason, h.cleanup
		h.mu.Unlock()
		if !cleanup {
			h.shutdown()
		}
		err := fmt.Errorf("release %s: %w: %s", h.Node, hold.ErrLost, reason)
		if !h.unaudited {
			audit.Record(h.c, lockops.OpRelease, h.Node, nil, h.Session, err)
		}
		return err
	}
	h.releasing = true
	version := h.version
	h.mu.Unlock()

	err := h.deleteNode(ctx, version)
	h.mu.Lock()
	switch {
	case err == nil:
		h.setStateLocked(hold.StateReleased, "", false)
	case errors.Is(err, hold.ErrLost):
		h.setStateLocked(hold.StateLost, err.Error(), false)
	default:
		h.releasing = false // still ours (e.g. ctx ended while disconnected)
	}
	h.mu.Unlock()
	if err == nil || errors.Is(err, hold.ErrLost) {
		h.shutdown()
	}
	if err != nil {
		err = fmt.Errorf("release %s: %w", h.Node, err)
	}
	if !h.unaudited {
		audit.Record(h.c, lockops.OpRelease, h.Node, audit.VersionPtr(version), h.Session, err)
	}
	return err
}

// deleteNode deletes our node, re-reading it once when its version moved
// (a revocation request writes data).
func (h *Held) deleteNode(ctx context.Context, version int32) error {
	abs := h.c.Abs(h.Node)
	for attempt := 0; ; attempt++ {
		_, err := zkview.Call(ctx, func() (struct{}, error) {
			return struct{}{}, h.c.Conn().Delete(abs, version)
		})
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zk.ErrNoNode):
			return fmt.Errorf("%w: our node was already gone (force-deleted, or the session expired)", hold.ErrLost)
		case errors.Is(err, zk.ErrBadVersion) && attempt < 3:
			st, serr := zkview.Call(ctx, func() (*zk.Stat, error) {
				_, st, err := h.c.Conn().Get(abs)
				return st, err
			})
			if errors.Is(serr, zk.ErrNoNode) {
				return fmt.Errorf("%w: our node was already gone (force-deleted, or the session expired)", hold.ErrLost)
			}
			if serr != nil {
				return serr
			}
			if st.Czxid != h.Czxid || st.EphemeralOwner != h.Session {
				return fmt.Errorf("%w: %s was re-created by someone else (session %s); not deleting it", hold.ErrLost, h.Node, lockops.FormatSession(st.EphemeralOwner))
			}
			version = st.Version
		case errors.Is(err, zk.ErrConnectionClosed) && attempt < 3:
			// In flight at a disconnect: the next attempt waits for the
			// reconnect.
		default:
			return err
		}
	}
}

// shutdown stops the monitor and waits for it.
func (h *Held) shutdown() {
	h.closeStop()
	<-h.done
}
