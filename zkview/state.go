package zkview

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/zkscope/zkscope/peer"
	"github.com/zkscope/zkscope/zkview/sasl"

	"github.com/go-zookeeper/zk"
)

// ConnState is the connection's state as zkscope shows it.
type ConnState int

const (
	// StateConnecting: no session yet, trying members.
	StateConnecting ConnState = iota
	// StateConnected: a live session on Server.
	StateConnected
	// StateReconnecting: the connection dropped; the session may survive
	// if a member is reached within the session timeout (locks: SUSPENDED).
	StateReconnecting
	// StateExpired: the session is gone with its ephemeral nodes and watches
	// (locks: LOST). The client goes on to open a new session.
	StateExpired
	// StateAuthFailed: the server refused the credentials.
	StateAuthFailed
	// StateClosed: Close was called.
	StateClosed
)

func (s ConnState) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateReconnecting:
		return "reconnecting"
	case StateExpired:
		return "session expired"
	case StateAuthFailed:
		return "auth failed"
	case StateClosed:
		return "closed"
	}
	return "unknown"
}

// ConnEvent is one change of connection state.
type ConnEvent struct {
	State     ConnState
	Server    string // member connected to (Connected) or last tried
	SessionID int64  // current session (0 when none)
	// NewSession is true on the first Connected after an expiry (or any
	// change of session id): everything tied to the old session is lost.
	NewSession bool
	// PrevSessionID is the session this event replaces when NewSession.
	PrevSessionID int64
	Time          time.Time
	// Err says why, when zkscope itself caused the change (a stuck
	// connection replaced, credentials refused); nil otherwise.
	Err error
}

// Subscribe returns a channel of connection events (buffered; the newest
// state is always delivered: when a subscriber lags, older undelivered
// events are dropped, never the latest) and a function to unsubscribe.
// The current state is sent first.
func (c *Client) Subscribe() (<-chan ConnEvent, func()) {
	ch := make(chan ConnEvent, 16)
	c.mu.Lock()
	id := c.nextID
	c.nextID++
	c.subs[id] = ch
	cur := c.last
	if cur.Time.IsZero() {
		cur = ConnEvent{State: StateConnecting, Time: time.Now()}
	}
	ch <- cur // under the lock, so no newer event overtakes it
	c.mu.Unlock()
	return ch, func() {
		c.mu.Lock()
		delete(c.subs, id)
		c.mu.Unlock()
	}
}

// State returns the latest connection event.
func (c *Client) State() ConnEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// publish delivers ev to every subscriber without ever blocking the
// go-zookeeper receive goroutine.
func (c *Client) publish(ev ConnEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.publishLocked(ev)
}

// publishLocked is publish with c.mu held.
func (c *Client) publishLocked(ev ConnEvent) {
	c.last = ev
	for _, ch := range c.subs {
		for {
			select {
			case ch <- ev:
			default:
				// Full: drop the oldest so the newest state always arrives.
				select {
				case <-ch:
				default:
				}
				continue
			}
			break
		}
	}
}

// onEvent returns go-zookeeper's event callback for connection generation
// gen. It runs on the receive goroutine and must not block; events of a
// replaced connection are ignored.
func (c *Client) onEvent(gen int) zk.EventCallback {
	return func(e zk.Event) {
		if e.Type != zk.EventSession {
			c.onNodeEvent(gen, e)
			return
		}
		c.onSessionEvent(gen, e)
	}
}

// onSessionEvent turns one go-zookeeper session event into a [ConnEvent].
// Everything happens under c.mu, so an event racing with Close or with a
// replaced connection can never overwrite the newer state.
func (c *Client) onSessionEvent(gen int, e zk.Event) {
	ev := ConnEvent{Server: e.Server, Time: time.Now()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.connGen || c.closed {
		return
	}
	c.lastSeen = ev.Time
	prev := c.last.State
	switch e.State {
	case zk.StateConnecting, zk.StateDisconnected:
		if c.live {
			ev.State = StateReconnecting
			ev.SessionID = c.sid
		} else {
			ev.State = StateConnecting // first session, or after an expiry
		}
	case zk.StateConnected:
		// TCP connected, handshake pending: no session yet.
		return
	case zk.StateHasSession:
		ev.State = StateConnected
		if conn := c.Conn(); conn != nil && c.connOf == gen {
			c.sessionUp(&ev, conn.SessionID())
		} else {
			// The handshake beat zk.Connect's return: open reads the id
			// (never the replaced connection's) and publishes it.
			c.pendingSID = true
			return
		}
	case zk.StateExpired:
		ev.State = StateExpired
		ev.PrevSessionID = c.sid
		c.live = false
	case zk.StateAuthFailed:
		ev.State = StateAuthFailed
		ev.SessionID = c.sid
	default:
		return
	}
	// Every dial attempt repeats "connecting": publish only changes (the
	// member being tried is visible in Server of the first one).
	if ev.State == prev && (ev.State == StateConnecting || ev.State == StateReconnecting) {
		return
	}
	c.publishLocked(ev)
}

// AddNodeEventHandler registers h for every watch event (data, children,
// created, deleted, not-watching) the connection receives, with server paths.
// h runs on the connection's receive goroutine: it must return at once and
// must not call the client. The returned function unregisters h.
func (c *Client) AddNodeEventHandler(h func(zk.Event)) (remove func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.nextID
	c.nextID++
	c.nodeSubs[id] = h
	return func() {
		c.mu.Lock()
		delete(c.nodeSubs, id)
		c.mu.Unlock()
	}
}

func (c *Client) onNodeEvent(gen int, e zk.Event) {
	c.mu.Lock()
	if gen != c.connGen || c.closed {
		c.mu.Unlock()
		return
	}
	hs := make([]func(zk.Event), 0, len(c.nodeSubs))
	for _, h := range c.nodeSubs {
		hs = append(hs, h)
	}
	c.mu.Unlock()
	for _, h := range hs {
		h(e)
	}
}

// problemLogger keeps go-zookeeper's failure lines (instead of printing
// them, which would tear the TUI), so a connection that never comes up can
// say why.
type problemLogger struct{ c *Client }

func (l problemLogger) Printf(format string, args ...interface{}) {
	msg := fmt.Sprintf(format, args...)
	low := strings.ToLower(msg)
	if !strings.Contains(low, "fail") && !strings.Contains(low, "error") {
		return
	}
	l.c.mu.Lock()
	l.c.problem = msg
	report := l.c.onProblem
	l.c.mu.Unlock()
	if report != nil {
		report(msg)
	}
}

// LastProblem is the latest connection failure go-zookeeper reported
// ("failed to connect to 10.0.0.1:2181: ...", "authentication failed: EOF"),
// or "" when none.
func (c *Client) LastProblem() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.problem
}

// Connect opens a client and waits until it has a session or ctx ends.
// Credentials in cfg.Auth are sent after every (re)connect; a watchdog
// replaces a connection that stops answering (see [Client.watchdog]).
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	return ConnectReporting(ctx, cfg, nil)
}

// ConnectReporting is [Connect] telling report (when not nil) each failed
// attempt on the way ([Client.LastProblem]'s lines), so a caller can show
// why the connection is slow while it waits. report is not called once
// ConnectReporting has returned; it must not block.
func ConnectReporting(ctx context.Context, cfg Config, report func(problem string)) (*Client, error) {
	if len(cfg.Servers) == 0 {
		cfg.Servers = []string{DefaultServer}
	}
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = DefaultSessionTimeout
	}
	c := &Client{cfg: cfg, subs: map[int]chan ConnEvent{}, nodeSubs: map[int]func(zk.Event){}, quit: make(chan struct{}), onProblem: report}
	c.bulk = newMultiReader(c)
	defer func() {
		c.mu.Lock()
		c.onProblem = nil
		c.mu.Unlock()
	}()
	if cfg.SASL != nil {
		a, err := sasl.New(*cfg.SASL)
		if err != nil {
			return nil, err
		}
		c.sasl = a
	}
	base := zk.Dialer(net.DialTimeout)
	if cfg.TLS != nil {
		d, err := tlsDialer(cfg.TLS)
		if err != nil {
			return nil, err
		}
		base = d
	}
	c.dial = func(network, addr string, timeout time.Duration) (net.Conn, error) {
		if err := c.knownMismatch(addr); err != nil {
			c.noteDial(addr, err)
			return nil, err // not ZooKeeper a moment ago: next member
		}
		conn, err := base(network, addr, timeout)
		c.noteDial(addr, err)
		if err != nil {
			return nil, err
		}
		conn = peer.WatchZooKeeper(conn, addr, base, func(m error) { c.noteMismatch(addr, m) })
		if c.sasl != nil {
			conn = c.authenticating(conn, addr)
		}
		return conn, nil
	}
	c.publish(ConnEvent{State: StateConnecting, Server: cfg.Servers[0], Time: time.Now()})
	if err := c.open(); err != nil {
		return nil, err
	}
	if cfg.BulkSoon && len(cfg.Servers) == 1 {
		// One server: the bulk-read session cannot land on another
		// member than the main one, so it opens alongside.
		c.PrepareBulk()
	}
	if err := c.waitSession(ctx, true); err != nil {
		c.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, c.explainTimeout(err)
		}
		return nil, err
	}
	for _, a := range cfg.Auth {
		if err := c.addAuth(ctx, c.Conn(), a); err != nil {
			c.Close()
			return nil, err
		}
	}
	if err := c.checkAdmitted(ctx); err != nil {
		c.Close()
		return nil, err
	}
	go c.watchdog(watchdogProbe, watchdogGrace)
	return c, nil
}

// open starts a new go-zookeeper connection (a new session) and makes it
// the live one.
func (c *Client) open() error {
	c.mu.Lock()
	c.connGen++
	gen := c.connGen
	c.lastSeen = time.Now()
	c.pendingSID = false
	c.mu.Unlock()
	hosts := &hostList{}
	dial := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		if d := hosts.pauseBeforeDial(); d > 0 { // between passes over the members (hostlist.go)
			select {
			case <-time.After(d):
			case <-c.quit:
			}
		}
		return c.trackedDial(network, addr, timeout)
	}
	conn, _, err := zk.Connect(c.cfg.Servers, c.cfg.SessionTimeout,
		zk.WithEventCallback(c.onEvent(gen)), zk.WithLogger(problemLogger{c}), zk.WithDialer(dial),
		zk.WithHostProvider(hosts))
	if err != nil {
		return fmt.Errorf("connect to %s: %w", strings.Join(c.cfg.Servers, ","), err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn.Store(conn)
	c.connOf = gen
	if c.pendingSID && gen == c.connGen && !c.closed {
		c.pendingSID = false
		ev := ConnEvent{State: StateConnected, Server: conn.Server(), Time: time.Now()}
		c.sessionUp(&ev, conn.SessionID())
		c.publishLocked(ev)
	}
	return nil
}

// sessionUp records that session id is up, for ev (the "connected"
// event about to be published). Caller holds c.mu.
func (c *Client) sessionUp(ev *ConnEvent, id int64) {
	ev.SessionID = id
	if c.sid != 0 && c.sid != id {
		ev.NewSession, ev.PrevSessionID = true, c.sid
	}
	c.sid, c.live = id, true
}

// explainTimeout turns a handshake that never completed into one sentence:
// what went wrong last, and what to check.
func (c *Client) explainTimeout(err error) error {
	last := c.LastProblem()
	if last != "" {
		return fmt.Errorf("%w; last attempt: %s (%s)", err, last, c.hint(last))
	}
	return fmt.Errorf("%w (%s)", err, c.hint(""))
}

// explainTLS adds what to check to a TLS refusal.
func (c *Client) explainTLS(err error) error {
	return fmt.Errorf("%w (%s)", err, c.hint(err.Error()))
}

// hint says what to check after a failure whose text is last.
func (c *Client) hint(last string) string {
	tlsOn := c.cfg.TLS != nil
	switch {
	case tlsOn && strings.Contains(last, "first record does not look like a TLS handshake"):
		return "that port does not speak TLS: give the servers' secure client port, or drop --tls"
	case tlsOn && strings.Contains(last, "x509: certificate is valid for"):
		return "the server's certificate does not match the name checked: set --tls-server-name (or the context's tls.server_name) to a name in the certificate"
	case tlsOn && strings.Contains(last, "unknown authority"):
		return "the server's certificate is not signed by a trusted CA: give the CA that signed it with --tls-ca (or the context's tls.ca)"
	case tlsOn && strings.Contains(last, "remote error: tls:"):
		return "the server refused the TLS handshake: it probably requires a client certificate (--tls-cert and --tls-key) signed by a CA it trusts"
	case tlsOn && strings.HasSuffix(last, "EOF"):
		return "the server closed the connection during the TLS handshake: that port does not speak TLS? give the servers' secure client port, or drop --tls"
	case tlsOn && (strings.Contains(last, "x509:") || strings.Contains(last, "tls:")):
		return "TLS handshake failed: check --tls-ca (the CA that signed the servers' certificates) and, if the servers require one, --tls-cert/--tls-key"
	case !tlsOn && strings.Contains(last, "authentication failed") && (strings.Contains(last, "EOF") || strings.Contains(last, "reset")):
		return "the server closed the connection during the handshake: is this a TLS (secure client) port? then use --tls with --tls-ca"
	}
	return "is ZooKeeper running there? check --server, or try `zkscope demo`"
}
