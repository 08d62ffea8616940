package zkview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Recursive delete tuning: ops per atomic batch, batches in flight, and
// how often the subtree is walked again when children keep appearing.
var (
	deleteBatchOps       = 500
	deleteBatchBytes     = 256 << 10
	deleteInFlight       = 8
	deleteWalkAttempts   = 5
	listChildrenInFlight = 256
)

// DeleteRecursive deletes p and everything under it, bottom-up: the
// subtree is listed level by level with pipelined child listings, then each
// level, deepest first, is deleted in atomic batches (several in flight)
// that also check p's version as read at the start, so nothing more is
// deleted once p itself changed. Nodes that vanish meanwhile are skipped;
// children created meanwhile make it walk the subtree again. progress, when
// not nil, is called (never concurrently) with the number deleted so far.
func (c *Client) DeleteRecursive(ctx context.Context, p string, progress func(deleted int)) error {
	if err := c.refuseReadOnly("delete", p); err != nil {
		return err
	}
	abs := c.Abs(p)
	if abs == "/" || abs == "/zookeeper" || strings.HasPrefix(abs, "/zookeeper/") {
		return fmt.Errorf("delete %s: refusing to delete the root or ZooKeeper's own /zookeeper tree", p)
	}
	ok, st, err := c.Conn().Exists(abs)
	switch {
	case err != nil:
		return fmt.Errorf("delete %s: %w", p, Explain(err))
	case !ok:
		return fmt.Errorf("delete %s: %w", p, Explain(zk.ErrNoNode))
	}
	rd := &recursiveDelete{c: c, p: p, abs: abs, version: st.Version, progress: progress}
	for attempt := 0; attempt < deleteWalkAttempts; attempt++ {
		levels, err := c.listSubtree(ctx, abs)
		if err != nil {
			return fmt.Errorf("delete %s: %w", p, err)
		}
		for d := len(levels) - 1; d >= 0; d-- {
			err := rd.level(ctx, levels[d])
			if errors.Is(err, errRootGone) {
				return nil // someone else deleted the whole subtree meanwhile
			}
			if err != nil {
				return err
			}
		}
		err = c.Conn().Delete(abs, rd.version)
		switch {
		case err == nil:
			rd.done(1)
			return nil
		case errors.Is(err, zk.ErrNoNode):
			return nil // deleted by someone else meanwhile
		case errors.Is(err, zk.ErrBadVersion):
			return c.versionError("delete", p, rd.version, false)
		case errors.Is(err, zk.ErrNotEmpty):
			continue // children appeared: walk again
		default:
			return fmt.Errorf("delete %s: %w", p, Explain(err))
		}
	}
	return fmt.Errorf("delete %s: new children kept appearing (gave up after %d walks): %w", p, deleteWalkAttempts, zk.ErrNotEmpty)
}

// errRootGone: the root of a recursive delete vanished (with everything
// under it) while it ran.
var errRootGone = errors.New("deleted meanwhile")

// recursiveDelete is one DeleteRecursive call's state.
type recursiveDelete struct {
	c        *Client
	p, abs   string
	version  int32
	progress func(int)

	mu      sync.Mutex
	deleted int
}

func (rd *recursiveDelete) done(n int) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	rd.deleted += n
	if rd.progress != nil && n > 0 {
		rd.progress(rd.deleted)
	}
}

// level deletes one level of server paths in batches.
func (rd *recursiveDelete) level(ctx context.Context, paths []string) error {
	var (
		wg       sync.WaitGroup
		slots    = make(chan struct{}, deleteInFlight)
		errOnce  sync.Once
		firstErr error
	)
	for lo := 0; lo < len(paths); {
		hi, size := lo, 0
		for hi < len(paths) && hi-lo < deleteBatchOps && (hi == lo || size+len(paths[hi]) < deleteBatchBytes) {
			size += len(paths[hi]) + 16
			hi++
		}
		if err := ctx.Err(); err != nil {
			wg.Wait()
			return fmt.Errorf("delete %s: %w", rd.p, err)
		}
		slots <- struct{}{}
		wg.Add(1)
		go func(batch []string) {
			defer func() { <-slots; wg.Done() }()
			if err := rd.batch(batch); err != nil {
				errOnce.Do(func() { firstErr = err })
			}
		}(paths[lo:hi])
		lo = hi
	}
	wg.Wait()
	return firstErr
}

// batch deletes paths atomically together with a check of the root's
// version; an op that fails because its node vanished, or because it got
// children meanwhile, is dropped and the rest retried.
func (rd *recursiveDelete) batch(paths []string) error {
	paths = append([]string(nil), paths...)
	for len(paths) > 0 {
		ops := make([]any, 0, len(paths)+1)
		ops = append(ops, &zk.CheckVersionRequest{Path: rd.abs, Version: rd.version})
		for _, p := range paths {
			ops = append(ops, &zk.DeleteRequest{Path: p, Version: -1})
		}
		res, err := rd.c.Conn().Multi(ops...)
		if err == nil {
			rd.done(len(paths))
			return nil
		}
		failed := -1
		for i, r := range res {
			if r.Error != nil && (errors.Is(r.Error, zk.ErrNoNode) || errors.Is(r.Error, zk.ErrNotEmpty) || errors.Is(r.Error, zk.ErrBadVersion)) {
				failed = i
				break
			}
		}
		switch {
		case failed == 0 && errors.Is(res[0].Error, zk.ErrNoNode):
			return errRootGone
		case failed == 0:
			return rd.c.versionError("delete", rd.p, rd.version, false)
		case failed < 0:
			return fmt.Errorf("delete %s: %w", rd.p, Explain(err))
		}
		// Vanished (NoNode) or grew children (NotEmpty, left for the next
		// walk): drop it and retry the others.
		paths = append(paths[:failed-1], paths[failed:]...)
	}
	return nil
}

// listSubtree returns the server paths under abs, level by level (children
// first, then grandchildren, ...), listing each level with pipelined calls.
// Nodes that vanish while listed are left out.
func (c *Client) listSubtree(ctx context.Context, abs string) ([][]string, error) {
	var levels [][]string
	cur := []string{abs}
	for len(cur) > 0 {
		kids := make([][]string, len(cur))
		errs := make([]error, len(cur))
		var wg sync.WaitGroup
		slots := make(chan struct{}, listChildrenInFlight)
		for i, p := range cur {
			if err := ctx.Err(); err != nil {
				wg.Wait()
				return nil, err
			}
			slots <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-slots; wg.Done() }()
				names, _, err := c.Conn().Children(p)
				if err != nil && !errors.Is(err, zk.ErrNoNode) {
					errs[i] = fmt.Errorf("list children of %s: %w", c.Rel(p), Explain(err))
					return
				}
				for _, n := range names {
					kids[i] = append(kids[i], Join(p, n))
				}
			}()
		}
		wg.Wait()
		var next []string
		for i := range cur {
			if errs[i] != nil {
				return nil, errs[i]
			}
			next = append(next, kids[i]...)
		}
		if len(next) > 0 {
			levels = append(levels, next)
		}
		cur = next
	}
	return levels, nil
}
