package zkview

// ZooKeeper's wire format (jute), only as much as the multi-read sidecar
// needs: big-endian integers, length-prefixed buffers and strings (length -1
// is null), records as their fields in order, every packet prefixed by its
// length. Field orders follow the server's zookeeper.jute.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/go-zookeeper/zk"
)

// Op codes (ZooDefs.OpCode) zkview sends itself.
const (
	opGetData      int32 = 4
	opGetChildren  int32 = 8
	opGetChildren2 int32 = 12
	opPing         int32 = 11
	opMultiRead    int32 = 22
	opAuth         int32 = 100
	opCloseSession int32 = -11
	opError        int32 = -1 // a failed op inside a multi response
)

// Special xids (ClientCnxn): replies carrying them are not answers to a
// numbered request.
const (
	xidNotification int32 = -1
	xidPing         int32 = -2
	xidAuth         int32 = -4
)

// Server error codes (KeeperException.Code) that zkview acts on itself.
const (
	codeOK            int32 = 0
	codeUnimplemented int32 = -6
	codeAuthFailed    int32 = -115
)

// statSize is a serialized Stat: 4 longs, 3 ints, a long, 2 ints, a long.
const statSize = 68

// replyHeaderSize is a ReplyHeader: xid int, zxid long, err int.
const replyHeaderSize = 16

// errShortPacket means a packet ended before its fields did.
var errShortPacket = errors.New("zookeeper reply ended early (malformed packet)")

// codeError maps a server error code to go-zookeeper's error values, so
// callers test multi-read and pipelined results alike with errors.Is.
func codeError(code int32) error {
	switch code {
	case codeOK:
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
	case -116:
		return zk.ErrClosing
	case -118:
		return zk.ErrSessionMoved
	case -100:
		return zk.ErrAPIError
	case -8:
		return zk.ErrBadArguments
	}
	return fmt.Errorf("zk: unknown error: %d", code)
}

// juteWriter appends jute fields to a byte slice.
type juteWriter struct{ b []byte }

func (w *juteWriter) int32(v int32) { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *juteWriter) int64(v int64) { w.b = binary.BigEndian.AppendUint64(w.b, uint64(v)) }

func (w *juteWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *juteWriter) buffer(v []byte) {
	if v == nil {
		w.int32(-1)
		return
	}
	w.int32(int32(len(v)))
	w.b = append(w.b, v...)
}

func (w *juteWriter) string(v string) {
	w.int32(int32(len(v)))
	w.b = append(w.b, v...)
}

// juteReader reads jute fields; the first short read sticks in err and every
// later read returns zero values, so decoders check err once at the end of a
// record and can never index out of range.
type juteReader struct {
	b   []byte
	err error
}

func (r *juteReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errShortPacket
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *juteReader) int32() int32 {
	v := r.take(4)
	if v == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(v))
}

func (r *juteReader) int64() int64 {
	v := r.take(8)
	if v == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

func (r *juteReader) bool() bool {
	v := r.take(1)
	return v != nil && v[0] != 0
}

// buffer returns a copy (nil for a null buffer), so a caller keeping one
// node's data does not pin the whole reply.
func (r *juteReader) buffer() []byte {
	n := r.int32()
	if r.err != nil || n == -1 {
		return nil
	}
	if n < -1 {
		r.err = fmt.Errorf("negative buffer length %d (malformed packet)", n)
		return nil
	}
	v := r.take(int(n))
	if v == nil {
		return nil
	}
	return append(make([]byte, 0, len(v)), v...)
}

func (r *juteReader) stat() zk.Stat {
	return zk.Stat{
		Czxid: r.int64(), Mzxid: r.int64(), Ctime: r.int64(), Mtime: r.int64(),
		Version: r.int32(), Cversion: r.int32(), Aversion: r.int32(),
		EphemeralOwner: r.int64(), DataLength: r.int32(), NumChildren: r.int32(),
		Pzxid: r.int64(),
	}
}

// childrenRequest is a framed getChildren2 request (no watch).
func childrenRequest(xid int32, path string) []byte {
	w := requestHeader(xid, opGetChildren2)
	w.string(path)
	w.bool(false)
	return frame(w.b)
}

// decodeChildrenResponse decodes a GetChildren2Response body: the names
// (a vector of strings) and the parent's stat. The names are slices of
// body, which the caller hands over: it must never change afterwards.
func decodeChildrenResponse(body []byte) ([]string, zk.Stat, error) {
	r := &juteReader{b: body}
	n := r.int32()
	if r.err == nil && (n < -1 || int(n) > len(body)/4) {
		return nil, zk.Stat{}, fmt.Errorf("%d children in a reply of %d bytes (malformed packet)", n, len(body))
	}
	names := make([]string, 0, max(n, 0))
	for i := int32(0); i < n && r.err == nil; i++ {
		l := r.int32()
		if l < 0 {
			return nil, zk.Stat{}, fmt.Errorf("negative name length %d (malformed packet)", l)
		}
		if b := r.take(int(l)); len(b) > 0 {
			names = append(names, unsafe.String(&b[0], len(b)))
		} else if r.err == nil {
			names = append(names, "")
		}
	}
	st := r.stat()
	if r.err != nil {
		return nil, zk.Stat{}, fmt.Errorf("decode children reply: %w", r.err)
	}
	return names, st, nil
}

// frame prefixes a packet body with its length.
func frame(body []byte) []byte {
	out := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(out, uint32(len(body)))
	return append(out, body...)
}

// requestHeader starts a request: xid and op code.
func requestHeader(xid, op int32) *juteWriter {
	w := &juteWriter{b: make([]byte, 0, 64)}
	w.int32(xid)
	w.int32(op)
	return w
}

// connectRequest is the session handshake (ConnectRequest plus the
// readOnly flag every client since 3.4 appends): protocol version 0, no
// zxid seen, the requested timeout, session 0 (a new session), an empty
// 16-byte password.
func connectRequest(timeoutMs int32) []byte {
	w := &juteWriter{}
	w.int32(0)
	w.int64(0)
	w.int32(timeoutMs)
	w.int64(0)
	w.buffer(make([]byte, 16))
	w.bool(false)
	return frame(w.b)
}

// connectResponse is the server's handshake answer.
type connectResponse struct {
	TimeoutMs int32 // negotiated; <= 0 means the server refused the session
	SessionID int64
	Password  []byte
}

func decodeConnectResponse(b []byte) (connectResponse, error) {
	r := &juteReader{b: b}
	r.int32() // protocol version
	resp := connectResponse{TimeoutMs: r.int32(), SessionID: r.int64(), Password: r.buffer()}
	// A readOnly flag may follow; zkview never asks for read-only sessions.
	if r.err != nil {
		return connectResponse{}, fmt.Errorf("decode connect response: %w", r.err)
	}
	return resp, nil
}

// authRequest is an AuthPacket (type 0, scheme, credential).
func authRequest(scheme string, secret []byte) []byte {
	w := requestHeader(xidAuth, opAuth)
	w.int32(0)
	w.string(scheme)
	w.buffer(secret)
	return frame(w.b)
}

// multiReadRequest is a request with op code op (opMultiRead) whose body
// is a MultiOperationRecord of getData ops (no watches):
// each op a MultiHeader (type, done=false, err=-1) and a GetDataRequest,
// closed by the MultiHeader (-1, true, -1).
//
// The request is built in dst's memory when it is big enough.
func multiReadRequest(dst []byte, xid, op int32, paths []string) []byte {
	size := 4 + 8 + 9
	for _, p := range paths {
		size += 9 + 4 + len(p) + 1
	}
	if cap(dst) < size {
		dst = make([]byte, 0, size)
	}
	w := &juteWriter{b: append(dst[:0], 0, 0, 0, 0)}
	w.int32(xid)
	w.int32(op)
	for _, p := range paths {
		w.int32(opGetData)
		w.bool(false)
		w.int32(-1)
		w.string(p)
		w.bool(false)
	}
	w.int32(-1)
	w.bool(true)
	w.int32(-1)
	binary.BigEndian.PutUint32(w.b, uint32(len(w.b)-4))
	return w.b
}

// decodeMultiReadResponse decodes a MultiResponse body (after the reply
// header) that answers want getData ops: per op a MultiHeader, then a
// GetDataResponse (data, stat) or, for type -1, an ErrorResponse (code),
// up to the done marker. Any other shape is an error; it never panics.
//
// Each result goes to each(j, ...) as it is decoded, j counting from 0; the
// data slices body. On an error, each may have had some of the results.
func decodeMultiReadResponse(body []byte, want int, each NodeFunc) error {
	if want < 0 || want > len(body)/9+1 {
		// Every result takes at least a 9-byte header.
		return fmt.Errorf("multi-read reply of %d bytes cannot hold %d results (malformed packet)", len(body), want)
	}
	r := &juteReader{b: body}
	n := 0
	var st zk.Stat // one for the whole reply: each copies what it keeps
	for {
		typ, done, _ := r.int32(), r.bool(), r.int32()
		if r.err != nil {
			return fmt.Errorf("decode multi-read reply: %w", r.err)
		}
		if done {
			break
		}
		if n == want {
			return fmt.Errorf("multi-read reply holds more than the %d results asked for", want)
		}
		switch typ {
		case opGetData:
			data := r.buffer()
			st = r.stat()
			if r.err != nil {
				return fmt.Errorf("decode multi-read reply: %w", r.err)
			}
			each(n, data, &st, nil)
		case opError:
			code := r.int32()
			if r.err != nil {
				return fmt.Errorf("decode multi-read reply: %w", r.err)
			}
			if code == codeOK {
				code = math.MinInt32 // an error result must carry an error
			}
			each(n, nil, nil, codeError(code))
		default:
			return fmt.Errorf("unexpected op type %d in multi-read reply", typ)
		}
		n++
	}
	if n != want {
		return fmt.Errorf("multi-read reply holds %d results, %d asked for", n, want)
	}
	return nil
}

// scanMultiReadSizes follows a multi-read reply body being drained and
// returns how many bytes each op's result takes (header included), or nil
// when it does not parse (or r ends early). It reads only the headers and
// length fields and skips the data.
func scanMultiReadSizes(r io.Reader) []int {
	var sizes []int
	var hdr [9]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return nil
		}
		if hdr[4] != 0 { // done
			return sizes
		}
		switch int32(binary.BigEndian.Uint32(hdr[:4])) {
		case opGetData:
			var lb [4]byte
			if _, err := io.ReadFull(r, lb[:]); err != nil {
				return nil
			}
			n := int64(max(int32(binary.BigEndian.Uint32(lb[:])), 0))
			if _, err := io.CopyN(io.Discard, r, n+statSize); err != nil {
				return nil
			}
			sizes = append(sizes, len(hdr)+len(lb)+int(n)+statSize)
		case opGetChildren:
			size, ok := skipNames(r)
			if !ok {
				return nil
			}
			sizes = append(sizes, len(hdr)+size)
		case opError:
			if _, err := io.CopyN(io.Discard, r, 4); err != nil {
				return nil
			}
			sizes = append(sizes, len(hdr)+4)
		default:
			return nil
		}
	}
}

// skipNames skips a vector of strings (a GetChildrenResponse) and returns
// its size.
func skipNames(r io.Reader) (int, bool) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return 0, false
	}
	size := 4
	for n := int32(binary.BigEndian.Uint32(lb[:])); n > 0; n-- {
		if _, err := io.ReadFull(r, lb[:]); err != nil {
			return 0, false
		}
		l := int64(max(int32(binary.BigEndian.Uint32(lb[:])), 0))
		if _, err := io.CopyN(io.Discard, r, l); err != nil {
			return 0, false
		}
		size += 4 + int(l)
	}
	return size, true
}

// readOp is one sub-request of a mixed multi-read: getChildren (names
// only) or getData of path (server view).
type readOp struct {
	code int32 // opGetChildren or opGetData
	path string
}

// readResult is one sub-request's answer: names for getChildren, data and
// stat for getData, or err.
type readResult struct {
	names []string
	data  []byte
	stat  zk.Stat
	err   error
}

// multiReadOpsRequest is [multiReadRequest] for a mix of getChildren and
// getData ops (the server accepts both in one multi-read since 3.6).
func multiReadOpsRequest(dst []byte, xid, op int32, ops []readOp) []byte {
	size := 4 + 8 + 9
	for _, o := range ops {
		size += 9 + 4 + len(o.path) + 1
	}
	if cap(dst) < size {
		dst = make([]byte, 0, size)
	}
	w := &juteWriter{b: append(dst[:0], 0, 0, 0, 0)}
	w.int32(xid)
	w.int32(op)
	for _, o := range ops {
		w.int32(o.code)
		w.bool(false)
		w.int32(-1)
		w.string(o.path)
		w.bool(false)
	}
	w.int32(-1)
	w.bool(true)
	w.int32(-1)
	binary.BigEndian.PutUint32(w.b, uint32(len(w.b)-4))
	return w.b
}

// decodeMultiReadOps decodes the reply to a mixed multi-read of want ops:
// each result goes to each(j, r) in order. Names and data are copies (one
// string per listing holds all its names), so the body can be reused.
func decodeMultiReadOps(body []byte, want int, each func(j int, r readResult)) error {
	if want < 0 || want > len(body)/9+1 {
		return fmt.Errorf("multi-read reply of %d bytes cannot hold %d results (malformed packet)", len(body), want)
	}
	r := &juteReader{b: body}
	n := 0
	for {
		typ, done, _ := r.int32(), r.bool(), r.int32()
		if r.err != nil {
			return fmt.Errorf("decode multi-read reply: %w", r.err)
		}
		if done {
			break
		}
		if n == want {
			return fmt.Errorf("multi-read reply holds more than the %d results asked for", want)
		}
		var res readResult
		switch typ {
		case opGetData:
			res.data = r.buffer()
			res.stat = r.stat()
		case opGetChildren:
			res.names = r.names()
		case opError:
			code := r.int32()
			if code == codeOK {
				code = math.MinInt32
			}
			res.err = codeError(code)
		default:
			return fmt.Errorf("unexpected op type %d in multi-read reply", typ)
		}
		if r.err != nil {
			return fmt.Errorf("decode multi-read reply: %w", r.err)
		}
		each(n, res)
		n++
	}
	if n != want {
		return fmt.Errorf("multi-read reply holds %d results, %d asked for", n, want)
	}
	return nil
}

// names reads a vector of strings into one string's memory: the listing
// of a 10,000-child node is two allocations, not 10,000.
func (r *juteReader) names() []string {
	n := r.int32()
	if r.err != nil || n <= 0 {
		if n < -1 {
			r.err = fmt.Errorf("negative child count %d (malformed packet)", n)
		}
		return nil
	}
	if int(n) > len(r.b)/4 {
		r.err = fmt.Errorf("%d children in %d bytes (malformed packet)", n, len(r.b))
		return nil
	}
	// First pass: the total length, on a copy of the reader.
	scan := *r
	total := 0
	for i := int32(0); i < n && scan.err == nil; i++ {
		l := scan.int32()
		if l < 0 {
			r.err = fmt.Errorf("negative name length %d (malformed packet)", l)
			return nil
		}
		scan.take(int(l))
		total += int(l)
	}
	if scan.err != nil {
		r.err = scan.err
		return nil
	}
	all := make([]byte, 0, total)
	ends := make([]int, 0, n)
	for i := int32(0); i < n; i++ {
		all = append(all, r.take(int(r.int32()))...)
		ends = append(ends, len(all))
	}
	s := unsafe.String(unsafe.SliceData(all), len(all))
	out := make([]string, n)
	at := 0
	for i, end := range ends {
		out[i] = s[at:end]
		at = end
	}
	return out
}
