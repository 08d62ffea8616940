package redisview

import (
	"context"
	"net"
	"sync"
	"syscall"

	"github.com/zkscope/zkscope/peer"
)

// A server given as redis:// that is not Redis is named at once: an HTTP
// server answers Redis's first request with its status line or a page, and
// ZooKeeper closes the connection without a word (the request is no
// ZooKeeper frame) — then the address is asked once, on a connection of its
// own, with a four-letter word ([peer.Probe]). Either way the connection
// fails with a [*peer.Mismatch] ("127.0.0.1:2181 answered like ZooKeeper,
// not Redis") instead of "EOF" or "invalid reply".

// peerConn passes bytes through unchanged once the peer's first answer
// was Redis's; once it was not, every read fails with the mismatch.
type peerConn struct {
	net.Conn
	addr string
	dial peer.Dialer // for the probe

	mu       sync.Mutex
	answered bool
	mismatch error
}

// sysPeerConn is a peerConn over a connection with a file descriptor
// (plain TCP): go-redis checks pooled connections through it.
type sysPeerConn struct{ *peerConn }

func (c sysPeerConn) SyscallConn() (syscall.RawConn, error) {
	return c.Conn.(syscall.Conn).SyscallConn()
}

// watchPeer wraps conn, dialled to addr with dial.
func watchPeer(conn net.Conn, addr string, dial peer.Dialer) net.Conn {
	c := &peerConn{Conn: conn, addr: addr, dial: dial}
	if _, ok := conn.(syscall.Conn); ok {
		return sysPeerConn{c}
	}
	return c
}

func (c *peerConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	answered, mismatch := c.answered, c.mismatch
	c.mu.Unlock()
	if mismatch != nil {
		return 0, mismatch
	}
	n, err := c.Conn.Read(p)
	if answered || (n == 0 && (err == nil || !peer.ClosedByPeer(err))) {
		return n, err
	}
	k := peer.Unknown
	if n > 0 {
		k = peer.Recognise(p[:n])
	} else if peer.Probe(context.Background(), c.dial, c.addr, peer.AskZooKeeper, peer.ProbeTimeout) == peer.ZooKeeper {
		k = peer.ZooKeeper // closed without a word: asked what it is
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answered = true
	if k != peer.HTTP && k != peer.ZooKeeper {
		return n, err
	}
	c.mismatch = &peer.Mismatch{Addr: c.addr, Got: k, Want: peer.Redis}
	c.Conn.Close()
	return 0, c.mismatch
}
