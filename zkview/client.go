// Package zkview owns every conversation zkscope has with ZooKeeper: the
// connection and its state stream, the lazy tree cache and its watches, bulk
// (multi-read) fetches, CRUD primitives, and server introspection through
// four-letter words and the AdminServer.
//
// It must not import anything from ui, lockops or themes.
package zkview

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// DefaultServer is used when no server is configured anywhere.
const DefaultServer = "127.0.0.1:2181"

// Auth is one credential sent with addAuth after every (re)connect.
type Auth struct {
	Scheme string // "digest"
	Secret []byte // "user:password" for digest
}

// Config says where and how to connect.
type Config struct {
	// Servers are host:port members. A "/chroot" suffix on the connect
	// string is parsed by [ParseConnectString] into Chroot.
	Servers []string
	// Chroot, when set, prefixes every path the caller passes (like the Java
	// client's chroot): callers see "/" as Chroot.
	Chroot string
	// SessionTimeout requested from the server (default 10 s).
	SessionTimeout time.Duration
	Auth           []Auth
	TLS            *TLSConfig
	// Context is the name of the config context this came from (for display
	// and audit), "" when none.
	Context string
	// ReadOnly refuses every mutation made through this client.
	ReadOnly bool
	// AdminPort, when non-zero, is the AdminServer port to try on each member's
	// host (used when four-letter words are refused).
	AdminPort int
}

// TLSConfig configures TLS to a secure client port.
type TLSConfig struct {
	CAFile     string // PEM CA bundle to verify the server (system pool when empty)
	CertFile   string // PEM client certificate (optional)
	KeyFile    string // PEM client key (optional)
	ServerName string // name to verify; the host of each member when empty
	Insecure   bool   // skip verification (never the default)
}

// ErrReadOnly is returned by every mutation of a read-only client.
var ErrReadOnly = errors.New("zkscope is in read-only mode (--read-only or the context's read_only); this change was not made")

// ParseConnectString splits "h1:2181,h2:2181/chroot" into servers and chroot.
// A host without a port gets :2181.
func ParseConnectString(s string) (servers []string, chroot string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, "", errors.New("empty server list")
	}
	if i := strings.Index(s, "/"); i >= 0 {
		s, chroot = s[:i], path.Clean(s[i:])
		if chroot == "/" {
			chroot = ""
		}
	}
	for _, h := range strings.Split(s, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if !strings.Contains(h, ":") || strings.HasSuffix(h, "]") {
			h += ":2181"
		}
		servers = append(servers, h)
	}
	if len(servers) == 0 {
		return nil, "", fmt.Errorf("no servers in %q", s)
	}
	return servers, chroot, nil
}

// Client is a connection to an ensemble plus everything zkscope layers on top.
// All methods are safe for concurrent use.
type Client struct {
	cfg  Config
	conn *zk.Conn

	mu     sync.Mutex
	subs   map[int]chan ConnEvent
	nextID int
	last   ConnEvent
	sid    int64
}

// Conn exposes the underlying go-zookeeper connection for operations zkview
// does not wrap. Paths passed to it are NOT chroot-adjusted: use [Client.Abs].
func (c *Client) Conn() *zk.Conn { return c.conn }

// Config returns the configuration the client was made with.
func (c *Client) Config() Config { return c.cfg }

// Abs maps a caller's path to the server's path (adds the chroot).
func (c *Client) Abs(p string) string {
	if c.cfg.Chroot == "" {
		return p
	}
	if p == "/" {
		return c.cfg.Chroot
	}
	return c.cfg.Chroot + p
}

// Rel maps a server path back to the caller's view (strips the chroot).
func (c *Client) Rel(p string) string {
	if c.cfg.Chroot == "" {
		return p
	}
	if p == c.cfg.Chroot {
		return "/"
	}
	return strings.TrimPrefix(p, c.cfg.Chroot)
}

// SessionID is the current session id (0 before the first session).
func (c *Client) SessionID() int64 { return c.conn.SessionID() }

// Server is the member the client is connected to now ("" when none).
func (c *Client) Server() string { return c.conn.Server() }

// Servers lists the configured members.
func (c *Client) Servers() []string { return append([]string(nil), c.cfg.Servers...) }

// Close ends the session (its ephemeral nodes go away) and the connection.
func (c *Client) Close() {
	c.conn.Close()
}

// Node is one znode as read: its path (caller's view), data and stat. Err is
// set instead when the read failed (zk.ErrNoNode for a node deleted between
// list and read, zk.ErrNoAuth, ...).
type Node struct {
	Path string
	Data []byte
	Stat zk.Stat
	Err  error
}

// Name is the last path element.
func (n Node) Name() string { return path.Base(n.Path) }

// Get reads one node's data and stat.
func (c *Client) Get(p string) (Node, error) {
	data, st, err := c.conn.Get(c.Abs(p))
	if err != nil {
		return Node{Path: p, Err: err}, fmt.Errorf("read %s: %w", p, err)
	}
	return Node{Path: p, Data: data, Stat: *st}, nil
}

// Children lists a node's children (unsorted, as the server returns them)
// and its stat.
func (c *Client) Children(p string) ([]string, zk.Stat, error) {
	kids, st, err := c.conn.Children(c.Abs(p))
	if err != nil {
		return nil, zk.Stat{}, fmt.Errorf("list children of %s: %w", p, err)
	}
	return kids, *st, nil
}

// Join is path.Join for znode paths ("/" + "a" = "/a").
func Join(parent, child string) string {
	if parent == "/" {
		return "/" + child
	}
	return parent + "/" + child
}

// waitSession blocks until the client has a session or ctx ends.
func (c *Client) waitSession(ctx context.Context) error {
	ch, cancel := c.Subscribe()
	defer cancel()
	for {
		if c.conn.State() == zk.StateHasSession {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("connect to %s: %w", strings.Join(c.cfg.Servers, ","), ctx.Err())
		case ev := <-ch:
			if ev.State == StateAuthFailed {
				return fmt.Errorf("connect to %s: authentication failed", strings.Join(c.cfg.Servers, ","))
			}
		case <-time.After(100 * time.Millisecond):
		}
	}
}
