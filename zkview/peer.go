package zkview

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/zkscope/zkscope/peer"
)

// What answers at a member's address. A Redis or HTTP port given as a
// member is named at once ("127.0.0.1:6379 answered like Redis, not
// ZooKeeper"), not after the connect timeout. ZooKeeper, Redis and HTTP
// servers all wait for the client to speak first, and neither Redis nor an
// HTTP server answers ZooKeeper's connect request (binary, with no line
// end): so every connection zkview opens — the session's, the multi-read
// sidecar's, a four-letter word's — is a [peerConn]. When the peer has not
// answered its first request within probeAfter, zkview asks the address
// once on a connection of its own ([peer.Probe]); when that names Redis or
// an HTTP server, the waiting connection fails at once with a
// [*peer.Mismatch]. A peer whose first answer is already an HTTP status
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

// mismatchMemory is how long a member that answered like something else is
// not dialled again: go-zookeeper goes round its members, and a Redis port
// in the list fails each round at once instead of after a probe.
const mismatchMemory = time.Minute

// peerConn passes bytes through unchanged and names the peer when it does
// not answer like ZooKeeper (see above).
type peerConn struct {
	net.Conn
	addr  string
	probe func() peer.Kind // asks addr on a connection of its own
	found func(error)      // told a mismatch; may be nil

	answered atomic.Bool // the peer sent something: no probe from now on

	head    []byte // what is left of the first answer (Read only)
	headErr error  // the error that came with it

	mu       sync.Mutex
	timer    *time.Timer
	mismatch error
}

// watchPeer wraps conn, dialled to addr with dial, as a [peerConn].
func watchPeer(conn net.Conn, addr string, dial WordDialer, found func(error)) net.Conn {
	probe := func() peer.Kind {
		return peer.Probe(context.Background(), func(ctx context.Context, addr string) (net.Conn, error) {
			timeout := peer.ProbeTimeout
			if d, ok := ctx.Deadline(); ok {
				timeout = time.Until(d)
			}
			return dial("tcp", addr, timeout)
		}, addr, peer.AskNotZooKeeper, peer.ProbeTimeout)
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
		if k := peer.Recognise(buf[:n]); k == peer.Redis || k == peer.HTTP {
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
	if k != peer.Redis && k != peer.HTTP {
		return
	}
	c.fail(k)
	c.Conn.Close() // wakes a Read waiting for an answer that never comes
}

// fail records that the peer is k, not ZooKeeper, and tells found.
func (c *peerConn) fail(k peer.Kind) error {
	m := &peer.Mismatch{Addr: c.addr, Got: k, Want: peer.ZooKeeper}
	c.mu.Lock()
	c.mismatch = m
	c.mu.Unlock()
	if c.found != nil {
		c.found(m)
	}
	return m
}

// mismatchSeen is a member that answered like something else, and when.
type mismatchSeen struct {
	err error
	at  time.Time
}

// noteMismatch records that addr answered like something else (err, a
// [*peer.Mismatch]): its dial outcome for [Client.nothingAnswers], and not
// dialled again for mismatchMemory.
func (c *Client) noteMismatch(addr string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mismatches == nil {
		c.mismatches = map[string]mismatchSeen{}
	}
	c.mismatches[addr] = mismatchSeen{err: err, at: time.Now()}
	if c.dialErrs == nil {
		c.dialErrs = map[string]error{}
	}
	c.dialErrs[addr] = err
}

// knownMismatch is the mismatch addr answered with lately, or nil.
func (c *Client) knownMismatch(addr string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.mismatches[addr]; ok && time.Since(m.at) < mismatchMemory {
		return m.err
	}
	return nil
}

// nothingAnswers says why, when no member can give a session for a reason
// waiting will not fix soon: each refused the connection, or answered like
// something other than ZooKeeper. It is nil while any member might still
// answer (not tried yet, silent, or ZooKeeper).
func (c *Client) nothingAnswers() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var why, hints []string
	hint := func(h string) {
		for _, x := range hints {
			if x == h {
				return
			}
		}
		hints = append(hints, h)
	}
	for _, s := range c.cfg.Servers {
		err, tried := c.dialErrs[s]
		var m *peer.Mismatch
		switch {
		case !tried || err == nil:
			return nil
		case errors.As(err, &m):
			why = append(why, m.Error())
			if m.Got == peer.Redis {
				hint("for Redis locks give -s redis://" + s)
			} else {
				hint("an HTTP port, such as the AdminServer's, is no client port: give the servers' client port (2181 by default)")
			}
		case errors.Is(err, syscall.ECONNREFUSED):
			why = append(why, s+": connection refused")
			hint(c.hint(""))
		default:
			return nil
		}
	}
	msg := strings.Join(why, "; ")
	if len(c.cfg.Servers) > 1 {
		msg = "connect to " + strings.Join(c.cfg.Servers, ",") + ": " + msg
	}
	return fmt.Errorf("%s (%s)", msg, strings.Join(hints, "; "))
}
