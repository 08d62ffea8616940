package audit

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// Mutations are the UI's plain znode changes (create, edit, delete), each
// refused in read-only mode and written to the audit log. Use them instead
// of calling the client directly so every change zkscope makes is audited.
type Mutations struct {
	Client *zkview.Client
}

// Create makes a node (flags as zk.Flag*: persistent 0, ephemeral 1,
// sequential 2, container 4) with an open ACL and returns its path.
func (m Mutations) Create(ctx context.Context, p string, data []byte, flags int32) (string, error) {
	c := m.Client
	if c.Config().ReadOnly {
		err := fmt.Errorf("create %s: %w", p, zkview.ErrReadOnly)
		Record(c, lockops.OpCreate, p, nil, 0, err)
		return "", err
	}
	created, err := zkview.Call(ctx, func() (string, error) {
		if flags == zk.FlagContainer {
			return c.Conn().CreateContainer(c.Abs(p), data, flags, zk.WorldACL(zk.PermAll))
		}
		return c.Conn().Create(c.Abs(p), data, flags, zk.WorldACL(zk.PermAll))
	})
	if err != nil {
		err = fmt.Errorf("create %s: %w", p, err)
		Record(c, lockops.OpCreate, p, nil, 0, err)
		return "", err
	}
	created = c.Rel(created)
	Record(c, lockops.OpCreate, created, VersionPtr(0), 0, nil)
	return created, nil
}

// Set writes data conditioned on version (-1: any) and returns the new stat.
func (m Mutations) Set(ctx context.Context, p string, data []byte, version int32) (zk.Stat, error) {
	c := m.Client
	if c.Config().ReadOnly {
		err := fmt.Errorf("edit %s: %w", p, zkview.ErrReadOnly)
		Record(c, lockops.OpSet, p, VersionPtr(version), 0, err)
		return zk.Stat{}, err
	}
	st, err := zkview.Call(ctx, func() (*zk.Stat, error) { return c.Conn().Set(c.Abs(p), data, version) })
	if err != nil {
		err = fmt.Errorf("edit %s: %w", p, err)
		Record(c, lockops.OpSet, p, VersionPtr(version), 0, err)
		return zk.Stat{}, err
	}
	Record(c, lockops.OpSet, p, VersionPtr(version), 0, nil)
	return *st, nil
}

// Delete removes a node conditioned on version (-1: any).
func (m Mutations) Delete(ctx context.Context, p string, version int32) error {
	c := m.Client
	if c.Config().ReadOnly {
		err := fmt.Errorf("delete %s: %w", p, zkview.ErrReadOnly)
		Record(c, lockops.OpDelete, p, VersionPtr(version), 0, err)
		return err
	}
	_, err := zkview.Call(ctx, func() (struct{}, error) { return struct{}{}, c.Conn().Delete(c.Abs(p), version) })
	switch {
	case errors.Is(err, zk.ErrBadVersion):
		err = VersionConflict(c, "delete", p, version)
	case err != nil:
		err = fmt.Errorf("delete %s: %w", p, err)
	}
	Record(c, lockops.OpDelete, p, VersionPtr(version), 0, err)
	return err
}

// VersionConflict is the error of op on p refused because the node is no
// longer at version want: "… changed meanwhile (version N, expected
// want)", with the version read now (it matches zk.ErrBadVersion).
func VersionConflict(c *zkview.Client, op, p string, want int32) error {
	now := int32(-1)
	if ok, st, err := c.Exists(p); err == nil && ok {
		now = st.Version
	}
	return &zkview.VersionError{Op: op, Path: p, Expected: want, Current: now}
}

// CreateWith makes a node as [zkview.Client.Create] does (any mode, a
// TTL, an ACL, missing parents) and returns its path.
func (m Mutations) CreateWith(ctx context.Context, p string, data []byte, opts zkview.CreateOptions) (string, error) {
	c := m.Client
	created, err := zkview.Call(ctx, func() (string, error) { return c.Create(p, data, opts) })
	if err != nil {
		Record(c, lockops.OpCreate, p, nil, 0, err)
		return "", err
	}
	Record(c, lockops.OpCreate, created, VersionPtr(0), 0, nil)
	return created, nil
}

// DeleteTree deletes p and everything below it if p is still at version
// (-1: any), as [zkview.Client.DeleteRecursive] does; one audit entry for
// the whole tree.
func (m Mutations) DeleteTree(ctx context.Context, p string, version int32, progress func(deleted int)) error {
	c := m.Client
	err := c.RefuseReadOnly("delete", p)
	if err == nil && version != zkview.AnyVersion {
		ok, st, xerr := c.Exists(p)
		switch {
		case xerr != nil:
			err = xerr
		case ok && st.Version != version:
			err = &zkview.VersionError{Op: "delete", Path: p, Expected: version, Current: st.Version}
		}
	}
	if err == nil {
		err = c.DeleteRecursive(ctx, p, progress)
	}
	Record(c, lockops.OpDelete, p, VersionPtr(version), 0, err)
	return err
}

// SetACL replaces a node's ACL if its ACL version is version (-1: any).
func (m Mutations) SetACL(ctx context.Context, p string, acl []zk.ACL, version int32) (zk.Stat, error) {
	c := m.Client
	st, err := zkview.Call(ctx, func() (zk.Stat, error) { return c.SetACL(p, acl, version) })
	Record(c, lockops.OpSetACL, p, VersionPtr(version), 0, err)
	return st, err
}
