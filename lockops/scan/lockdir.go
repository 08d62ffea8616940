package scan

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// ReadLockDirOf reads the lock directory dir, recognising the semaphore
// layouts (Curator SemaphoreV2: <sem>/leases and <sem>/locks; kazoo
// Semaphore: <sem> and <sem>-__lock__) from either place. ok is false when
// dir holds no known lock.
func ReadLockDirOf(ctx context.Context, c *zkview.Client, dir string) (lockops.Dir, bool, error) {
	if sem, ok := curatorSemaphoreOf(c, dir); ok {
		if names, _, err := c.Children(dir); err == nil && curatorOnly(names) {
			return readSemaphore(ctx, c, lockops.JoinPath(sem, lockops.CuratorLeases), lockops.JoinPath(sem, lockops.CuratorLocks))
		}
	}
	if sem, ok := strings.CutSuffix(dir, lockops.KazooSemaphoreLock); ok && dir != "/" {
		if sibs, _, err := c.Children(path.Dir(dir)); err == nil && slices.Contains(sibs, path.Base(sem)) {
			return readSemaphore(ctx, c, sem, dir)
		}
	}
	names, st, err := c.ListChildren(ctx, dir)
	if err != nil {
		return lockops.Dir{}, false, err
	}
	if lockops.IsLockDir(names) {
		d, err := readChildren(ctx, c, dir, names, st)
		if err == nil {
			d, err = withElectionContext(ctx, c, d) // elections.go
		}
		return d, err == nil, err
	}
	if path.Base(dir) == lockops.HBaseBackupsDir && dir != "/"+lockops.HBaseBackupsDir {
		return ReadLockDirOf(ctx, c, path.Dir(dir)) // a backup master's node: HBase's election
	}
	if dir != "/" {
		if sibs, _, err := c.Children(path.Dir(dir)); err == nil && slices.Contains(sibs, path.Base(dir)+lockops.KazooSemaphoreLock) {
			return readSemaphore(ctx, c, dir, dir+lockops.KazooSemaphoreLock)
		}
	}
	return lockops.Dir{}, false, nil
}

// curatorOnly reports whether names, the children of a leases/ or locks/
// directory next to the other, are all Curator's nodes: an application's
// own locks/ directory next to a leases/ one holds other nodes, and is no
// Curator semaphore.
func curatorOnly(names []string) bool {
	return !slices.ContainsFunc(names, func(n string) bool { return lockops.LibraryOf(n) != lockops.Curator })
}

// curatorSemaphoreOf says whether dir is the leases/ or locks/ directory of
// a Curator SemaphoreV2, and at which path the semaphore is ([curatorOnly]
// tells it from an application's own).
func curatorSemaphoreOf(c *zkview.Client, dir string) (string, bool) {
	if b := path.Base(dir); b != lockops.CuratorLeases && b != lockops.CuratorLocks || dir == "/"+b {
		return "", false
	}
	sem := path.Dir(dir)
	names, _, err := c.Children(sem)
	if err != nil || !lockops.IsCuratorSemaphore(names) {
		return "", false
	}
	return sem, true
}

// readSemaphore reads a semaphore's two places: main (Curator's leases/,
// kazoo's <sem>) with aux (locks/, <sem>-__lock__). A missing aux is read
// as empty.
func readSemaphore(ctx context.Context, c *zkview.Client, main, aux string) (lockops.Dir, bool, error) {
	d, err := readDir(ctx, c, main)
	if err != nil {
		return lockops.Dir{}, false, err
	}
	a, err := readDir(ctx, c, aux)
	if err != nil && IgnoreGone(err) != nil {
		return lockops.Dir{}, false, err
	}
	a.Path = aux
	d.Aux = &a
	return d, true, nil
}

// EnclosingLock is the lock directory a node at p is (or, created, would
// be) a participant of: p's parent, or when that does not exist its
// nearest existing ancestor (where the first missing node would be
// created), when that is a lock directory of a known recipe — nodes of
// any library there, a Curator semaphore's leases/ or locks/, a kazoo
// semaphore or its <sem>-__lock__ queue. Such a node is never a lock of
// its own: only its lock's recipe makes nodes there. dir is "" when p's
// parent is no lock directory (or cannot be listed); sem is the semaphore
// a semaphore's place belongs to ("" for a lock).
func EnclosingLock(ctx context.Context, c *zkview.Client, p string) (dir string, kind lockops.Kind, sem string, err error) {
	for d := path.Dir(path.Clean(p)); ; d = path.Dir(d) {
		names, err := zkview.Call(ctx, func() ([]string, error) {
			names, _, err := c.Conn().Children(c.Abs(d))
			return names, err
		})
		switch {
		case errors.Is(err, zk.ErrNoNode) && d != "/":
			continue // created by the take too: its parent decides
		case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrNoAuth):
			return "", "", "", nil
		case err != nil:
			return "", "", "", fmt.Errorf("list %s: %w", d, zkview.Explain(err))
		}
		if kind, sem = lockDirKind(c, d, names); kind == "" {
			return "", "", "", nil
		}
		return d, kind, sem, nil
	}
}

// lockDirKind is the recipe of the lock directory d with children names,
// "" when d is none; sem is the semaphore d is a place of ("" for a lock).
// The semaphore layouts come first: a Curator semaphore's locks/ holds
// mutex nodes, but is no mutex of its own.
func lockDirKind(c *zkview.Client, d string, names []string) (kind lockops.Kind, sem string) {
	if d == "/" {
		return "", ""
	}
	if s, ok := curatorSemaphoreOf(c, d); ok && curatorOnly(names) {
		return lockops.KindCuratorSemaphoreV2, s
	}
	if lockops.IsCuratorLeases(d, names) { // its locks/ reaped
		return lockops.KindCuratorSemaphoreV2, path.Dir(d)
	}
	siblingOf := func(name string) bool {
		sibs, _, err := c.Children(path.Dir(d))
		return err == nil && slices.Contains(sibs, name)
	}
	if s, ok := strings.CutSuffix(d, lockops.KazooSemaphoreLock); ok && siblingOf(path.Base(s)) {
		return lockops.KindKazooSemaphore, s
	}
	if !slices.ContainsFunc(names, func(n string) bool { return !lockops.IsKazooLease(n) }) && siblingOf(path.Base(d)+lockops.KazooSemaphoreLock) {
		return lockops.KindKazooSemaphore, d // its leases: uuid4().hex, not sequential
	}
	cen := lockops.CensusOfNames(names)
	if l := cen.Dominant(); l != nil {
		return cen.KindOf(l), ""
	}
	return "", ""
}
