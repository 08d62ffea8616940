package peer

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// What answers at a member's address. A Redis or HTTP port given as a
// member is named at once ("127.0.0.1:6379 answered like Redis, not
// ZooKeeper"), not after the connect timeout. ZooKeeper, Redis and HTTP
// servers all wait for the client to speak first, and neither Redis nor an
// HTTP server answers ZooKeeper's connect request (binary, with no line
// end): so every connection zkscope opens to ZooKeeper — the session's, the multi-read
// sidecar's, a four-letter word's — is a [WatchZooKeeper] connection. When the peer has not
// answered its first request within probeAfter, it asks the address
// once on a connection of its own ([Probe]); when that names Redis or
// an HTTP server, the waiting connection fails at once with a
// [*Mismatch]. A peer whose first answer is already an HTTP status
// line or a RESP error (ZooKeeper's AdminServer, Jetty, answers the binary
// request at once with "HTTP/1.1 400") fails the same way, without a
// probe. A real ZooKeeper answers well within probeAfter, so it
// is not asked at all. A peer that closes the connection without a word is
// not asked: ZooKeeper itself does that (a member that is not serving, an
// empty four-letter word answer), and neither Redis nor an HTTP server does.

// probeAfter is how long a peer may stay silent after the first request
// before it is asked what it is.
const probeAfter = 500 * time.Millisecond

// sniffLen is how much of a peer's first answer is read at once to
// recognise it (ZooKeeper's connect response is 40 bytes).
const sniffLen = 64

// peerConn passes bytes through unchanged and names the peer when it does
// not answer like ZooKeeper (see above).
type peerConn struct {
	net.Conn
	addr  string
	probe func() Kind // asks addr on a connection of its own
	found func(error) // told a mismatch; may be nil

	answered atomic.Bool // the peer sent something: no probe from now on

	head    []byte // what is left of the first answer (Read only)
	headErr error  // the error that came with it

	mu       sync.Mutex
	timer    *time.Timer
	mismatch error
}

// WatchZooKeeper wraps conn, dialled to addr with dial, so that it fails
// with a [*Mismatch] as soon as the peer shows it is not ZooKeeper (see
// above); found, when not nil, is told the mismatch.
func WatchZooKeeper(conn net.Conn, addr string, dial func(network, addr string, timeout time.Duration) (net.Conn, error), found func(error)) net.Conn {
	probe := func() Kind {
		return Probe(context.Background(), func(ctx context.Context, addr string) (net.Conn, error) {
			timeout := ProbeTimeout
			if d, ok := ctx.Deadline(); ok {
				timeout = time.Until(d)
			}
			return dial("tcp", addr, timeout)
		}, addr, AskNotZooKeeper, ProbeTimeout)
	}
	return &peerConn{Conn: conn, addr: addr, probe: probe, found: found}
}

func (c *peerConn) Write(p []byte) (int, error) {
	if !c.answered.Load() {
		c.mu.Lock()
		if c.timer == nil {
			c.timer = time.AfterFunc(probeAfter, c.check)
		}
		c.mu.Unlock()
	}
	return c.Conn.Write(p)
}

func (c *peerConn) Read(p []byte) (int, error) {
	if len(c.head) > 0 { // the rest of the first answer, read to recognise it
		n := copy(p, c.head)
		c.head = c.head[n:]
		if len(c.head) == 0 {
			return n, c.headErr
		}
		return n, nil
	}
	if c.answered.Load() {
		return c.Conn.Read(p)
	}
	// The first answer is read whole (up to sniffLen), not only the
	// length go-zookeeper asks for first: "HTTP" alone says nothing.
	buf := make([]byte, sniffLen)
	n, err := c.Conn.Read(buf)
	if n > 0 {
		c.answered.Store(true)
		c.stopTimer()
		if k := Recognise(buf[:n]); k == Redis || k == HTTP {
			return 0, c.fail(k) // answered at once, but not as ZooKeeper
		}
		c.head, c.headErr = buf[:n], err
		return c.Read(p)
	}
	if err != nil {
		if m := c.mismatchErr(); m != nil {
			return 0, m // the probe closed the connection
		}
	}
	return n, err
}

// NetConn is the wrapped connection (a TCP or TLS connection).
func (c *peerConn) NetConn() net.Conn { return c.Conn }

func (c *peerConn) Close() error {
	c.stopTimer()
	return c.Conn.Close()
}

func (c *peerConn) stopTimer() {
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
}

func (c *peerConn) mismatchErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mismatch
}

// check asks what answers at the address, unless the peer has answered
// meanwhile; a peer that is not ZooKeeper fails the connection.
func (c *peerConn) check() {
	if c.answered.Load() {
		return
	}
	k := c.probe()
	if k != Redis && k != HTTP {
		return
	}
	c.fail(k)
	c.Conn.Close() // wakes a Read waiting for an answer that never comes
}

// fail records that the peer is k, not ZooKeeper, and tells found.
func (c *peerConn) fail(k Kind) error {
	m := &Mismatch{Addr: c.addr, Got: k, Want: ZooKeeper}
	c.mu.Lock()
	c.mismatch = m
	c.mu.Unlock()
	if c.found != nil {
		c.found(m)
	}
	return m
}
