// Package wire is ZooKeeper's client protocol as zkscope speaks it on
// connections of its own, where go-zookeeper lacks a request: the
// requests and replies (in jute, through zkview/jute), and a [Session]
// (handshake, credentials, pipelined calls, pings). zkview opens these
// sessions beside go-zookeeper's for multi-reads.
//
// It imports nothing of zkscope but zkview/jute.
package wire

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/jute"
)

// Op codes (ZooDefs.OpCode) zkscope sends itself.
const (
	OpGetData      int32 = 4
	OpGetChildren  int32 = 8
	OpGetChildren2 int32 = 12
	OpPing         int32 = 11
	OpMultiRead    int32 = 22
	OpAuth         int32 = 100
	OpCloseSession int32 = -11
	OpError        int32 = -1 // a failed op inside a multi response
)

// Special xids (ClientCnxn): replies carrying them are not answers to a
// numbered request.
const (
	XidNotification int32 = -1
	XidPing         int32 = -2
	XidAuth         int32 = -4
)

// Server error codes (KeeperException.Code) that zkscope acts on itself.
const (
	CodeOK            int32 = 0
	CodeUnimplemented int32 = -6
	CodeAuthFailed    int32 = -115
)

// ReplyHeaderSize is a ReplyHeader: xid int, zxid long, err int.
const ReplyHeaderSize = 16

// CodeError maps a server error code to go-zookeeper's error values, so
// callers test multi-read and pipelined results alike with errors.Is.
func CodeError(code int32) error {
	switch code {
	case CodeOK:
		return nil
	case -101:
		return zk.ErrNoNode
	case -102:
		return zk.ErrNoAuth
	case -103:
		return zk.ErrBadVersion
	case -108:
		return zk.ErrNoChildrenForEphemerals
	case -110:
		return zk.ErrNodeExists
	case -111:
		return zk.ErrNotEmpty
	case -112:
		return zk.ErrSessionExpired
	case -114:
		return zk.ErrInvalidACL
	case -115:
		return zk.ErrAuthFailed
	case CodeSASLRequired:
		return ErrSASLRequired
	case -116:
		return zk.ErrClosing
	case -118:
		return zk.ErrSessionMoved
	case -100:
		return zk.ErrAPIError
	case -8:
		return zk.ErrBadArguments
	case CodeNoWatcher:
		return ErrNoWatcher
	}
	return fmt.Errorf("zk: unknown error: %d", code)
}

// ChildrenRequest is a framed getChildren2 request (no watch).
func ChildrenRequest(xid int32, path string) []byte {
	w := RequestHeader(xid, OpGetChildren2)
	w.String(path)
	w.Bool(false)
	return Frame(w.B)
}

// DecodeChildrenResponse decodes a GetChildren2Response body: the names
// (a vector of strings) and the parent's stat. The names are slices of
// body, which the caller hands over: it must never change afterwards.
func DecodeChildrenResponse(body []byte) ([]string, zk.Stat, error) {
	r := jute.NewReader(body)
	n := r.Int32()
	if r.Err() == nil && (n < -1 || int(n) > len(body)/4) {
		return nil, zk.Stat{}, fmt.Errorf("%d children in a reply of %d bytes (malformed packet)", n, len(body))
	}
	names := make([]string, 0, max(n, 0))
	for i := int32(0); i < n && r.Err() == nil; i++ {
		l := r.Int32()
		if l < 0 {
			return nil, zk.Stat{}, fmt.Errorf("negative name length %d (malformed packet)", l)
		}
		if b := r.Take(int(l)); len(b) > 0 {
			names = append(names, unsafe.String(&b[0], len(b)))
		} else if r.Err() == nil {
			names = append(names, "")
		}
	}
	st := r.Stat()
	if r.Err() != nil {
		return nil, zk.Stat{}, fmt.Errorf("decode children reply: %w", r.Err())
	}
	return names, st, nil
}

// frame prefixes a packet body with its length.
func Frame(body []byte) []byte {
	out := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(out, uint32(len(body)))
	return append(out, body...)
}

// RequestHeader starts a request: xid and op code.
func RequestHeader(xid, op int32) *jute.Writer {
	w := &jute.Writer{B: make([]byte, 0, 64)}
	w.Int32(xid)
	w.Int32(op)
	return w
}

// ConnectRequest is the session handshake (ConnectRequest plus the
// readOnly flag every client since 3.4 appends): protocol version 0, no
// zxid seen, the requested timeout, session 0 (a new session), an empty
// 16-byte password.
func ConnectRequest(timeoutMs int32) []byte {
	w := &jute.Writer{}
	w.Int32(0)
	w.Int64(0)
	w.Int32(timeoutMs)
	w.Int64(0)
	w.Buffer(make([]byte, 16))
	w.Bool(false)
	return Frame(w.B)
}

// ConnectResponse is the server's handshake answer.
type ConnectResponse struct {
	TimeoutMs int32 // negotiated; <= 0 means the server refused the session
	SessionID int64
	Password  []byte
}

func DecodeConnectResponse(b []byte) (ConnectResponse, error) {
	r := jute.NewReader(b)
	r.Int32() // protocol version
	resp := ConnectResponse{TimeoutMs: r.Int32(), SessionID: r.Int64(), Password: r.BufferCopy()}
	// A readOnly flag may follow; zkview never asks for read-only sessions.
	if r.Err() != nil {
		return ConnectResponse{}, fmt.Errorf("decode connect response: %w", r.Err())
	}
	return resp, nil
}

// AuthRequest is an AuthPacket (type 0, scheme, credential).
func AuthRequest(scheme string, secret []byte) []byte {
	w := RequestHeader(XidAuth, OpAuth)
	w.Int32(0)
	w.String(scheme)
	w.Buffer(secret)
	return Frame(w.B)
}
