package zkview

import (
	"encoding/binary"
	"net"
	"sync"
	"time"
)

// Last contact: when did the servers last hear from this client?
//
// A watch event or a ping reply arriving now proves little about the
// future; a reply to a request sent at time s proves that the server
// received something of this session at s or later, so the servers cannot
// expire the session before s + T (T, the negotiated session timeout:
// sessions expire in tick-sized buckets rounded up, never earlier). go-
// zookeeper exposes neither the replies' timing nor T, so the main
// session's connections are wrapped: the wrapper reads ZooKeeper's framing
// as the bytes pass (length, then xid) and pairs every reply with the send
// time of its request. The handshake reply gives T and the session id.

// contactAcceptedErrs are the reply codes that prove the server processed
// the request for the session: success and the ordinary API outcomes.
// Anything else (a moved session, a server error) proves nothing.
var contactAcceptedErrs = map[int32]bool{
	0:    true, // ok
	-101: true, // no node
	-103: true, // bad version
	-110: true, // node exists
	-111: true, // not empty
}

// sessionFacts are what the wire told about one session.
type sessionFacts struct {
	contact time.Time     // send time of the latest answered request
	timeout time.Duration // negotiated session timeout
	seen    time.Time     // when the facts last changed (for pruning)
}

// maxTrackedSessions bounds Client.sessions (old sessions are pruned).
const maxTrackedSessions = 8

// Contact returns the send time of the latest request of session that the
// servers answered (the handshake that re-attached the session counts), and
// the session timeout they negotiated for it. ok is false when nothing of
// that session was seen. The servers cannot expire the session before
// sent + timeout.
func (c *Client) Contact(session int64) (sent time.Time, timeout time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.sessions[session]
	if f == nil {
		return time.Time{}, 0, false
	}
	return f.contact, f.timeout, true
}

// NegotiatedTimeout is the session timeout the servers granted to the
// current session (they clamp the requested one to [2, 20] ticks by
// default). Before any handshake it is the requested timeout.
func (c *Client) NegotiatedTimeout() time.Duration {
	sid := c.SessionID()
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.sessions[sid]; f != nil && f.timeout > 0 {
		return f.timeout
	}
	return c.cfg.SessionTimeout
}

// noteContact records an answered request (or handshake) of session sent
// at sent; timeout is set from a handshake reply, 0 otherwise.
func (c *Client) noteContact(session int64, sent time.Time, timeout time.Duration) {
	if session == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessions == nil {
		c.sessions = map[int64]*sessionFacts{}
	}
	f := c.sessions[session]
	if f == nil {
		f = &sessionFacts{}
		c.sessions[session] = f
		c.pruneSessionsLocked()
	}
	if sent.After(f.contact) {
		f.contact = sent
	}
	if timeout > 0 {
		f.timeout = timeout
	}
	f.seen = time.Now()
}

func (c *Client) pruneSessionsLocked() {
	for len(c.sessions) > maxTrackedSessions {
		var oldest int64
		var at time.Time
		first := true
		for id, f := range c.sessions {
			if first || f.seen.Before(at) {
				oldest, at, first = id, f.seen, false
			}
		}
		delete(c.sessions, oldest)
	}
}

// trackedDial is the dialer go-zookeeper uses for the main session: every
// connection it opens is a [contactConn].
func (c *Client) trackedDial(network, addr string, timeout time.Duration) (net.Conn, error) {
	conn, err := c.dial(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &contactConn{Conn: conn, c: c, sent: map[int32][]time.Time{}}, nil
}

// contactConn passes bytes through unchanged and pairs the replies it reads
// with the send times of the requests it wrote.
type contactConn struct {
	net.Conn
	c *Client

	mu            sync.Mutex
	out, in       frameScanner
	handshakeSent time.Time
	handshook     bool  // the handshake reply was read
	session       int64 // from the handshake reply (0: none or expired)
	sent          map[int32][]time.Time
}

func (w *contactConn) Write(p []byte) (int, error) {
	// Taken before the bytes leave: the server receives them later, so this
	// is a lower bound of its receipt.
	now := time.Now()
	w.mu.Lock()
	w.out.feed(p, func(head []byte) {
		if w.handshakeSent.IsZero() {
			w.handshakeSent = now // the first frame is the connect request
			return
		}
		if len(head) >= 4 {
			xid := int32(binary.BigEndian.Uint32(head))
			w.sent[xid] = append(w.sent[xid], now)
		}
	})
	w.mu.Unlock()
	return w.Conn.Write(p)
}

func (w *contactConn) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	if n > 0 {
		w.mu.Lock()
		w.in.feed(p[:n], w.onReply)
		w.mu.Unlock()
	}
	return n, err
}

// onReply handles the first bytes of one reply frame. Caller holds w.mu.
func (w *contactConn) onReply(head []byte) {
	if !w.handshook {
		// connectResponse: protocolVersion int32, timeOut int32, sessionID int64.
		w.handshook = true
		if len(head) < 16 {
			return
		}
		timeout := time.Duration(int32(binary.BigEndian.Uint32(head[4:]))) * time.Millisecond
		w.session = int64(binary.BigEndian.Uint64(head[8:]))
		w.c.noteContact(w.session, w.handshakeSent, timeout)
		return
	}
	// replyHeader: xid int32, zxid int64, err int32.
	if len(head) < 16 {
		return
	}
	xid := int32(binary.BigEndian.Uint32(head))
	code := int32(binary.BigEndian.Uint32(head[12:]))
	if xid == -1 {
		return // a watch event, not a reply
	}
	q := w.sent[xid]
	if len(q) == 0 {
		return
	}
	at := q[0]
	if len(q) == 1 {
		delete(w.sent, xid)
	} else {
		w.sent[xid] = q[1:]
	}
	if contactAcceptedErrs[code] {
		w.c.noteContact(w.session, at, 0)
	}
}

// frameScanner splits a byte stream into ZooKeeper frames (a 4-byte
// big-endian length, then the body) fed in arbitrary pieces, and reports
// the first bytes of each body (up to 16, fewer for a shorter body).
type frameScanner struct {
	lenBuf  [4]byte
	lenHave int
	left    int // body bytes still to come
	head    [16]byte
	headLen int // head bytes collected
	want    int // head bytes wanted for this frame
}

func (s *frameScanner) feed(p []byte, onHead func([]byte)) {
	for len(p) > 0 {
		if s.left == 0 {
			k := copy(s.lenBuf[s.lenHave:], p)
			s.lenHave += k
			p = p[k:]
			if s.lenHave < 4 {
				return
			}
			s.lenHave = 0
			s.left = int(binary.BigEndian.Uint32(s.lenBuf[:]))
			s.headLen, s.want = 0, min(s.left, len(s.head))
			if s.left == 0 {
				onHead(nil)
			}
			continue
		}
		if s.headLen < s.want {
			k := copy(s.head[s.headLen:s.want], p)
			s.headLen += k
			s.left -= k
			p = p[k:]
			if s.headLen == s.want {
				onHead(s.head[:s.want])
			}
			continue
		}
		k := min(s.left, len(p))
		s.left -= k
		p = p[k:]
	}
}
