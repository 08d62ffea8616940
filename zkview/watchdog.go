package zkview

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"
)

// watchdogProbe is how often the watchdog checks the connection, and
// watchdogGrace what it allows on top of go-zookeeper's own timeouts. Tests
// shorten both before Connect (the watchdog reads them once, at its start).
var (
	watchdogProbe = 2 * time.Second
	watchdogGrace = 5 * time.Second
)

// watchdog guards against go-zookeeper's reconnect deadlock (a failed
// credential re-send wedges its connection loop for good; upstream PR #163):
// every watchdogProbe it checks that the connection either has a session
// that answers a round trip, or keeps trying members. A connection that
// does neither for longer than go-zookeeper can legitimately stay silent is
// abandoned: zkscope publishes [StateExpired] for the old session and opens
// a new one, re-sending the credentials with a timeout.
func (c *Client) watchdog(every, grace time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	// With a session, a request is answered or failed within the read
	// timeout (2/3 of the session timeout).
	limit := c.cfg.SessionTimeout + grace
	// Without one, go-zookeeper may wait up to 10 read timeouts for a
	// handshake reply from a member that accepted the TCP connection but
	// does not answer (a frozen process), plus a 1 s dial and a 1 s pause.
	silent := 7*c.cfg.SessionTimeout + grace
	for {
		select {
		case <-c.quit:
			return
		case <-t.C:
		}
		st := c.State()
		c.mu.Lock()
		quiet := time.Since(c.lastSeen)
		c.mu.Unlock()
		wedged := false
		switch st.State {
		case StateConnected:
			wedged = !c.probe(limit)
		case StateConnecting, StateReconnecting:
			// go-zookeeper reports every dial attempt; silence past any
			// legitimate wait means its loop is stuck.
			wedged = quiet > silent
		}
		if wedged {
			c.recover()
		}
	}
}

// probe checks for a round trip within limit.
func (c *Client) probe(limit time.Duration) bool {
	conn := c.Conn()
	done := make(chan struct{})
	go func() {
		conn.Exists("/")
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-c.quit:
		return true
	case <-time.After(limit):
		return c.Conn() != conn || c.State().State != StateConnected
	}
}

// recover abandons the live connection and opens a new session.
func (c *Client) recover() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	old := c.Conn()
	c.connGen++ // from here on, the old connection's events are ignored
	c.live = false
	c.publishLocked(ConnEvent{State: StateExpired, PrevSessionID: c.sid, Time: time.Now(),
		Err: errors.New("the connection stopped answering (go-zookeeper's reconnect loop is stuck); zkscope opened a new session")})
	c.mu.Unlock()
	go old.Close() // may block on the stuck loop; never wait for it
	if err := c.open(); err != nil {
		c.publish(ConnEvent{State: StateReconnecting, SessionID: 0, Time: time.Now(), Err: err})
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.SessionTimeout+5*time.Second)
		defer cancel()
		if err := c.waitSession(ctx, false); err != nil {
			return
		}
		for _, a := range c.cfg.Auth {
			if err := c.addAuth(ctx, c.Conn(), a); err != nil {
				c.publish(ConnEvent{State: StateAuthFailed, SessionID: c.SessionID(), Time: time.Now(), Err: err})
			}
		}
	}()
}

// noteDial records the outcome of a dial to addr (see tlsRefusedEverywhere).
func (c *Client) noteDial(addr string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dialErrs == nil {
		c.dialErrs = map[string]error{}
	}
	c.dialErrs[addr] = err
}

// tlsRefusedEverywhere returns the TLS verification error when every member
// refused the TLS handshake for a reason that retrying cannot fix (a
// certificate that does not verify, or a client certificate the server
// rejects), so Connect can fail at once instead of at its deadline.
func (c *Client) tlsRefusedEverywhere() error {
	if c.cfg.TLS == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for _, s := range c.cfg.Servers {
		err := c.dialErrs[s]
		var verr *tls.CertificateVerificationError
		var oe *net.OpError // "remote error: tls: bad certificate": the server's alert
		alert := errors.As(err, &oe) && oe.Op == "remote error"
		if err == nil || !(errors.As(err, &verr) || alert) {
			return nil
		}
		if first == nil {
			first = fmt.Errorf("failed to connect to %s: %w", s, err)
		}
	}
	return first
}
