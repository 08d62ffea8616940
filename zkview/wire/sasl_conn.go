package wire

import (
	"io"
	"net"
	"sync"
	"time"
)

// SASLTimeout bounds one authentication inside a handshake.
const SASLTimeout = 10 * time.Second

// AuthenticatingConn wraps a fresh connection so that authenticate runs as
// a step of the session handshake: the client's connect request goes out
// unchanged; the server's connect response is read here and, when it
// carries a session, authenticate runs on the raw connection (bounded by
// SASLTimeout and the caller's deadlines) before the response is handed to
// the client. The client (go-zookeeper's, or [Handshake]) sees an
// ordinary handshake and sends its first request after the exchange; an
// error of authenticate is the error of the client's read.
func AuthenticatingConn(conn net.Conn, authenticate func(raw io.ReadWriter) error) net.Conn {
	return &authConn{Conn: conn, authenticate: authenticate}
}

type authConn struct {
	net.Conn
	authenticate func(io.ReadWriter) error

	mu      sync.Mutex // the first Read's exchange, then pending
	started bool
	pending []byte // the connect response, handed on after the exchange

	dmu      sync.Mutex // the caller's deadlines, restored after the exchange
	rdl, wdl time.Time
}

func (a *authConn) Read(p []byte) (int, error) {
	a.mu.Lock()
	if !a.started {
		a.started = true
		if err := a.handshake(); err != nil {
			a.mu.Unlock()
			a.Conn.Close()
			return 0, err
		}
	}
	if len(a.pending) > 0 {
		n := copy(p, a.pending)
		a.pending = a.pending[n:]
		a.mu.Unlock()
		return n, nil
	}
	a.mu.Unlock()
	return a.Conn.Read(p)
}

func (a *authConn) SetDeadline(t time.Time) error {
	a.dmu.Lock()
	a.rdl, a.wdl = t, t
	a.dmu.Unlock()
	return a.Conn.SetDeadline(t)
}

func (a *authConn) SetReadDeadline(t time.Time) error {
	a.dmu.Lock()
	a.rdl = t
	a.dmu.Unlock()
	return a.Conn.SetReadDeadline(t)
}

func (a *authConn) SetWriteDeadline(t time.Time) error {
	a.dmu.Lock()
	a.wdl = t
	a.dmu.Unlock()
	return a.Conn.SetWriteDeadline(t)
}

// handshake reads the connect response and authenticates when it opened
// or resumed a session. Called with a.mu held.
func (a *authConn) handshake() error {
	pkt, err := ReadPacket(a.Conn, 1<<10)
	if err != nil {
		return err
	}
	a.pending = Frame(pkt)
	cr, err := DecodeConnectResponse(pkt)
	if err != nil || cr.SessionID == 0 || cr.TimeoutMs <= 0 {
		return nil // a refused or expired session: the client reads it
	}
	limit := time.Now().Add(SASLTimeout)
	a.dmu.Lock()
	a.Conn.SetReadDeadline(earliest(a.rdl, limit))
	a.Conn.SetWriteDeadline(earliest(a.wdl, limit))
	a.dmu.Unlock()
	defer func() {
		a.dmu.Lock()
		a.Conn.SetReadDeadline(a.rdl)
		a.Conn.SetWriteDeadline(a.wdl)
		a.dmu.Unlock()
	}()
	return a.authenticate(a.Conn)
}

func earliest(a, b time.Time) time.Time {
	if !a.IsZero() && a.Before(b) {
		return a
	}
	return b
}
