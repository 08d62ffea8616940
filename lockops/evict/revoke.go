package evict

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/scan"
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
// it writes "__REVOKE__" as the node's data, then waits up to wait for the
// node to be deleted. Only holders that made their lock revocable
// (Curator's makeRevocable, or `zkscope lock --revocable`) react; others
// keep the lock and Released is false.
//
// The node's lock is read and decoded first ([lockops.Decode]): Revoke writes only
// to an ephemeral holder of a Curator lock that supports revocation
// ([NotRevocable]) and otherwise returns a [*lockops.Refusal], writing nothing.
// The write is conditioned on the data version read with the decode, so a
// node written meanwhile is not touched (ZooKeeper cannot condition a write
// on the creation zxid: a node deleted and re-created at the same version
// in between would be).
func Revoke(ctx context.Context, c *zkview.Client, node string, wait time.Duration) (RevokeResult, error) {
	node = path.Clean(node)
	res := RevokeResult{Node: node}
	if c.Config().ReadOnly {
		err := fmt.Errorf("revoke %s: %w", node, zkview.ErrReadOnly)
		audit.Record(c, lockops.OpRevoke, node, nil, 0, err)
		return res, err
	}
	p, err := revocableHolder(ctx, c, node)
	res.Session = p.Session
	if err != nil {
		audit.Record(c, lockops.OpRevoke, node, nil, res.Session, err)
		return res, err
	}
	abs := c.Abs(node)
	nst, err := zkview.Call(ctx, func() (*zk.Stat, error) {
		return c.Conn().Set(abs, lockops.RevokeMessage, p.Version)
	})
	if err != nil {
		if errors.Is(err, zk.ErrBadVersion) {
			err = fmt.Errorf("%w (the node changed while we asked: look again)", err)
		}
		err = fmt.Errorf("revoke %s: write __REVOKE__: %w", node, audit.Denied(c, node, zk.PermWrite, err))
		audit.Record(c, lockops.OpRevoke, node, audit.VersionPtr(p.Version), res.Session, err)
		return res, err
	}
	audit.Record(c, lockops.OpRevoke, node, audit.VersionPtr(nst.Version), res.Session, nil)

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

// revocableHolder reads node's lock and returns node as decoded when it
// may be revoked; otherwise a [*lockops.Refusal] (or the error reading it).
func revocableHolder(ctx context.Context, c *zkview.Client, node string) (lockops.Participant, error) {
	l, err := readNodeLock(ctx, c, node)
	if err != nil {
		return lockops.Participant{}, fmt.Errorf("revoke %s: read its lock: %w", node, err)
	}
	p, ok := l.participant()
	if !ok {
		if err := mustExist(ctx, c, node); err != nil {
			return lockops.Participant{}, fmt.Errorf("revoke %s: %w", node, err)
		}
		if why, isDir := revokeHolderInstead(ctx, c, node); isDir {
			return lockops.Participant{}, lockops.Refusef(lockops.OpRevoke, node, "%s", why)
		}
		return lockops.Participant{}, lockops.Refusef(lockops.OpRevoke, node, "%s; only the holder of a Curator lock can be revoked", notLockNode(l))
	}
	if why := NotRevocable(l.queue.Kind, p); why != "" {
		return p, lockops.Refusef(lockops.OpRevoke, node, "%s", why)
	}
	return p, nil
}

// NotRevocable says in one line why the participant p of a lock of kind k
// cannot be asked to let go, "" when it can: only an ephemeral holder of a
// Curator InterProcessMutex or InterProcessReadWriteLock can, the only
// recipes with makeRevocable (its holder watches its own node for
// __REVOKE__). A waiter has nothing to release, and a persistent node no
// session that could react.
func NotRevocable(k lockops.Kind, p lockops.Participant) string {
	role := "waiter"
	if p.State == lockops.StateHolding {
		role = "holder"
	}
	switch {
	case k != lockops.KindCuratorMutex && k != lockops.KindCuratorRW:
		return fmt.Sprintf("it is a %s %s: %s; use `zkscope evict` to force-delete it", k, role, noRevocation(k))
	case p.Mode == lockops.ModeStray:
		return fmt.Sprintf("it is no lock node, though %s counts it in its queue: no client holds the lock through it; use `zkscope evict` to delete it", k)
	case p.State != lockops.StateHolding:
		return fmt.Sprintf("it is a %s waiter, not the holder: revocation asks a holder to let go and a waiter has nothing to release; use `zkscope evict` to take it out of the queue", k)
	case !p.Ephemeral:
		return fmt.Sprintf("it is a PERSISTENT %s node: no session holds it that could react to __REVOKE__; use `zkscope evict` to delete it", k)
	}
	return ""
}

// noRevocation says why a recipe other than Curator's mutex and read/write
// lock cannot be revoked.
func noRevocation(k lockops.Kind) string {
	switch k {
	case lockops.KindKazooLock, lockops.KindKazooRW, lockops.KindKazooSemaphore:
		return "kazoo locks cannot be revoked (kazoo has no revocation)"
	case lockops.KindCuratorSemaphoreV2:
		return "Curator semaphores cannot be revoked (only InterProcessMutex and InterProcessReadWriteLock can be made revocable)"
	case lockops.KindCuratorLeaderLatch:
		return "Curator leader latches cannot be revoked (only InterProcessMutex and InterProcessReadWriteLock can be made revocable)"
	case lockops.KindGoZK:
		return "go-zookeeper locks cannot be revoked (go-zookeeper has no revocation)"
	}
	return "only Curator's InterProcessMutex and InterProcessReadWriteLock holders react to __REVOKE__"
}

// revokeHolderInstead says, when node is itself a lock directory rather
// than a node of one, which node holds it (the one to revoke, or to evict
// when its recipe has no revocation); isDir is false otherwise.
func revokeHolderInstead(ctx context.Context, c *zkview.Client, node string) (why string, isDir bool) {
	d, ok, err := scan.ReadLockDirOf(ctx, c, node)
	if err != nil || !ok || d.Path != node {
		return "", false
	}
	q := lockops.Decode(d, lockops.DecodeOptions{})
	var holders []lockops.Participant
	for _, p := range q.Participants {
		if p.State == lockops.StateHolding && !p.WatcherOnly {
			holders = append(holders, p)
		}
	}
	what := fmt.Sprintf("it is the directory of the %s, not a lock node", q.Kind)
	if len(holders) == 0 {
		return what + ", and nothing holds it now", true
	}
	nodes := make([]string, len(holders))
	for i, h := range holders {
		nodes[i] = h.Node
	}
	holds := "its holder is " + nodes[0]
	if len(nodes) > 1 {
		holds = "its holders are " + strings.Join(nodes, ", ")
	}
	switch no := NotRevocable(q.Kind, holders[0]); {
	case no == "":
		return fmt.Sprintf("%s: %s; revoke that node (zkscope revoke %s)", what, holds, nodes[0]), true
	case q.Kind != lockops.KindCuratorMutex && q.Kind != lockops.KindCuratorRW:
		return fmt.Sprintf("%s: %s, but %s; zkscope evict %s force-deletes it", what, holds, noRevocation(q.Kind), nodes[0]), true
	default:
		return fmt.Sprintf("%s: %s, and as for that node, %s", what, holds, no), true
	}
}

// notLockNode says why node is no participant of a recognised lock.
func notLockNode(l nodeLock) string {
	dir := path.Dir(l.node)
	if !lockops.Recognised(l.queue.Kind) {
		return fmt.Sprintf("it is not a lock node (%s holds no node of a lock recipe zkscope knows)", dir)
	}
	return fmt.Sprintf("it is no participant of the %s in %s (that library ignores this name)", l.queue.Kind, dir)
}

// mustExist returns an error when node does not exist (or cannot be read).
func mustExist(ctx context.Context, c *zkview.Client, node string) error {
	abs := c.Abs(node)
	ok, err := zkview.Call(ctx, func() (bool, error) {
		ok, _, err := c.Conn().Exists(abs)
		return ok, err
	})
	switch {
	case err != nil:
		return fmt.Errorf("read it: %w", zkview.Explain(err))
	case !ok:
		return fmt.Errorf("read it: %w", zkview.Explain(zk.ErrNoNode))
	}
	return nil
}
