package zkview

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

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
	c.mu.Unlock()
	if cur.Time.IsZero() {
		cur = ConnEvent{State: StateConnecting, Time: time.Now()}
	}
	ch <- cur
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

// onEvent is go-zookeeper's event callback; it runs on the receive
// goroutine and must not block.
func (c *Client) onEvent(e zk.Event) {
	if e.Type != zk.EventSession {
		return
	}
	ev := ConnEvent{Server: e.Server, Time: time.Now()}
	switch e.State {
	case zk.StateConnecting:
		c.mu.Lock()
		had := c.sid != 0
		c.mu.Unlock()
		if had {
			ev.State = StateReconnecting
		} else {
			ev.State = StateConnecting
		}
	case zk.StateConnected:
		return // handshake done, no session yet: wait for HasSession
	case zk.StateHasSession:
		ev.State = StateConnected
		sid := c.conn.SessionID()
		c.mu.Lock()
		if c.sid != 0 && c.sid != sid {
			ev.NewSession, ev.PrevSessionID = true, c.sid
		}
		c.sid = sid
		c.mu.Unlock()
	case zk.StateExpired:
		ev.State = StateExpired
		c.mu.Lock()
		ev.PrevSessionID = c.sid
		c.mu.Unlock()
	case zk.StateAuthFailed:
		ev.State = StateAuthFailed
	case zk.StateDisconnected:
		ev.State = StateReconnecting
		c.mu.Lock()
		if c.sid == 0 {
			ev.State = StateConnecting
		}
		c.mu.Unlock()
	default:
		return
	}
	ev.SessionID = c.conn.SessionID()
	if ev.State != StateConnected && ev.State != StateReconnecting {
		ev.SessionID = 0
	}
	c.publish(ev)
}

// quietLogger drops go-zookeeper's log lines (they would tear the TUI).
type quietLogger struct{}

func (quietLogger) Printf(string, ...interface{}) {}

// Connect opens a client and waits until it has a session or ctx ends.
// Credentials in cfg.Auth are sent after every (re)connect.
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	if len(cfg.Servers) == 0 {
		cfg.Servers = []string{DefaultServer}
	}
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = 10 * time.Second
	}
	c := &Client{cfg: cfg, subs: map[int]chan ConnEvent{}}
	dial := zk.Dialer(net.DialTimeout)
	if cfg.TLS != nil {
		d, err := tlsDialer(cfg.TLS)
		if err != nil {
			return nil, err
		}
		dial = d
	}
	conn, _, err := zk.Connect(cfg.Servers, cfg.SessionTimeout,
		zk.WithEventCallback(c.onEvent), zk.WithLogger(quietLogger{}), zk.WithDialer(dial))
	if err != nil {
		return nil, fmt.Errorf("connect to %v: %w", cfg.Servers, err)
	}
	c.conn = conn
	if err := c.waitSession(ctx); err != nil {
		conn.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w (is ZooKeeper running there? check --server, or try `zkscope demo`)", err)
		}
		return nil, err
	}
	for _, a := range cfg.Auth {
		if err := c.addAuth(ctx, a); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return c, nil
}

// tlsDialer builds a go-zookeeper dialer that speaks TLS.
func tlsDialer(t *TLSConfig) (zk.Dialer, error) {
	conf := &tls.Config{ServerName: t.ServerName, InsecureSkipVerify: t.Insecure, MinVersion: tls.VersionTLS12}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA file %s holds no PEM certificate", t.CAFile)
		}
		conf.RootCAs = pool
	}
	if t.CertFile != "" || t.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load TLS client certificate: %w", err)
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		cc := conf.Clone()
		if cc.ServerName == "" {
			host, _, _ := net.SplitHostPort(address)
			cc.ServerName = host
		}
		d := &net.Dialer{Timeout: timeout}
		return tls.DialWithDialer(d, network, address, cc)
	}, nil
}

// addAuth sends one credential, bounded by ctx (go-zookeeper's AddAuth has
// no timeout of its own).
func (c *Client) addAuth(ctx context.Context, a Auth) error {
	done := make(chan error, 1)
	go func() { done <- c.conn.AddAuth(a.Scheme, a.Secret) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("add %s credentials: %w", a.Scheme, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("add %s credentials: %w", a.Scheme, ctx.Err())
	}
}
