package zkview

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// AnyVersion as an expected version skips the version check.
const AnyVersion int32 = -1

// CreateMode is the kind of node [Client.Create] makes.
type CreateMode int

const (
	// ModePersistent: stays until deleted.
	ModePersistent CreateMode = iota
	// ModeEphemeral: deleted when this client's session ends.
	ModeEphemeral
	// ModeSequential: persistent, with a 10-digit sequence number appended.
	ModeSequential
	// ModeEphemeralSequential: ephemeral with a sequence number.
	ModeEphemeralSequential
	// ModeContainer: deleted by the server once its last child is gone.
	ModeContainer
	// ModeTTL: persistent, deleted by the server when it has had no
	// children and no change for CreateOptions.TTL (the servers need
	// zookeeper.extendedTypesEnabled=true).
	ModeTTL
	// ModePersistentSequentialTTL: ModeTTL with a sequence number.
	ModePersistentSequentialTTL
)

// String names the mode as zkscope shows it ("ephemeral-sequential").
func (m CreateMode) String() string {
	switch m {
	case ModePersistent:
		return "persistent"
	case ModeEphemeral:
		return "ephemeral"
	case ModeSequential:
		return "persistent-sequential"
	case ModeEphemeralSequential:
		return "ephemeral-sequential"
	case ModeContainer:
		return "container"
	case ModeTTL:
		return "ttl"
	case ModePersistentSequentialTTL:
		return "persistent-sequential-ttl"
	}
	return fmt.Sprintf("CreateMode(%d)", int(m))
}

// flag is go-zookeeper's create flag for m.
func (m CreateMode) flag() int32 {
	switch m {
	case ModeEphemeral:
		return zk.FlagEphemeral
	case ModeSequential:
		return zk.FlagSequence
	case ModeEphemeralSequential:
		return zk.FlagEphemeralSequential
	case ModeContainer:
		return zk.FlagContainer
	case ModeTTL:
		return zk.FlagTTL
	case ModePersistentSequentialTTL:
		return zk.FlagPersistentSequentialWithTTL
	}
	return zk.FlagPersistent
}

func (m CreateMode) isTTL() bool { return m == ModeTTL || m == ModePersistentSequentialTTL }

// maxTTL is the largest TTL the server accepts (40 bits of milliseconds).
const maxTTL = time.Duration(1<<40-1) * time.Millisecond

// CreateOptions says how [Client.Create] makes a node.
type CreateOptions struct {
	Mode CreateMode
	// TTL for ModeTTL and ModePersistentSequentialTTL (required there,
	// refused elsewhere).
	TTL time.Duration
	// ACL of the node; nil is world:anyone with every permission.
	ACL []zk.ACL
	// MakeParents creates missing parents as persistent nodes with the open
	// ACL (world:anyone, every permission), as Curator does: the node's
	// own ACL on its parents could lock the creator out of its own path.
	MakeParents bool
}

// VersionError is a change refused because the node's version was not the
// one expected: someone else changed it meanwhile. It matches
// zk.ErrBadVersion with errors.Is.
type VersionError struct {
	Op       string // "set", "delete", "set ACL of"
	Path     string // caller's view
	Expected int32
	Current  int32 // -1 when it could not be read
	ACL      bool  // the versions are ACL versions
}

// Error says which version was expected and which the node has now.
func (e *VersionError) Error() string {
	what := "version"
	if e.ACL {
		what = "ACL version"
	}
	if e.Current < 0 {
		return fmt.Sprintf("%s %s: the node changed meanwhile (expected %s %d)", e.Op, e.Path, what, e.Expected)
	}
	return fmt.Sprintf("%s %s: the node changed meanwhile (%s %d, expected %d)", e.Op, e.Path, what, e.Current, e.Expected)
}

// Unwrap makes errors.Is(err, zk.ErrBadVersion) true.
func (e *VersionError) Unwrap() error { return zk.ErrBadVersion }

// versionError builds the VersionError for a refused op on p, reading the
// node's current version for the message.
func (c *Client) versionError(op, p string, expected int32, acl bool) error {
	e := &VersionError{Op: op, Path: p, Expected: expected, Current: -1, ACL: acl}
	if ok, st, err := c.Conn().Exists(c.Abs(p)); err == nil && ok {
		e.Current = st.Version
		if acl {
			e.Current = st.Aversion
		}
	}
	return e
}

// refuseReadOnly is the error of a mutation on a read-only client.
func (c *Client) refuseReadOnly(op, p string) error {
	if c.cfg.ReadOnly {
		return fmt.Errorf("%s %s: %w", op, p, ErrReadOnly)
	}
	return nil
}

// CheckCreate refuses options no server would accept for creating p: an
// unknown mode, a TTL mode without a TTL the servers take (1ms to 40 bits
// of milliseconds), a TTL for another mode. [Client.Create] checks the
// same; a caller calls it before connecting.
func CheckCreate(p string, opts CreateOptions) error {
	if opts.Mode < ModePersistent || opts.Mode > ModePersistentSequentialTTL {
		return fmt.Errorf("create %s: unknown create mode %d", p, int(opts.Mode))
	}
	switch {
	case opts.Mode.isTTL() && (opts.TTL < time.Millisecond || opts.TTL > maxTTL):
		return fmt.Errorf("create %s: a %s node needs a TTL between 1ms and %s (got %s)", p, opts.Mode, maxTTL, opts.TTL)
	case !opts.Mode.isTTL() && opts.TTL != 0:
		return fmt.Errorf("create %s: a TTL is only for ttl modes, not %s", p, opts.Mode)
	}
	return nil
}

// Create makes a node at p (caller's view) and returns the path created
// (with its sequence number for sequential modes), in the caller's view.
func (c *Client) Create(p string, data []byte, opts CreateOptions) (string, error) {
	if err := c.refuseReadOnly("create", p); err != nil {
		return "", err
	}
	if err := CheckCreate(p, opts); err != nil {
		return "", err
	}
	acl := opts.ACL
	if acl == nil {
		acl = zk.WorldACL(zk.PermAll)
	}
	created, err := c.create(p, data, opts, acl)
	if errors.Is(err, zk.ErrNoNode) && opts.MakeParents {
		if perr := c.makeParents(p); perr != nil {
			return "", perr
		}
		created, err = c.create(p, data, opts, acl)
	}
	if err != nil {
		return "", c.createError(p, opts, err)
	}
	return c.Rel(created), nil
}

func (c *Client) create(p string, data []byte, opts CreateOptions, acl []zk.ACL) (string, error) {
	conn, abs, flag := c.Conn(), c.Abs(p), opts.Mode.flag()
	switch {
	case opts.Mode == ModeContainer:
		return conn.CreateContainer(abs, data, flag, acl)
	case opts.Mode.isTTL():
		return conn.CreateTTL(abs, data, flag, acl, opts.TTL)
	}
	return conn.Create(abs, data, flag, acl)
}

// makeParents creates every missing ancestor of p (persistent, open ACL).
func (c *Client) makeParents(p string) error {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	cur := ""
	for _, part := range parts[:len(parts)-1] {
		cur += "/" + part
		_, err := c.Conn().Create(c.Abs(cur), nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll))
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: make parent %s: %w", p, cur, Explain(err))
		}
	}
	return nil
}

// createError wraps a failed create with what it means.
func (c *Client) createError(p string, opts CreateOptions, err error) error {
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("create %s: the parent %s does not exist (create it first, or make parents): %w", p, Parent(p), err)
	case errors.Is(err, zk.ErrNodeExists):
		return fmt.Errorf("create %s: it already exists: %w", p, err)
	case errors.Is(err, zk.ErrNoChildrenForEphemerals):
		return fmt.Errorf("create %s: the parent %s is ephemeral and cannot have children: %w", p, Parent(p), err)
	case opts.Mode.isTTL() && strings.Contains(err.Error(), "unknown error: -6"):
		return fmt.Errorf("create %s: the server does not allow TTL nodes (start it with -Dzookeeper.extendedTypesEnabled=true): %w", p, err)
	}
	return fmt.Errorf("create %s: %w", p, Explain(err))
}

// Set writes data if the node's version is expectedVersion (AnyVersion:
// unconditionally) and returns the new stat.
func (c *Client) Set(p string, data []byte, expectedVersion int32) (zk.Stat, error) {
	if err := c.refuseReadOnly("set", p); err != nil {
		return zk.Stat{}, err
	}
	st, err := c.Conn().Set(c.Abs(p), data, expectedVersion)
	switch {
	case errors.Is(err, zk.ErrBadVersion):
		return zk.Stat{}, c.versionError("set", p, expectedVersion, false)
	case err != nil:
		return zk.Stat{}, fmt.Errorf("set %s: %w", p, Explain(err))
	}
	return *st, nil
}

// Delete deletes a node without children if its version is expectedVersion
// (AnyVersion: unconditionally).
func (c *Client) Delete(p string, expectedVersion int32) error {
	if err := c.refuseReadOnly("delete", p); err != nil {
		return err
	}
	err := c.Conn().Delete(c.Abs(p), expectedVersion)
	switch {
	case errors.Is(err, zk.ErrBadVersion):
		return c.versionError("delete", p, expectedVersion, false)
	case errors.Is(err, zk.ErrNotEmpty):
		return fmt.Errorf("delete %s: it has children (delete them first, or delete recursively): %w", p, err)
	case err != nil:
		return fmt.Errorf("delete %s: %w", p, Explain(err))
	}
	return nil
}

// GetACL reads a node's ACL and stat.
func (c *Client) GetACL(p string) ([]zk.ACL, zk.Stat, error) {
	acl, st, err := c.Conn().GetACL(c.Abs(p))
	if err != nil {
		return nil, zk.Stat{}, fmt.Errorf("read ACL of %s: %w", p, Explain(err))
	}
	return acl, *st, nil
}

// SetACL replaces a node's ACL if its ACL version (Stat.Aversion) is
// expectedVersion (AnyVersion: unconditionally) and returns the new stat.
func (c *Client) SetACL(p string, acl []zk.ACL, expectedVersion int32) (zk.Stat, error) {
	if err := c.refuseReadOnly("set ACL of", p); err != nil {
		return zk.Stat{}, err
	}
	if len(acl) == 0 {
		return zk.Stat{}, fmt.Errorf("set ACL of %s: an empty ACL is not allowed: %w", p, zk.ErrInvalidACL)
	}
	st, err := c.Conn().SetACL(c.Abs(p), acl, expectedVersion)
	switch {
	case errors.Is(err, zk.ErrBadVersion):
		return zk.Stat{}, c.versionError("set ACL of", p, expectedVersion, true)
	case err != nil:
		return zk.Stat{}, fmt.Errorf("set ACL of %s: %w", p, Explain(err))
	}
	return *st, nil
}

// Exists reports whether p exists, with its stat.
func (c *Client) Exists(p string) (bool, zk.Stat, error) {
	ok, st, err := c.Conn().Exists(c.Abs(p))
	if err != nil {
		return false, zk.Stat{}, fmt.Errorf("read %s: %w", p, Explain(err))
	}
	if !ok {
		return false, zk.Stat{}, nil
	}
	return true, *st, nil
}

// RefuseReadOnly returns the error of the mutation op on p when the client
// is read-only, else nil.
func (c *Client) RefuseReadOnly(op, p string) error { return c.refuseReadOnly(op, p) }
