package zkview

import (
	"context"
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/zkview/wire"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// Multi-read (op code 22, ZooKeeper 3.6+) reads many nodes in one request.
// go-zookeeper does not offer it, so zkview speaks it on a sidecar
// connection of its own: a second session on the member the main
// connection uses (so it sees at least what the main session saw), with the
// same credentials, chroot and TLS dialer. The sidecar is opened on first
// use, kept and pinged while it is used, closed after a minute idle or when
// the client closes, and re-opened after any failure.

// multiReadLimits shape the batches. A reply must stay under the server's
// and clients' jute.maxbuffer (0xfffff bytes by default): a batch whose
// reply would be bigger is answered anyway but drained unread and split.
type multiReadLimits struct {
	maxOps     int   // getData ops per request
	maxReply   int   // reply bytes accepted
	maxRequest int   // request bytes
	inFlight   int   // requests in flight per call
	opCode     int32 // wire.OpMultiRead (tests make the server refuse another)
}

var defaultMultiReadLimits = multiReadLimits{
	maxOps: 1000, maxReply: 0xfffff, maxRequest: 512 << 10, inFlight: 4, opCode: wire.OpMultiRead,
}

// How long a sidecar may sit unused before it is closed, and how long
// opening one may take.
const (
	multiReadIdleClose   = time.Minute
	multiReadDialTimeout = 5 * time.Second
	multiReadHoldOff     = 30 * time.Second
)

// errMultiReadUnsupported means the server does not know op code 22.
var errMultiReadUnsupported = errors.New("the server does not support multi-read (ZooKeeper 3.6+)")

// multiReader is a client's multi-read state: support as detected, the
// current sidecar session.
type multiReader struct {
	c   *Client
	lim multiReadLimits // fixed once the reader is made (tests set it first)

	// support: 0 unknown, 1 supported, -1 unsupported (remembered).
	support  atomic.Int32
	failures atomic.Int32 // probes that failed without an answer
	// reading counts the reads in flight (a small read waits for none:
	// see Client.GetManyFunc).
	reading atomic.Int32

	// start starts run once; started says it did. done is closed once
	// the client closed and the sidecar with it.
	start   sync.Once
	started atomic.Bool
	done    chan struct{}

	mu      sync.Mutex
	sess    *wire.Session
	lastUse time.Time
	closed  bool
	// holdOff: no sidecar is tried before this time (set when opening one
	// failed, so every read does not wait for a dial that fails).
	holdOff time.Time
}

// requestBuffers hold *[]byte for multi-read requests.
var requestBuffers sync.Pool

// newMultiReader makes c's multi-read state; nothing runs until its
// first use ([Client.multiRead]).
func newMultiReader(c *Client) *multiReader {
	return &multiReader{c: c, lim: defaultMultiReadLimits, done: make(chan struct{})}
}

// multiRead returns c's multi-reader, starting its idle-closer on first
// use.
func (c *Client) multiRead() *multiReader {
	m := c.bulk
	m.start.Do(func() {
		m.started.Store(true)
		go m.run()
	})
	return m
}

// sessionID is the open sidecar's session (0 when none).
func (m *multiReader) sessionID() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sess == nil || m.sess.Dead() {
		return 0
	}
	return m.sess.ID()
}

// waitClosed returns once the client's close has closed the sidecar too
// (at once when the reader was never used).
func (m *multiReader) waitClosed() {
	if m.started.Load() {
		<-m.done
	}
}

// run closes idle sidecars, and everything when the client closes.
func (m *multiReader) run() {
	t := time.NewTicker(multiReadIdleClose / 4)
	defer t.Stop()
	for {
		select {
		case <-m.c.quit:
			m.mu.Lock()
			m.closed = true
			s := m.sess
			m.sess = nil
			m.mu.Unlock()
			if s != nil {
				s.Close()
			}
			close(m.done)
			return
		case <-t.C:
			m.mu.Lock()
			var idle *wire.Session
			if m.sess != nil && time.Since(m.lastUse) > multiReadIdleClose {
				idle, m.sess = m.sess, nil
			}
			m.mu.Unlock()
			if idle != nil {
				idle.Close()
			}
		}
	}
}

// usable says whether multi-read is worth trying: not known unsupported,
// and no recent failure to open a sidecar.
func (m *multiReader) usable() bool {
	if m.support.Load() < 0 {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return time.Now().After(m.holdOff)
}

// session returns a live sidecar session on the member the main connection
// uses, opening one when there is none (or the old one failed, or the main
// connection moved to another member).
func (m *multiReader) session(ctx context.Context) (*wire.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, zk.ErrConnectionClosed
	}
	m.lastUse = time.Now()
	main := m.c.Server()
	if s := m.sess; s != nil {
		if !s.Dead() && (main == "" || main == s.Addr()) {
			return s, nil
		}
		m.sess = nil
		go s.Close()
	}
	addrs := m.c.cfg.Servers
	if main != "" {
		addrs = append([]string{main}, addrs...)
	}
	var firstErr error
	for _, addr := range addrs {
		s, err := openSideSession(ctx, m.c, addr, m.lim.maxReply, nil)
		if err == nil {
			m.sess = s
			return s, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil || errors.Is(err, zk.ErrAuthFailed) {
			break
		}
	}
	if ctx.Err() == nil {
		m.holdOff = time.Now().Add(multiReadHoldOff)
	}
	return nil, firstErr
}

// read reads every server path in abs with multi-read requests: batches of
// at most lim.maxOps ops, several in flight, a batch whose reply is too
// big split and retried, a single node too big for a reply read through the
// main connection. Each node goes to each (see [NodeFunc]). The error is
// for the whole call; per-node errors go to each.
func (m *multiReader) read(ctx context.Context, abs []string, each NodeFunc) error {
	m.reading.Add(1)
	defer m.reading.Add(-1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
		slots    = make(chan struct{}, m.lim.inFlight)
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	// readAlone reads one node bigger than a multi-read reply may be
	// through the main connection (go-zookeeper accepts replies up to 1.5 MB).
	readAlone := func(i int) {
		data, st, err := m.c.Conn().Get(abs[i])
		if err != nil {
			each(i, nil, nil, err)
			if errors.Is(err, zk.ErrConnectionClosed) {
				fail(err)
			}
			return
		}
		each(i, data, st, nil)
	}
	var do func(lo, hi int)
	do = func(lo, hi int) {
		defer wg.Done()
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			fail(ctx.Err())
			return
		}
		err := m.batch(ctx, abs[lo:hi], func(j int, data []byte, st *zk.Stat, err error) { each(lo+j, data, st, err) })
		<-slots
		var big wire.ReplyTooLarge
		switch {
		case err == nil:
		case errors.As(err, &big) && hi-lo > 1:
			for _, g := range splitBatch(lo, hi, big, m.lim.maxReply) {
				if g.alone {
					readAlone(g.lo)
					continue
				}
				wg.Add(1)
				go do(g.lo, g.hi)
			}
		case errors.As(err, &big):
			readAlone(lo)
		default:
			fail(err)
		}
	}
	for lo := 0; lo < len(abs); {
		hi, reqSize := lo, 0
		for hi < len(abs) && hi-lo < m.lim.maxOps {
			n := 9 + 4 + len(abs[hi]) + 1
			if hi > lo && reqSize+n > m.lim.maxRequest {
				break
			}
			reqSize += n
			hi++
		}
		wg.Add(1)
		if lo == 0 && hi == len(abs) {
			do(lo, hi) // one batch (a follow's frame): no goroutine to hand it to and back
		} else {
			go do(lo, hi)
		}
		lo = hi
	}
	wg.Wait()
	return firstErr
}

// batchPart is part of a batch to read again: ops lo..hi, or op lo alone
// through the main connection.
type batchPart struct {
	lo, hi int
	alone  bool
}

// splitBatch splits ops lo..hi, whose reply was too big, into parts whose
// replies fit with an eighth to spare (nodes may grow meanwhile): exactly
// by each op's size when the drained reply told them, else into equal
// parts by the total. A single op that cannot fit is read alone.
func splitBatch(lo, hi int, big wire.ReplyTooLarge, limit int) []batchPart {
	const overhead = wire.ReplyHeaderSize + 9 // reply header and done marker
	target := limit * 7 / 8
	if len(big.OpSizes) != hi-lo {
		parts := (big.Size + target - 1) / target
		parts = max(2, min(parts, hi-lo))
		step := (hi - lo + parts - 1) / parts
		var out []batchPart
		for s := lo; s < hi; s += step {
			out = append(out, batchPart{lo: s, hi: min(s+step, hi)})
		}
		return out
	}
	var out []batchPart
	start, sum := lo, overhead
	for i, size := range big.OpSizes {
		op := lo + i
		if overhead+size > limit {
			if start < op {
				out = append(out, batchPart{lo: start, hi: op})
			}
			out = append(out, batchPart{lo: op, hi: op + 1, alone: true})
			start, sum = op+1, overhead
			continue
		}
		if sum+size > target && start < op {
			out = append(out, batchPart{lo: start, hi: op})
			start, sum = op, overhead
		}
		sum += size
	}
	if start < hi {
		out = append(out, batchPart{lo: start, hi: hi})
	}
	return out
}

// batch sends one multi-read request of getData ops, re-opening the sidecar once if it
// failed under the request.
func (m *multiReader) batch(ctx context.Context, paths []string, each NodeFunc) error {
	return m.send(ctx,
		func(dst []byte, xid int32) []byte { return wire.MultiReadRequest(dst, xid, m.lim.opCode, paths) },
		func(body []byte) error { return wire.DecodeMultiReadResponse(body, len(paths), each) })
}

// send sends the multi-read request build makes and decodes its reply,
// re-opening the sidecar once if it failed under the request.
func (m *multiReader) send(ctx context.Context, build func(dst []byte, xid int32) []byte, decode func(body []byte) error) error {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		s, err := m.session(ctx)
		if err != nil {
			return fmt.Errorf("open multi-read session: %w", err)
		}
		// Request buffers are reused: a big read sends dozens of 70 KB
		// requests, each written once.
		reqBuf, _ := requestBuffers.Get().(*[]byte)
		if reqBuf == nil {
			reqBuf = new([]byte)
		}
		body, err := s.Call(ctx, func(xid int32) []byte {
			*reqBuf = build(*reqBuf, xid)
			return *reqBuf
		})
		requestBuffers.Put(reqBuf)
		var big wire.ReplyTooLarge
		switch {
		case err == nil:
			derr := decode(body)
			wire.PutBody(body) // each was given copies
			if derr != nil {
				s.Fail(derr)
				return derr
			}
			m.support.Store(1)
			return nil
		case errors.As(err, &big):
			m.support.Store(1)
			return err
		case errors.Is(err, wire.ErrUnimplemented):
			m.unsupported(s)
			return fmt.Errorf("%w: %v", errMultiReadUnsupported, err)
		case ctx.Err() != nil:
			return ctx.Err()
		}
		lastErr = err
		if m.support.Load() == 0 && m.failures.Add(1) >= 3 {
			// A server that drops the connection at op code 22 without a
			// reply: treat as unsupported too.
			m.unsupported(s)
			return fmt.Errorf("%w: %v", errMultiReadUnsupported, err)
		}
	}
	return lastErr
}

// unsupported remembers that the server does not serve multi-read and
// closes the sidecar s, which no request will use again (not leaving it to
// the server to drop the connection).
func (m *multiReader) unsupported(s *wire.Session) {
	m.support.Store(-1)
	m.mu.Lock()
	if m.sess == s {
		m.sess = nil
	}
	m.mu.Unlock()
	s.Close()
}

// openSideSession dials addr (TLS when configured), opens a session and
// sends the client's credentials, all within multiReadDialTimeout; notify,
// when set, is given the session's notifications.
func openSideSession(ctx context.Context, c *Client, addr string, maxReply int, notify func([]byte)) (*wire.Session, error) {
	deadline := time.Now().Add(multiReadDialTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	dial := c.dial
	if dial == nil {
		dial = net.DialTimeout
	}
	conn, err := dial("tcp", addr, time.Until(deadline))
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	stopWatch := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stopWatch()
	conn.SetDeadline(deadline)
	timeout := c.cfg.SessionTimeout
	if timeout <= 0 {
		timeout = DefaultSessionTimeout
	}
	auth := make([]wire.Auth, len(c.cfg.Auth))
	for i, a := range c.cfg.Auth {
		auth[i] = wire.Auth{Scheme: a.Scheme, Secret: a.Secret}
	}
	s, err := wire.Handshake(conn, addr, timeout, auth)
	if err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("session with %s: %w", addr, err)
	}
	conn.SetDeadline(time.Time{})
	s.StartNotify(maxReply, notify)
	return s, nil
}
