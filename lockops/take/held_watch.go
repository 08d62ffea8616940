package take

// The node watcher of a held lock: a getData watch on our own node,
// every read passed to the monitor.

import (
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
)

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
