package wire

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

	"github.com/zkscope/zkscope/zkview/jute"
)

// replyBodies hold *[]byte for reply bodies: a caller done with a body
// (a multi-read reply, decoded into copies) gives it back with PutBody, so
// a 10,000-node read reuses a few buffers instead of one per reply.
var replyBodies sync.Pool

func getBody(n int) []byte {
	if p, _ := replyBodies.Get().(*[]byte); p != nil && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]byte, n)
}

// PutBody gives back a reply body (from [Session.Call]) its caller is done
// with, to be reused for a later reply.
func PutBody(b []byte) {
	replyBodies.Put(&b)
}

// ReplyTooLarge is a reply that was drained unread because it exceeded
// the limit. OpSizes, when the drained reply was a multi-read's and could
// be followed, holds each op's share of it, so the batch can be split
// exactly.
type ReplyTooLarge struct {
	Size, Limit int
	OpSizes     []int
}

func (e ReplyTooLarge) Error() string {
	return fmt.Sprintf("multi-read reply of %d bytes exceeds %d", e.Size, e.Limit)
}

// ErrUnimplemented is the server's answer to a request it does not know
// (an older ZooKeeper: multi-read before 3.6, for one).
var ErrUnimplemented = errors.New("the server does not know the request (an older ZooKeeper)")

// ErrNoWatcher is the server's answer to removeWatches on a path the
// session watches nothing on.
var ErrNoWatcher = errors.New("no watch on the path")

// Auth is one credential sent with addAuth right after the handshake.
type Auth struct {
	Scheme string
	Secret []byte
}

// Session is a connection of zkscope's own with its ZooKeeper session:
// requests are pipelined (written under wmu, answered in order by the
// reader goroutine), the session kept alive by pings.
type Session struct {
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
	pending map[int32]chan reply
	err     error // why the session ended (under pmu)

	done chan struct{} // closed when the reader ends
	stop chan struct{} // closed to stop the pinger
	once sync.Once

	// notify, when set, is given each notification's body (xid -1) by
	// the reader, in the order the server sent them.
	notify func(body []byte)
}

type reply struct {
	body []byte
	err  error
}

// Handshake opens a session asking for timeout and authenticates with
// auth on conn, a fresh connection to addr; the caller bounds it with
// conn's deadline, then calls [Session.Start].
func Handshake(conn net.Conn, addr string, timeout time.Duration, auth []Auth) (*Session, error) {
	if _, err := conn.Write(ConnectRequest(int32(timeout / time.Millisecond))); err != nil {
		return nil, err
	}
	pkt, err := ReadPacket(conn, 1<<10)
	if err != nil {
		return nil, fmt.Errorf("read connect response: %w", err)
	}
	cr, err := DecodeConnectResponse(pkt)
	if err != nil {
		return nil, err
	}
	if cr.TimeoutMs <= 0 {
		return nil, errors.New("the server refused the session")
	}
	for _, a := range auth {
		if _, err := conn.Write(AuthRequest(a.Scheme, a.Secret)); err != nil {
			return nil, fmt.Errorf("send %s credentials: %w", a.Scheme, err)
		}
		for {
			pkt, err := ReadPacket(conn, 1<<10)
			if err != nil {
				return nil, fmt.Errorf("send %s credentials: %w", a.Scheme, err)
			}
			r := jute.NewReader(pkt)
			xid, _, code := r.Int32(), r.Int64(), r.Int32()
			if r.Err() != nil {
				return nil, r.Err()
			}
			if xid != XidAuth {
				continue // a notification (none expected) or a ping
			}
			if code == CodeAuthFailed {
				return nil, fmt.Errorf("the server refused the %s credentials: %w", a.Scheme, zk.ErrAuthFailed)
			}
			if code != CodeOK {
				return nil, fmt.Errorf("send %s credentials: %w", a.Scheme, CodeError(code))
			}
			break
		}
	}
	return &Session{
		addr: addr, conn: conn, timeout: time.Duration(cr.TimeoutMs) * time.Millisecond, id: cr.SessionID,
		pending: map[int32]chan reply{}, done: make(chan struct{}), stop: make(chan struct{}),
	}, nil
}

// Start sets the largest reply accepted (bigger ones are drained and
// answered with [ReplyTooLarge]) and starts reading replies and pinging.
func (s *Session) Start(maxReply int) {
	s.maxReply = maxReply
	go s.readLoop()
	go s.pingLoop()
}

// StartNotify is [Session.Start] with notify given every notification's
// body (a watch event) on the reader goroutine, in the server's order; it
// must not block (the session's replies wait for it).
func (s *Session) StartNotify(maxReply int, notify func(body []byte)) {
	s.notify = notify
	s.Start(maxReply)
}

// Done is closed when the session has ended (failed or closed); Err then
// says why.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err is why the session ended (nil while it lives).
func (s *Session) Err() error {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	return s.err
}

// Addr is the member's address; ID the session's id; Conn the connection.
func (s *Session) Addr() string   { return s.addr }
func (s *Session) ID() int64      { return s.id }
func (s *Session) Conn() net.Conn { return s.conn }

// Pongs counts the ping replies received, Drained the replies drained as
// too large; ClosedOK says whether the server answered closeSession.
func (s *Session) Pongs() int64   { return s.pongs.Load() }
func (s *Session) Drained() int64 { return s.drained.Load() }
func (s *Session) ClosedOK() bool { return s.closedOK.Load() }

// ReadPacket reads one length-prefixed packet of at most limit bytes.
func ReadPacket(r io.Reader, limit int) ([]byte, error) {
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

// Call sends the request build makes for a fresh xid and waits for its
// reply body (after the reply header). A reply with an error code fails the
// call; a request the server does not know gives [ErrUnimplemented].
func (s *Session) Call(ctx context.Context, build func(xid int32) []byte) ([]byte, error) {
	xid := s.xid.Add(1) & 0x7fffffff
	ch := make(chan reply, 1)
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
		s.Fail(err)
		return nil, err
	}
}

// write sends one framed packet.
func (s *Session) write(pkt []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.conn.SetWriteDeadline(time.Now().Add(s.timeout * 2 / 3))
	if _, err := s.conn.Write(pkt); err != nil {
		err = fmt.Errorf("write to %s: %w", s.addr, err)
		s.Fail(err)
		return err
	}
	return nil
}

// readLoop hands each reply to its caller; a reply bigger than maxReply
// is drained and answered with ReplyTooLarge.
func (s *Session) readLoop() {
	defer close(s.done)
	br := bufio.NewReaderSize(s.conn, 64<<10)
	var hdr [4 + ReplyHeaderSize]byte
	for {
		// The pinger makes the server answer at least every timeout/3.
		s.conn.SetReadDeadline(time.Now().Add(s.timeout * 2 / 3))
		if _, err := io.ReadFull(br, hdr[:4]); err != nil {
			s.Fail(fmt.Errorf("read from %s: %w", s.addr, err))
			return
		}
		n := int(int32(binary.BigEndian.Uint32(hdr[:4])))
		if n < ReplyHeaderSize || n > 1<<30 {
			s.Fail(fmt.Errorf("reply length %d from %s out of range", n, s.addr))
			return
		}
		if _, err := io.ReadFull(br, hdr[4:]); err != nil {
			s.Fail(fmt.Errorf("read from %s: %w", s.addr, err))
			return
		}
		xid := int32(binary.BigEndian.Uint32(hdr[4:8]))
		code := int32(binary.BigEndian.Uint32(hdr[16:20]))
		rest := n - ReplyHeaderSize
		if xid == XidPing {
			s.pongs.Add(1)
		}
		s.pmu.Lock()
		ch := s.pending[xid]
		s.pmu.Unlock()
		var rep reply
		switch {
		case xid == XidNotification && s.notify != nil && rest <= s.maxReply:
			body := make([]byte, rest)
			if _, err := io.ReadFull(br, body); err != nil {
				s.Fail(fmt.Errorf("read from %s: %w", s.addr, err))
				return
			}
			s.notify(body)
			continue
		case ch == nil || xid == XidPing || xid == XidNotification:
			if _, err := io.CopyN(io.Discard, br, int64(rest)); err != nil {
				s.Fail(fmt.Errorf("read from %s: %w", s.addr, err))
				return
			}
			continue
		case n > s.maxReply:
			// Drained, noting each op's size on the way when it parses.
			lr := &io.LimitedReader{R: br, N: int64(rest)}
			var sizes []int
			if code == CodeOK {
				sizes = ScanMultiReadSizes(lr)
			}
			if _, err := io.Copy(io.Discard, lr); err != nil || lr.N > 0 {
				s.Fail(fmt.Errorf("read from %s: %v", s.addr, err))
				return
			}
			s.drained.Add(1)
			rep.err = ReplyTooLarge{Size: n, Limit: s.maxReply, OpSizes: sizes}
		default:
			body := getBody(rest)
			if _, err := io.ReadFull(br, body); err != nil {
				s.Fail(fmt.Errorf("read from %s: %w", s.addr, err))
				return
			}
			rep.body = body
		}
		if code == CodeUnimplemented {
			rep = reply{err: ErrUnimplemented}
		} else if code != CodeOK {
			rep = reply{err: fmt.Errorf("%s: %w", s.addr, CodeError(code))}
		}
		ch <- rep // buffered, one reply per xid
	}
}

// pingLoop keeps the session alive.
func (s *Session) pingLoop() {
	t := time.NewTicker(s.timeout / 3)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-s.done:
			return
		case <-t.C:
			if s.write(Frame(RequestHeader(XidPing, OpPing).B)) != nil {
				return
			}
		}
	}
}

// Dead says whether the session has failed.
func (s *Session) Dead() bool {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	return s.err != nil
}

// Fail ends the session with err (the first reason sticks).
func (s *Session) Fail(err error) {
	s.pmu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.pmu.Unlock()
	s.once.Do(func() { close(s.stop) })
	s.conn.Close()
}

// Close ends the session properly: closeSession, wait briefly for the
// answer, then close the connection.
func (s *Session) Close() {
	if !s.Dead() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := s.Call(closeCtx, func(xid int32) []byte { return Frame(RequestHeader(xid, OpCloseSession).B) })
		cancel()
		s.closedOK.Store(err == nil)
	}
	s.Fail(errors.New("session closed"))
}
