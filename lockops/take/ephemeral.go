package take

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/zkview"
)

// joinEphemeral takes a plain ephemeral lock as hand-written code does:
// create the node; when it exists, watch it with exists and try again
// once it is deleted. Parents are made persistent. A create whose reply
// was lost to a disconnect is ours when the node's owner is our session.
func joinEphemeral(ctx context.Context, c *zkview.Client, plan Plan, o Options) (*Held, error) {
	w, cancel := newWaiter(ctx, c, plan, o)
	defer cancel()
	sub, unsub := c.Subscribe()
	defer unsub()
	data := hold.OwnerData(o.Note)
	for {
		st, err := createEphemeral(c, plan.Path, data)
		switch {
		case err == nil:
			return newHeld(c, plan.Path, plan.Path, lockops.KindEphemeralLock, lockops.ModeExclusive, st), nil
		case w.ctx.Err() != nil:
			return nil, w.ctxErr(plan.Path)
		case lockops.IsRefusal(err):
			return nil, err
		case !errors.Is(err, zk.ErrNodeExists):
			return nil, fmt.Errorf("take %s: %w", plan.Path, err)
		case o.Wait == hold.WaitNone:
			return nil, fmt.Errorf("take %s: %w (held by another session; we would watch it with exists)", plan.Path, hold.ErrWouldBlock)
		}
		if err := w.waitGone(sub); err != nil {
			return nil, err
		}
	}
}

// waitGone watches the lock node with exists until it is deleted (nil:
// try again), our session ends, or ctx does.
func (w *waiter) waitGone(sub <-chan zkview.ConnEvent) error {
	lockPath := w.plan.Path
	ch, err := zkview.Call(w.ctx, func() (<-chan zk.Event, error) { return watch(w.c, lockPath, lockops.WatchExists) })
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("take %s: watch it: %w", lockPath, err)
	}
	w.report(Progress{Path: lockPath, Recipe: string(lockops.KindEphemeralLock), Position: 1, QueueLen: 2, WaitingOn: lockPath})
	if ctxDone, lost := w.await(ch, sub, w.c.Conn().SessionID()); ctxDone {
		return w.ctxErr(lockPath)
	} else if lost != nil {
		return lost
	}
	return nil
}

// createEphemeral creates the lock node (and its missing parents,
// persistent) and reads its stat. ErrNodeExists: another session holds it.
// A node inside a lock directory is refused ([guardCreate]), checked before
// each create: the directory may have become one while we waited.
func createEphemeral(c *zkview.Client, lockPath string, data []byte) (zk.Stat, error) {
	if err := guardCreate(c, lockPath); err != nil {
		return zk.Stat{}, err
	}
	conn, abs := c.Conn(), c.Abs(lockPath)
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		_, err := conn.Create(abs, data, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists), errors.Is(err, zk.ErrConnectionClosed):
			_, st, gerr := conn.Get(abs)
			switch {
			case gerr == nil && st.EphemeralOwner == conn.SessionID():
				return *st, nil // ours (a lost reply's create too)
			case gerr == nil && err == nil:
				return zk.Stat{}, fmt.Errorf("our new node %s belongs to session %s", lockPath, lockops.FormatSession(st.EphemeralOwner))
			case gerr == nil:
				return zk.Stat{}, zk.ErrNodeExists
			case errors.Is(gerr, zk.ErrNoNode):
				lastErr = zk.ErrNoNode
				continue // deleted meanwhile: try again
			}
			lastErr = gerr
		case errors.Is(err, zk.ErrNoNode):
			if perr := makeTakeParents(c, path.Dir(lockPath), false); perr != nil {
				return zk.Stat{}, perr
			}
			lastErr = err
		default:
			return zk.Stat{}, fmt.Errorf("create %s: %w", lockPath, err)
		}
	}
	return zk.Stat{}, fmt.Errorf("create %s: %w", lockPath, lastErr)
}

// planEphemeral decides a take of lockPath that concerns a plain ephemeral
// lock: the node there is ephemeral (only --recipe ephemeral can take it),
// or the operator asked for --recipe ephemeral (only a missing node or an
// ephemeral one can be taken so). decided is false for anything else.
func planEphemeral(ctx context.Context, c *zkview.Client, lockPath string, o Options, kids []string) (plan Plan, decided bool, err error) {
	asked := o.Library == lockops.Ephemeral
	no := func(format string, args ...any) (Plan, bool, error) {
		return Plan{}, true, lockops.Refusef(lockops.OpTake, lockPath, format, args...)
	}
	st, err := zkview.Call(ctx, func() (*zk.Stat, error) {
		_, st, err := c.Conn().Exists(c.Abs(lockPath))
		return st, err
	})
	if err != nil {
		return Plan{}, true, fmt.Errorf("take %s: %w", lockPath, err)
	}
	held := st.Czxid != 0 && st.EphemeralOwner != 0
	switch {
	case !held && !asked:
		return Plan{}, false, nil
	case held && o.Library != nil && !asked:
		return no("it is one ephemeral node (a plain ephemeral lock held by session %s): a %s node cannot be made under it; pass --recipe ephemeral", lockops.FormatSession(st.EphemeralOwner), o.Library)
	case o.Mode != "" && o.Mode != lockops.ModeExclusive:
		return no("plain ephemeral locks are exclusive only (asked for --mode %s): pass --mode exclusive", o.Mode)
	case !held && st.Czxid != 0 && len(kids) > 0:
		return no("it is a persistent node with %s below it, not a plain ephemeral lock: pass the --recipe of the queue there, or another path", lockops.Plural(len(kids), "child"))
	case !held && st.Czxid != 0:
		return no("it is a persistent node: as a plain ephemeral lock it would never be free; delete it first or pass another path")
	}
	plan = Plan{Path: lockPath, Library: lockops.Ephemeral, Mode: lockops.ModeExclusive, Kind: lockops.KindEphemeralLock}
	if held {
		plan.Existing = "an ephemeral node held by session " + lockops.FormatSession(st.EphemeralOwner)
		if !asked {
			plan.Why = "it is one ephemeral node: taking it as a plain ephemeral lock (create it, or wait with exists until it is deleted)"
		}
	}
	return plan, true, nil
}
