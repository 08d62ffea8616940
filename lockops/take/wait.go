package take

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/zkview"
)

// waitOn watches what the library's rule says we wait on, until it
// changes (nil: look again), our session ends, or ctx does.
func (w *waiter) waitOn(me lockops.Participant, sub <-chan zkview.ConnEvent) error {
	ch, err := zkview.Call(w.ctx, func() (<-chan zk.Event, error) { return watch(w.c, me.Watches, me.WatchKind) })
	if errors.Is(err, zk.ErrNoNode) {
		return nil // already gone: look again
	}
	if err != nil {
		return w.failed(err, "watch "+me.Watches, me.Watches)
	}
	switch ctxDone, lost := w.await(ch, sub, w.st.EphemeralOwner); {
	case lost != nil:
		return w.fail(lost)
	case ctxDone:
		return w.giveUp(w.ctxErr(me.Watches))
	}
	return nil
}

// await waits until the watch ch fires (nil, false), session ends (an
// ErrLost error) or w.ctx does (ctxDone).
func (w *waiter) await(ch <-chan zk.Event, sub <-chan zkview.ConnEvent, session int64) (ctxDone bool, lost error) {
	for {
		select {
		case <-ch:
			return false, nil
		case ev := <-sub:
			if sessionEnded(ev, session) {
				return false, fmt.Errorf("take %s: the session 0x%x ended while waiting (%s): %w", w.plan.Path, uint64(session), ev.State, hold.ErrLost)
			}
		case <-w.ctx.Done():
			return true, nil
		}
	}
}

// watch sets the watch a waiter of the recipe sets on target: getData,
// exists or getChildren. A target already gone is zk.ErrNoNode.
func watch(c *zkview.Client, target string, kind lockops.WatchKind) (<-chan zk.Event, error) {
	abs := c.Abs(target)
	switch kind {
	case lockops.WatchExists:
		ok, _, ch, err := c.Conn().ExistsW(abs)
		if err == nil && !ok {
			return nil, zk.ErrNoNode
		}
		return ch, err
	case lockops.WatchChildren:
		_, _, ch, err := c.Conn().ChildrenW(abs)
		return ch, err
	}
	_, _, ch, err := c.Conn().GetW(abs)
	return ch, err
}

// sessionEnded reports whether ev says that session is over: it expired,
// the client was closed, or the client is connected on another session.
// (An expiry of an older session, replayed as the latest state, is not.)
func sessionEnded(ev zkview.ConnEvent, session int64) bool {
	switch ev.State {
	case zkview.StateExpired:
		return ev.PrevSessionID == 0 || ev.PrevSessionID == session
	case zkview.StateClosed:
		return true
	case zkview.StateConnected:
		return ev.SessionID != session
	}
	return false
}
