package lockops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// RevokeResult says what came of a revocation request.
type RevokeResult struct {
	Node    string
	Session int64 // the holder's session when asked
	// Released is true when the node was deleted within the wait.
	Released bool
}

// Revoke asks the holder of node to let go the way Curator's Revoker does:
// it writes "__REVOKE__" as the node's data (conditioned on the version
// just read, so a re-created node is not touched), then waits up to wait
// for the node to be deleted. Only holders that made their lock revocable
// (Curator's makeRevocable, or `zkscope lock --revocable`) react; others
// keep the lock and Released is false.
func Revoke(ctx context.Context, c *zkview.Client, node string, wait time.Duration) (RevokeResult, error) {
	res := RevokeResult{Node: node}
	if c.Config().ReadOnly {
		err := fmt.Errorf("revoke %s: %w", node, zkview.ErrReadOnly)
		record(c, OpRevoke, node, nil, 0, err)
		return res, err
	}
	abs := c.Abs(node)
	st, err := zkview.Call(ctx, func() (*zk.Stat, error) {
		_, st, err := c.Conn().Get(abs)
		return st, err
	})
	if err != nil {
		err = fmt.Errorf("revoke %s: read it: %w", node, err)
		record(c, OpRevoke, node, nil, 0, err)
		return res, err
	}
	res.Session = st.EphemeralOwner
	nst, err := zkview.Call(ctx, func() (*zk.Stat, error) {
		return c.Conn().Set(abs, revokeMessage, st.Version)
	})
	if err != nil {
		if errors.Is(err, zk.ErrBadVersion) {
			err = fmt.Errorf("%w (the node changed while we asked: look again)", err)
		}
		err = fmt.Errorf("revoke %s: write __REVOKE__: %w", node, err)
		record(c, OpRevoke, node, versionPtr(st.Version), res.Session, err)
		return res, err
	}
	record(c, OpRevoke, node, versionPtr(nst.Version), res.Session, nil)

	waitCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		type existsRes struct {
			ok bool
			ch <-chan zk.Event
		}
		r, err := zkview.Call(waitCtx, func() (existsRes, error) {
			ok, _, ch, err := c.Conn().ExistsW(abs)
			return existsRes{ok, ch}, err
		})
		if err != nil {
			if waitCtx.Err() != nil && ctx.Err() == nil {
				return res, nil // asked, not released within the wait
			}
			return res, fmt.Errorf("revoke %s: wait for release: %w", node, err)
		}
		if !r.ok {
			res.Released = true
			return res, nil
		}
		select {
		case <-r.ch:
		case <-waitCtx.Done():
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			return res, nil
		}
	}
}
