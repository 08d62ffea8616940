package zkview

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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
	opCode     int32 // opMultiRead (tests make the server refuse another)
}

var defaultMultiReadLimits = multiReadLimits{
	maxOps: 1000, maxReply: 0xfffff, maxRequest: 512 << 10, inFlight: 4, opCode: opMultiRead,
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

// replyTooLarge is a reply that was drained unread because it exceeded
// the limit. opSizes, when the drained reply could be followed, holds each
// op's share of it, so the batch can be split exactly.
type replyTooLarge struct {
	size, limit int
	opSizes     []int
}

func (e replyTooLarge) Error() string {
	return fmt.Sprintf("multi-read reply of %d bytes exceeds %d", e.size, e.limit)
}

// multiReader is a client's multi-read state: support as detected, the
// current sidecar session.
type multiReader struct {
	c   *Client
	lim multiReadLimits // fixed once the reader is made (tests set it first)

	// support: 0 unknown, 1 supported, -1 unsupported (remembered).
	support  atomic.Int32
	failures atomic.Int32 // probes that failed without an answer

	// start starts run once; started says it did. done is closed once
	// the client closed and the sidecar with it.
	start   sync.Once
	started atomic.Bool
	done    chan struct{}

	mu      sync.Mutex
	sess    *sideSession
	lastUse time.Time
	closed  bool
	// holdOff: no sidecar is tried before this time (set when opening one
	// failed, so every read does not wait for a dial that fails).
	holdOff time.Time
}

// requestBuffers hold *[]byte for multi-read requests.
var requestBuffers sync.Pool

// replyBodies hold *[]byte for reply bodies: a caller done with a body
// (a multi-read reply, decoded into copies) gives it back with putBody, so
// a 10,000-node read reuses a few buffers instead of one per reply.
var replyBodies sync.Pool

func getBody(n int) []byte {
	if p, _ := replyBodies.Get().(*[]byte); p != nil && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]byte, n)
}

func putBody(b []byte) {
	replyBodies.Put(&b)
}

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
				s.close()
			}
			close(m.done)
			return
		case <-t.C:
			m.mu.Lock()
			var idle *sideSession
			if m.sess != nil && time.Since(m.lastUse) > multiReadIdleClose {
				idle, m.sess = m.sess, nil
			}
			m.mu.Unlock()
			if idle != nil {
				idle.close()
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
func (m *multiReader) session(ctx context.Context) (*sideSession, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, zk.ErrConnectionClosed
	}
	m.lastUse = time.Now()
	main := m.c.Server()
	if s := m.sess; s != nil {
		if !s.dead() && (main == "" || main == s.addr) {
			return s, nil
		}
		m.sess = nil
		go s.close()
	}
	addrs := m.c.cfg.Servers
	if main != "" {
		addrs = append([]string{main}, addrs...)
	}
	var firstErr error
	for _, addr := range addrs {
		s, err := openSideSession(ctx, m.c, addr, m.lim.maxReply)
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
		var big replyTooLarge
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
		go do(lo, hi)
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
func splitBatch(lo, hi int, big replyTooLarge, limit int) []batchPart {
	const overhead = replyHeaderSize + 9 // reply header and done marker
	target := limit * 7 / 8
	if len(big.opSizes) != hi-lo {
		parts := (big.size + target - 1) / target
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
	for i, size := range big.opSizes {
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
		func(dst []byte, xid int32) []byte { return multiReadRequest(dst, xid, m.lim.opCode, paths) },
		func(body []byte) error { return decodeMultiReadResponse(body, len(paths), each) })
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
		body, err := s.call(ctx, func(xid int32) []byte {
			*reqBuf = build(*reqBuf, xid)
			return *reqBuf
		})
		requestBuffers.Put(reqBuf)
		var big replyTooLarge
		switch {
		case err == nil:
			derr := decode(body)
			putBody(body) // each was given copies
			if derr != nil {
				s.fail(derr)
				return derr
			}
			m.support.Store(1)
			return nil
		case errors.As(err, &big):
			m.support.Store(1)
			return err
		case errors.Is(err, errMultiReadUnsupported):
			m.unsupported(s)
			return err
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
func (m *multiReader) unsupported(s *sideSession) {
	m.support.Store(-1)
	m.mu.Lock()
	if m.sess == s {
		m.sess = nil
	}
	m.mu.Unlock()
	s.close()
}

// sideSession is one sidecar connection with its session: requests are
// pipelined (written under wmu, answered in order by the reader goroutine).
type sideSession struct {
	addr     string
	conn     net.Conn
	timeout  time.Duration // negotiated session timeout
	maxReply int           // bigger replies are drained and refused
	id       int64         // session id
	pongs    atomic.Int64  // ping replies received
	closedOK atomic.Bool   // the server answered closeSession
	drained  atomic.Int64  // replies drained as too large

	wmu sync.Mutex
	xid atomic.Int32

	pmu     sync.Mutex
	pending map[int32]chan sideReply
	err     error // why the session ended (under pmu)

	done chan struct{} // closed when the reader ends
	stop chan struct{} // closed to stop the pinger
	once sync.Once
}

type sideReply struct {
	body []byte
	err  error
}

// openSideSession dials addr (TLS when configured), opens a session and
// sends the client's credentials, all within multiReadDialTimeout.
func openSideSession(ctx context.Context, c *Client, addr string, maxReply int) (*sideSession, error) {
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
	s, err := handshake(conn, addr, c.cfg)
	if err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("multi-read session with %s: %w", addr, err)
	}
	conn.SetDeadline(time.Time{})
	s.maxReply = maxReply
	go s.readLoop()
	go s.pingLoop()
	return s, nil
}

// handshake opens the session and authenticates on a fresh connection.
func handshake(conn net.Conn, addr string, cfg Config) (*sideSession, error) {
	timeout := cfg.SessionTimeout
	if timeout <= 0 {
		timeout = DefaultSessionTimeout
	}
	if _, err := conn.Write(connectRequest(int32(timeout / time.Millisecond))); err != nil {
		return nil, err
	}
	pkt, err := readPacket(conn, 1<<10)
	if err != nil {
		return nil, fmt.Errorf("read connect response: %w", err)
	}
	cr, err := decodeConnectResponse(pkt)
	if err != nil {
		return nil, err
	}
	if cr.TimeoutMs <= 0 {
		return nil, errors.New("the server refused the session")
	}
	for _, a := range cfg.Auth {
		if _, err := conn.Write(authRequest(a.Scheme, a.Secret)); err != nil {
			return nil, fmt.Errorf("send %s credentials: %w", a.Scheme, err)
		}
		for {
			pkt, err := readPacket(conn, 1<<10)
			if err != nil {
				return nil, fmt.Errorf("send %s credentials: %w", a.Scheme, err)
			}
			r := &juteReader{b: pkt}
			xid, _, code := r.int32(), r.int64(), r.int32()
			if r.err != nil {
				return nil, r.err
			}
			if xid != xidAuth {
				continue // a notification (none expected) or a ping
			}
			if code == codeAuthFailed {
				return nil, fmt.Errorf("the server refused the %s credentials: %w", a.Scheme, zk.ErrAuthFailed)
			}
			if code != codeOK {
				return nil, fmt.Errorf("send %s credentials: %w", a.Scheme, codeError(code))
			}
			break
		}
	}
	return &sideSession{
		addr: addr, conn: conn, timeout: time.Duration(cr.TimeoutMs) * time.Millisecond, id: cr.SessionID,
		pending: map[int32]chan sideReply{}, done: make(chan struct{}), stop: make(chan struct{}),
	}, nil
}

// readPacket reads one length-prefixed packet of at most limit bytes.
func readPacket(r io.Reader, limit int) ([]byte, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(lb[:])))
	if n < 0 || n > limit {
		return nil, fmt.Errorf("packet length %d out of range", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// call sends the request build makes for a fresh xid and waits for its
// reply body (after the reply header). A reply with an error code fails the
// call; unknown op code 22 gives errMultiReadUnsupported.
func (s *sideSession) call(ctx context.Context, build func(xid int32) []byte) ([]byte, error) {
	xid := s.xid.Add(1) & 0x7fffffff
	ch := make(chan sideReply, 1)
	s.pmu.Lock()
	if s.err != nil {
		err := s.err
		s.pmu.Unlock()
		return nil, err
	}
	s.pending[xid] = ch
	s.pmu.Unlock()
	defer func() {
		s.pmu.Lock()
		delete(s.pending, xid)
		s.pmu.Unlock()
	}()
	if err := s.write(build(xid)); err != nil {
		return nil, err
	}
	readLimit := time.NewTimer(s.timeout * 2 / 3)
	defer readLimit.Stop()
	select {
	case r := <-ch:
		return r.body, r.err
	case <-s.done:
		select {
		case r := <-ch:
			return r.body, r.err
		default:
		}
		s.pmu.Lock()
		defer s.pmu.Unlock()
		return nil, s.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-readLimit.C:
		err := fmt.Errorf("no reply from %s within %s", s.addr, s.timeout*2/3)
		s.fail(err)
		return nil, err
	}
}

// write sends one framed packet.
func (s *sideSession) write(pkt []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.conn.SetWriteDeadline(time.Now().Add(s.timeout * 2 / 3))
	if _, err := s.conn.Write(pkt); err != nil {
		err = fmt.Errorf("write to %s: %w", s.addr, err)
		s.fail(err)
		return err
	}
	return nil
}

// readLoop hands each reply to its caller; a reply bigger than maxReply
// is drained and answered with replyTooLarge.
func (s *sideSession) readLoop() {
	defer close(s.done)
	br := bufio.NewReaderSize(s.conn, 64<<10)
	var hdr [4 + replyHeaderSize]byte
	for {
		// The pinger makes the server answer at least every timeout/3.
		s.conn.SetReadDeadline(time.Now().Add(s.timeout * 2 / 3))
		if _, err := io.ReadFull(br, hdr[:4]); err != nil {
			s.fail(fmt.Errorf("read from %s: %w", s.addr, err))
			return
		}
		n := int(int32(binary.BigEndian.Uint32(hdr[:4])))
		if n < replyHeaderSize || n > 1<<30 {
			s.fail(fmt.Errorf("reply length %d from %s out of range", n, s.addr))
			return
		}
		if _, err := io.ReadFull(br, hdr[4:]); err != nil {
			s.fail(fmt.Errorf("read from %s: %w", s.addr, err))
			return
		}
		xid := int32(binary.BigEndian.Uint32(hdr[4:8]))
		code := int32(binary.BigEndian.Uint32(hdr[16:20]))
		rest := n - replyHeaderSize
		if xid == xidPing {
			s.pongs.Add(1)
		}
		s.pmu.Lock()
		ch := s.pending[xid]
		s.pmu.Unlock()
		var reply sideReply
		switch {
		case ch == nil || xid == xidPing || xid == xidNotification:
			if _, err := io.CopyN(io.Discard, br, int64(rest)); err != nil {
				s.fail(fmt.Errorf("read from %s: %w", s.addr, err))
				return
			}
			continue
		case n > s.maxReply:
			// Drained, noting each op's size on the way when it parses.
			lr := &io.LimitedReader{R: br, N: int64(rest)}
			var sizes []int
			if code == codeOK {
				sizes = scanMultiReadSizes(lr)
			}
			if _, err := io.Copy(io.Discard, lr); err != nil || lr.N > 0 {
				s.fail(fmt.Errorf("read from %s: %v", s.addr, err))
				return
			}
			s.drained.Add(1)
			reply.err = replyTooLarge{size: n, limit: s.maxReply, opSizes: sizes}
		default:
			body := getBody(rest)
			if _, err := io.ReadFull(br, body); err != nil {
				s.fail(fmt.Errorf("read from %s: %w", s.addr, err))
				return
			}
			reply.body = body
		}
		if code == codeUnimplemented {
			reply = sideReply{err: errMultiReadUnsupported}
		} else if code != codeOK {
			reply = sideReply{err: fmt.Errorf("multi-read on %s: %w", s.addr, codeError(code))}
		}
		ch <- reply // buffered, one reply per xid
	}
}

// pingLoop keeps the session alive.
func (s *sideSession) pingLoop() {
	t := time.NewTicker(s.timeout / 3)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-s.done:
			return
		case <-t.C:
			if s.write(frame(requestHeader(xidPing, opPing).b)) != nil {
				return
			}
		}
	}
}

// dead says whether the session has failed.
func (s *sideSession) dead() bool {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	return s.err != nil
}

// fail ends the session with err (the first reason sticks).
func (s *sideSession) fail(err error) {
	s.pmu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.pmu.Unlock()
	s.once.Do(func() { close(s.stop) })
	s.conn.Close()
}

// close ends the session properly: closeSession, wait briefly for the
// answer, then close the connection.
func (s *sideSession) close() {
	if !s.dead() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := s.call(closeCtx, func(xid int32) []byte { return frame(requestHeader(xid, opCloseSession).b) })
		cancel()
		s.closedOK.Store(err == nil)
	}
	s.fail(errors.New("multi-read session closed"))
}
