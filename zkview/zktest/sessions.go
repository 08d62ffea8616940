package zktest

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// EphemeralsOfOwnSessions creates n ephemeral nodes under dir, each by a
// session of its own, the way n real contenders of a lock make them: node
// i is dir/name(i) (with the server's sequence appended when sequential)
// holding data(i). Each session's connection is then dropped without
// closing the session, so the node lives until the session times out
// (timeout, clamped by the server's maxSessionTimeout): thousands of
// sessions without thousands of open clients. It speaks the protocol
// directly (a handshake and one create per connection), several
// connections at a time.
func EphemeralsOfOwnSessions(tb testing.TB, addr, dir string, n int, name func(i int) string, data func(i int) []byte, sequential bool, timeout time.Duration) {
	tb.Helper()
	const workers = 16
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	flags := int32(1) // ephemeral
	if sequential {
		flags |= 2
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := createInOwnSession(addr, dir+"/"+name(i), data(i), flags, timeout); err != nil {
					errOnce.Do(func() { first = fmt.Errorf("node %d: %w", i, err) })
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		tb.Fatalf("create %d ephemerals of their own sessions under %s: %v", n, dir, first)
	}
}

// createInOwnSession opens a session on addr, creates one node in it (open
// ACL) and drops the connection.
func createInOwnSession(addr, path string, data []byte, flags int32, timeout time.Duration) error {
	s, err := DialSession(addr, 0, nil, timeout)
	if err != nil {
		return err
	}
	defer s.Abandon()
	return s.Create(path, data, flags)
}

// RawSession is a session spoken to directly over TCP, without a client
// library: for tests that need what a library does not offer (thousands of
// sessions at once, a connection dropped without closing its session,
// another client's session closed from outside). One request at a time.
type RawSession struct {
	ID   int64
	conn net.Conn
	xid  int32
}

// DialSession connects to addr and opens a new session (id 0) or
// re-attaches to session id with its password, asking for timeout.
func DialSession(addr string, id int64, passwd []byte, timeout time.Duration) (*RawSession, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if passwd == nil {
		passwd = make([]byte, 16)
	}
	// ConnectRequest: protocolVersion, lastZxidSeen, timeOut, sessionId,
	// passwd, readOnly.
	var req []byte
	req = binary.BigEndian.AppendUint32(req, 0)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, uint32(timeout.Milliseconds()))
	req = binary.BigEndian.AppendUint64(req, uint64(id))
	req = appendBuffer(req, passwd)
	req = append(req, 0)
	if err := writeFrame(conn, req); err != nil {
		conn.Close()
		return nil, err
	}
	resp, err := readFrame(conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	// ConnectResponse: protocolVersion, timeOut, sessionId, passwd.
	if len(resp) < 16 || binary.BigEndian.Uint64(resp[8:16]) == 0 || id != 0 && int64(binary.BigEndian.Uint64(resp[8:16])) != id {
		conn.Close()
		return nil, fmt.Errorf("session 0x%x refused (expired?): %x", uint64(id), resp)
	}
	return &RawSession{ID: int64(binary.BigEndian.Uint64(resp[8:16])), conn: conn}, nil
}

// call sends one request (op code and body) and returns the reply's error
// code.
func (s *RawSession) call(op int32, body []byte) (int32, error) {
	s.xid++
	req := binary.BigEndian.AppendUint32(nil, uint32(s.xid))
	req = binary.BigEndian.AppendUint32(req, uint32(op))
	if err := writeFrame(s.conn, append(req, body...)); err != nil {
		return 0, err
	}
	reply, err := readFrame(s.conn)
	if err != nil {
		return 0, err
	}
	if len(reply) < 16 {
		return 0, fmt.Errorf("short reply %x", reply)
	}
	return int32(binary.BigEndian.Uint32(reply[12:16])), nil
}

// Create creates path holding data with the open ACL; flags as the
// protocol has them (1 ephemeral, 2 sequential).
func (s *RawSession) Create(path string, data []byte, flags int32) error {
	var req []byte
	req = appendBuffer(req, []byte(path))
	req = appendBuffer(req, data)
	req = binary.BigEndian.AppendUint32(req, 1)
	req = binary.BigEndian.AppendUint32(req, 31) // perms: all
	req = appendBuffer(req, []byte("world"))
	req = appendBuffer(req, []byte("anyone"))
	req = binary.BigEndian.AppendUint32(req, uint32(flags))
	code, err := s.call(1, req)
	if err == nil && code != 0 {
		err = fmt.Errorf("create %s: error code %d", path, code)
	}
	return err
}

// CloseSession ends the session (its ephemeral nodes go) and the
// connection.
func (s *RawSession) CloseSession() error {
	defer s.conn.Close()
	code, err := s.call(-11, nil)
	if err == nil && code != 0 {
		err = fmt.Errorf("closeSession: error code %d", code)
	}
	return err
}

// Abandon drops the connection and leaves the session to time out.
func (s *RawSession) Abandon() { s.conn.Close() }

func appendBuffer(b, v []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

func writeFrame(w io.Writer, body []byte) error {
	frame := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	_, err := w.Write(append(frame, body...))
	return err
}

func readFrame(r io.Reader) ([]byte, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return nil, fmt.Errorf("read frame: %w", err)
	}
	n := binary.BigEndian.Uint32(lb[:])
	if n > 1<<20 {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("read frame: %w", err)
	}
	return b, nil
}
