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
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/sasl"
	"github.com/zkscope/zkscope/zkview/wire"
)

// DefaultServer is used when no server is configured anywhere.
const DefaultServer = "127.0.0.1:2181"

// DefaultSessionTimeout is requested when nothing sets a session timeout.
const DefaultSessionTimeout = 10 * time.Second

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
	// SASL, when set, authenticates every connection (the session's, its
	// replacements', the multi-read sessions') before its first request.
	SASL *sasl.Config
	// Context is the name of the config context this came from (for display
	// and audit), "" when none.
	Context string
	// ReadOnly refuses every mutation made through this client.
	ReadOnly bool
	// DefaultRecipe is the context's default_recipe: the lock library to
	// take a lock in when nothing else tells ("" when unset; checked by
	// the lock operations, which know the libraries). It is a setting of
	// the context's ensemble, as ReadOnly is, so it travels with the
	// client; the UI's settings (theme, the list of contexts) do not: see
	// [FileConfig].
	DefaultRecipe string
	// AdminPort, when non-zero, is the AdminServer port to try on each member's
	// host (used when four-letter words are refused).
	AdminPort int

	// BulkSoon says the client is about to read many nodes (zkscope
	// locks): the bulk-read session opens while the main one does.
	BulkSoon bool
	// FollowPause, when set, is how long the persistent watches' reader
	// waits after waking for an event before handing it on, so that the
	// events of a busy tree arriving meanwhile come with it: one wakeup
	// for many, each event up to FollowPause later (0: each at once).
	FollowPause time.Duration
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
		if err := validateMember(h); err != nil {
			return nil, "", err
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
	conn atomic.Pointer[zk.Conn]
	dial zk.Dialer

	mu      sync.Mutex
	subs    map[int]chan ConnEvent
	nextID  int
	last    ConnEvent
	sid     int64 // latest session id seen
	live    bool  // sid is believed alive (false after an expiry)
	connGen int   // generation of the live go-zookeeper connection
	// connOf is the generation conn belongs to: a connection's first
	// session can be up before zk.Connect returns it (see sessionUp).
	connOf int
	// pendingSID: the live generation has a session whose id is read
	// once open has its connection.
	pendingSID bool
	nodeSubs   map[int]func(zk.Event) // watch-event handlers (see onNodeEvent)
	closed     bool
	quit       chan struct{}
	lastSeen   time.Time // time of the last session event (watchdog)
	problem    string    // see LastProblem
	// onProblem is told each problem while ConnectReporting waits.
	onProblem func(string)
	dialErrs  map[string]error // last dial outcome per member (nil: it worked)
	// mismatches are members that answered like something other than
	// ZooKeeper (peer.go).
	mismatches map[string]mismatchSeen
	sessions   map[int64]*sessionFacts // what the wire told about each session (see Contact)
	bulk       *multiReader            // the multi-read sidecar session and its state (multiread.go)
	follow     followState             // the persistent-watch session (follow.go)
	sasl       *sasl.Authenticator     // nil without SASL (sasl_conn.go)
	saslErrs   map[string]*SASLError   // the last failed exchange per member
}

// Conn exposes the underlying go-zookeeper connection for operations zkview
// does not wrap. Paths passed to it are NOT chroot-adjusted: use [Client.Abs].
// The connection can be replaced when the client recovers from a wedged
// connection (a new session): fetch it for every operation, do not keep it.
func (c *Client) Conn() *zk.Conn { return c.conn.Load() }

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
func (c *Client) SessionID() int64 { return c.Conn().SessionID() }

// Server is the member the client is connected to now ("" when none).
func (c *Client) Server() string {
	if c.State().State != StateConnected {
		return ""
	}
	return c.Conn().Server()
}

// Servers lists the configured members.
func (c *Client) Servers() []string { return append([]string(nil), c.cfg.Servers...) }

// Close ends the session (its ephemeral nodes go away), the bulk-read
// session if one is open, and their connections, and publishes
// [StateClosed]. It returns once the servers confirmed both closes (or a
// second passed). It is safe to call more than once.
func (c *Client) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	close(c.quit)
	c.publishLocked(ConnEvent{State: StateClosed, PrevSessionID: c.sid, Time: time.Now()})
	c.mu.Unlock()
	c.Conn().Close()
	c.closeFollow()
	c.bulk.waitClosed() // the bulk-read session closes alongside (a second at most)
	if c.sasl != nil {
		c.sasl.Close()
	}
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
	data, st, err := c.Conn().Get(c.Abs(p))
	if err != nil {
		return Node{Path: p, Err: err}, fmt.Errorf("read %s: %w", p, Explain(err))
	}
	return Node{Path: p, Data: data, Stat: *st}, nil
}

// Children lists a node's children (unsorted, as the server returns them)
// and its stat.
func (c *Client) Children(p string) ([]string, zk.Stat, error) {
	kids, st, err := c.Conn().Children(c.Abs(p))
	if err != nil {
		return nil, zk.Stat{}, fmt.Errorf("list children of %s: %w", p, Explain(err))
	}
	return kids, *st, nil
}

// Explain adds what to do next to the server errors a user can act on,
// keeping the original error for [errors.Is] (zk.ErrNoAuth, zk.ErrNoNode, ...).
func Explain(err error) error {
	var done explained
	switch {
	case err == nil:
		return nil
	case errors.As(err, &done):
		return err // explained once already
	case errors.Is(err, wire.ErrSASLRequired) || strings.Contains(err.Error(), "unknown error: -124"):
		return explained{err: err, replace: SASLRequiredMessage}
	case errors.Is(err, zk.ErrNoAuth):
		return explained{err: err, what: "the node's ACL does not allow these credentials (give digest credentials with --auth-file, ZKSCOPE_AUTH or the context's auth_file, or SASL ones with --sasl-user or --principal)"}
	case errors.Is(err, zk.ErrNoNode):
		return explained{err: err, replace: "node does not exist"}
	case errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrNoServer):
		return explained{err: err, what: "the connection dropped; zkscope reconnects on its own, try again in a moment"}
	case errors.Is(err, zk.ErrSessionExpired):
		return explained{err: err, what: "the session expired; zkscope opens a new one, try again"}
	}
	return err
}

type explained struct {
	err  error
	what string
	// replace, when set, is said instead of the error's own text (which
	// would repeat it).
	replace string
}

func (e explained) Error() string {
	if e.replace != "" {
		return e.replace
	}
	return e.err.Error() + ": " + e.what
}
func (e explained) Unwrap() error { return e.err }

// SASLRequiredMessage is what zkscope says when the server requires SASL
// and zkscope was given none.
const SASLRequiredMessage = "the server requires SASL authentication (enforce.auth.enabled): give --sasl-mechanism DIGEST-MD5 with --sasl-user and --sasl-password-file, or --sasl-mechanism GSSAPI with --principal and --keytab (or a context's [contexts.NAME.sasl] table)"

// Join is path.Join for znode paths ("/" + "a" = "/a").
func Join(parent, child string) string {
	if parent == "/" {
		return "/" + child
	}
	return parent + "/" + child
}

// Parent is the parent of a znode path ("/" for top-level nodes and "/").
func Parent(p string) string {
	d := path.Dir(p)
	if d == "." {
		return "/"
	}
	return d
}

// waitSession blocks until the client has a session or ctx ends. first
// (the first connect, whose caller gives up when it fails) also ends it as
// soon as no member can give one ([Client.nothingAnswers]); a recovery
// keeps trying until ctx ends, for its credentials must follow the
// session whenever it comes.
func (c *Client) waitSession(ctx context.Context, first bool) error {
	ch, cancel := c.Subscribe()
	defer cancel()
	for {
		if c.State().State == StateConnected {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("connect to %s: %w", strings.Join(c.cfg.Servers, ","), ctx.Err())
		case <-time.After(50 * time.Millisecond):
			if err := c.tlsRefusedEverywhere(); err != nil {
				return c.explainTLS(fmt.Errorf("connect to %s: %w", strings.Join(c.cfg.Servers, ","), err))
			}
			if err := c.nothingAnswers(); first && err != nil {
				return err
			}
			if err := c.saslRefused(); first && err != nil {
				return err
			}
		case ev := <-ch:
			switch ev.State {
			case StateAuthFailed:
				if ev.Err != nil {
					return ev.Err
				}
				return fmt.Errorf("connect to %s: the server refused the credentials (authentication failed)", strings.Join(c.cfg.Servers, ","))
			case StateConnected:
				return nil
			}
		}
	}
}
