package zkview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/zkscope/zkscope/zkview/sasl"
	"github.com/zkscope/zkscope/zkview/wire"
)

// SASL on every connection. The exchange is a step of the connection's
// handshake ([wire.AuthenticatingConn]): the connect response is held back
// until the exchange is done, so the client above (go-zookeeper's, or
// zkscope's own wire.Handshake) sends its first request only after the
// server accepted the credentials; every reconnection dials anew through
// the same dialer and so authenticates again.

// SASLError is a failed SASL exchange: the mechanism, who authenticated,
// the member, and what the server (or the KDC) answered.
type SASLError struct {
	Mechanism, Principal, Server string
	Err                          error
	// Refused: the server or the KDC refused the credentials (trying
	// again will not help); otherwise the exchange broke off.
	Refused bool
}

func (e *SASLError) Error() string {
	return fmt.Sprintf("SASL %s authentication as %s at %s failed: %v%s", e.Mechanism, e.Principal, e.Server, e.Err, e.hint())
}

func (e *SASLError) Unwrap() error { return e.Err }

// hint says which flags decide.
func (e *SASLError) hint() string {
	var refused wire.SASLRefused
	switch {
	case !errors.As(e.Err, &refused):
		return ""
	case e.Mechanism == sasl.DigestMD5:
		return " (wrong user or password: check --sasl-user and --sasl-password-file, or the server's JAAS Server section)"
	}
	return " (check --principal, --keytab and --sasl-service against the server's Kerberos principal)"
}

// authenticating wraps a fresh connection to addr so that SASL runs in
// its handshake ([wire.AuthenticatingConn]).
func (c *Client) authenticating(conn net.Conn, addr string) net.Conn {
	a := c.sasl
	return wire.AuthenticatingConn(conn, func(raw io.ReadWriter) error {
		host, _, _ := net.SplitHostPort(addr)
		fail := func(err error, refused bool) error {
			e := &SASLError{Mechanism: a.Mechanism(), Principal: a.Principal(), Server: addr, Err: err, Refused: refused}
			c.noteSASL(addr, e)
			return e
		}
		m, err := a.Exchange(host)
		if err != nil {
			return fail(err, true) // the KDC's answer, or the local credentials
		}
		if err := wire.SASLExchange(raw, m); err != nil {
			var refused wire.SASLRefused
			return fail(err, errors.As(err, &refused) || !isNetError(err))
		}
		c.noteSASL(addr, nil)
		return nil
	})
}

// isNetError says whether err is the connection's failure (a timeout, a
// reset, EOF) rather than the exchange's.
func isNetError(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "EOF") || strings.Contains(msg, "reset") || strings.Contains(msg, "closed")
}

// noteSASL records the outcome of an exchange with addr; a refusal on a
// reconnection is published as [StateAuthFailed].
func (c *Client) noteSASL(addr string, err *SASLError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.saslErrs == nil {
		c.saslErrs = map[string]*SASLError{}
	}
	if err == nil {
		delete(c.saslErrs, addr)
		return
	}
	c.saslErrs[addr] = err
	if err.Refused && c.live && !c.closed {
		c.publishLocked(ConnEvent{State: StateAuthFailed, Server: addr, SessionID: c.sid, Time: time.Now(), Err: err})
	}
}

// saslRefused is a refusal of the credentials by a member, or nil: the
// first connect gives up at once (another member would refuse them too).
func (c *Client) saslRefused() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.cfg.Servers {
		if e := c.saslErrs[s]; e != nil && e.Refused {
			return e
		}
	}
	return nil
}

// Identity is who the client authenticated as with SASL: "DIGEST-MD5
// bob", "GSSAPI client@EXAMPLE.COM"; "" without SASL.
func (c *Client) Identity() string {
	if c.sasl == nil {
		return ""
	}
	return c.sasl.Mechanism() + " " + c.sasl.Principal()
}

// checkAdmitted asks the server one cheap question when zkscope has no
// SASL credentials: a server that requires SASL closes such a session at
// its first request, and the first connect says so in one line instead of
// every later request failing.
func (c *Client) checkAdmitted(ctx context.Context) error {
	if c.sasl != nil {
		return nil
	}
	done := make(chan error, 1)
	conn := c.Conn()
	go func() {
		_, _, err := conn.Exists("/")
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil && Explain(err).Error() == SASLRequiredMessage {
			return fmt.Errorf("connect to %s: %s", strings.Join(c.cfg.Servers, ","), SASLRequiredMessage)
		}
		return nil // any other failure is the requests' to report
	case <-ctx.Done():
		return nil
	}
}

// WhoAmI asks the server which identities zkscope holds (whoAmI, 3.7+),
// on the multi-read session, which authenticates as the main one does.
// An older server answers [wire.ErrUnimplemented].
func (c *Client) WhoAmI(ctx context.Context) ([]wire.ClientInfo, error) {
	s, err := c.multiRead().session(ctx)
	if err != nil {
		return nil, err
	}
	body, err := s.Call(ctx, wire.WhoAmIRequest)
	if err != nil {
		return nil, fmt.Errorf("whoAmI: %w", err)
	}
	defer wire.PutBody(body)
	return wire.DecodeWhoAmIResponse(body)
}

// ConfiguredIdentities are the identities zkscope asks for, as
// "scheme:id": its SASL identity and its digest users.
func (c *Client) ConfiguredIdentities() []string {
	var out []string
	if c.sasl != nil {
		out = append(out, "sasl:"+c.sasl.Principal())
	}
	for _, a := range c.cfg.Auth {
		user, _, _ := strings.Cut(string(a.Secret), ":")
		out = append(out, a.Scheme+":"+user)
	}
	return out
}
