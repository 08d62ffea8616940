// Package peer names what answers at a server address — ZooKeeper, Redis
// or an HTTP server — from the first bytes it sends, so that a client
// given the wrong port says what is there at once instead of waiting for a
// timeout. zkview and redisview use it on every connection they open.
//
// It imports nothing of zkscope.
package peer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// Kind is what a peer turned out to be.
type Kind int

const (
	// Unknown: nothing said what it is (no answer, or an answer none of
	// the others gives).
	Unknown Kind = iota
	// ZooKeeper answered a four-letter word as ZooKeeper does.
	ZooKeeper
	// Redis answered in RESP, as Redis answers any line.
	Redis
	// HTTP answered with a status line or an HTML page.
	HTTP
)

// String names the kind as the errors say it ("answered like …").
func (k Kind) String() string {
	switch k {
	case ZooKeeper:
		return "ZooKeeper"
	case Redis:
		return "Redis"
	case HTTP:
		return "an HTTP server"
	}
	return "something unknown"
}

// Recognise names the protocol of the first bytes a peer sent (a few are
// enough; more are fine).
func Recognise(b []byte) Kind {
	switch {
	case len(b) == 0:
		return Unknown
	case bytes.HasPrefix(b, []byte("HTTP/")):
		return HTTP
	case hasPrefixFold(b, "<!doctype html") || hasPrefixFold(b, "<html"):
		return HTTP // an HTTP/0.9 answer: the page alone
	case isZooKeeperText(b):
		return ZooKeeper
	case isRESP(b):
		return Redis
	}
	return Unknown
}

// isZooKeeperText: what ZooKeeper answers a four-letter word with (srvr,
// a word not in its whitelist, a member not serving).
func isZooKeeperText(b []byte) bool {
	for _, s := range []string{"Zookeeper version:", "is not executed because it is not in the whitelist", "This ZooKeeper instance is not currently serving requests"} {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

// isRESP: a RESP simple string or error ("+OK", "-ERR unknown command",
// "-NOAUTH …", "-DENIED …"): a sign, an upper-case word, then a space or
// the line's end.
func isRESP(b []byte) bool {
	if b[0] != '+' && b[0] != '-' {
		return false
	}
	i := 1
	for i < len(b) && b[i] >= 'A' && b[i] <= 'Z' {
		i++
	}
	return i > 1 && i < len(b) && (b[i] == ' ' || b[i] == '\r')
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && bytes.EqualFold(b[:len(prefix)], []byte(prefix))
}

// Mismatch is a connection to Addr that found Got where Want was expected.
type Mismatch struct {
	Addr      string
	Got, Want Kind
}

func (e *Mismatch) Error() string {
	return fmt.Sprintf("%s answered like %s, not %s", e.Addr, e.Got, e.Want)
}

// IsMismatch reports whether err is (or wraps) a [*Mismatch].
func IsMismatch(err error) bool {
	var m *Mismatch
	return errors.As(err, &m)
}

// Dialer opens a connection to addr (plain TCP, or TLS like the client's
// own connections).
type Dialer func(ctx context.Context, addr string) (net.Conn, error)

// What each side sends to a peer to learn what it is. ZooKeeper answers
// the four-letter word srvr even when its whitelist refuses it; Redis and
// HTTP servers answer only a whole line, so a ZooKeeper client adds one
// (ZooKeeper may then reset the connection before its answer arrives: the
// probe learns nothing, and the client goes on as before). A Redis client
// asks only ZooKeeper, which answers the bare word reliably: an HTTP server
// answers Redis's own first request already.
var (
	// AskNotZooKeeper is sent by clients that expect ZooKeeper.
	AskNotZooKeeper = []byte("srvr\r\n")
	// AskZooKeeper is sent by clients that expect something else.
	AskZooKeeper = []byte("srvr")
)

// maxProbeReply is how much of an answer Probe reads: enough to recognise.
const maxProbeReply = 512

// ProbeTimeout is how long asking a peer what it is may take.
const ProbeTimeout = 2 * time.Second

// ClosedByPeer reports whether err (a read's) says the peer closed or
// reset the connection: a peer that will not speak the client's protocol,
// worth asking what it is.
func ClosedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// Probe opens a connection of its own to addr, sends ask and recognises
// the first bytes of the answer, within timeout (or ctx). A peer that does
// not answer, refuses or resets is [Unknown].
func Probe(ctx context.Context, dial Dialer, addr string, ask []byte, timeout time.Duration) Kind {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial(ctx, addr)
	if err != nil {
		return Unknown
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	if _, err := conn.Write(ask); err != nil {
		return Unknown
	}
	buf := make([]byte, 0, maxProbeReply)
	for len(buf) < cap(buf) {
		n, err := conn.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if k := Recognise(buf); k != Unknown {
			return k
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return Recognise(buf)
			}
			return Unknown
		}
	}
	return Recognise(buf)
}
