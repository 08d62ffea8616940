package wire

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/jute"
)

// MultiReadRequest is a request with op code op (OpMultiRead) whose body
// is a MultiOperationRecord of getData ops (no watches):
// each op a MultiHeader (type, done=false, err=-1) and a GetDataRequest,
// closed by the MultiHeader (-1, true, -1).
//
// The request is built in dst's memory when it is big enough.
func MultiReadRequest(dst []byte, xid, op int32, paths []string) []byte {
	size := 4 + 8 + 9
	for _, p := range paths {
		size += 9 + 4 + len(p) + 1
	}
	if cap(dst) < size {
		dst = make([]byte, 0, size)
	}
	w := &jute.Writer{B: append(dst[:0], 0, 0, 0, 0)}
	w.Int32(xid)
	w.Int32(op)
	for _, p := range paths {
		w.Int32(OpGetData)
		w.Bool(false)
		w.Int32(-1)
		w.String(p)
		w.Bool(false)
	}
	w.Int32(-1)
	w.Bool(true)
	w.Int32(-1)
	binary.BigEndian.PutUint32(w.B, uint32(len(w.B)-4))
	return w.B
}

// DecodeMultiReadResponse decodes a MultiResponse body (after the reply
// header) that answers want getData ops: per op a MultiHeader, then a
// GetDataResponse (data, stat) or, for type -1, an ErrorResponse (code),
// up to the done marker. Any other shape is an error; it never panics.
//
// Each result goes to each(j, ...) as it is decoded, j counting from 0; the
// data slices body. On an error, each may have had some of the results.
func DecodeMultiReadResponse(body []byte, want int, each func(j int, data []byte, st *zk.Stat, err error)) error {
	if want < 0 || want > len(body)/9+1 {
		// Every result takes at least a 9-byte header.
		return fmt.Errorf("multi-read reply of %d bytes cannot hold %d results (malformed packet)", len(body), want)
	}
	r := jute.NewReader(body)
	n := 0
	var st zk.Stat // one for the whole reply: each copies what it keeps
	for {
		typ, done, _ := r.Int32(), r.Bool(), r.Int32()
		if r.Err() != nil {
			return fmt.Errorf("decode multi-read reply: %w", r.Err())
		}
		if done {
			break
		}
		if n == want {
			return fmt.Errorf("multi-read reply holds more than the %d results asked for", want)
		}
		switch typ {
		case OpGetData:
			data := r.BufferCopy()
			st = r.Stat()
			if r.Err() != nil {
				return fmt.Errorf("decode multi-read reply: %w", r.Err())
			}
			each(n, data, &st, nil)
		case OpError:
			code := r.Int32()
			if r.Err() != nil {
				return fmt.Errorf("decode multi-read reply: %w", r.Err())
			}
			if code == CodeOK {
				code = math.MinInt32 // an error result must carry an error
			}
			each(n, nil, nil, CodeError(code))
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

// ScanMultiReadSizes follows a multi-read reply body being drained and
// returns how many bytes each op's result takes (header included), or nil
// when it does not parse (or r ends early). It reads only the headers and
// length fields and skips the data.
func ScanMultiReadSizes(r io.Reader) []int {
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
		case OpGetData:
			var lb [4]byte
			if _, err := io.ReadFull(r, lb[:]); err != nil {
				return nil
			}
			n := int64(max(int32(binary.BigEndian.Uint32(lb[:])), 0))
			if _, err := io.CopyN(io.Discard, r, n+jute.StatSize); err != nil {
				return nil
			}
			sizes = append(sizes, len(hdr)+len(lb)+int(n)+jute.StatSize)
		case OpGetChildren:
			size, ok := skipNames(r)
			if !ok {
				return nil
			}
			sizes = append(sizes, len(hdr)+size)
		case OpError:
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

// ReadOp is one sub-request of a mixed multi-read: getChildren (names
// only) or getData of path (server view).
type ReadOp struct {
	Code int32 // OpGetChildren or OpGetData
	Path string
}

// ReadResult is one sub-request's answer: names for getChildren, data and
// stat for getData, or err.
type ReadResult struct {
	Names []string
	Data  []byte
	Stat  zk.Stat
	Err   error
}

// MultiReadOpsRequest is [MultiReadRequest] for a mix of getChildren and
// getData ops (the server accepts both in one multi-read since 3.6).
func MultiReadOpsRequest(dst []byte, xid, op int32, ops []ReadOp) []byte {
	size := 4 + 8 + 9
	for _, o := range ops {
		size += 9 + 4 + len(o.Path) + 1
	}
	if cap(dst) < size {
		dst = make([]byte, 0, size)
	}
	w := &jute.Writer{B: append(dst[:0], 0, 0, 0, 0)}
	w.Int32(xid)
	w.Int32(op)
	for _, o := range ops {
		w.Int32(o.Code)
		w.Bool(false)
		w.Int32(-1)
		w.String(o.Path)
		w.Bool(false)
	}
	w.Int32(-1)
	w.Bool(true)
	w.Int32(-1)
	binary.BigEndian.PutUint32(w.B, uint32(len(w.B)-4))
	return w.B
}

// DecodeMultiReadOps decodes the reply to a mixed multi-read of want ops:
// each result goes to each(j, r) in order. Names and data are copies (one
// string per listing holds all its names), so the body can be reused.
func DecodeMultiReadOps(body []byte, want int, each func(j int, r ReadResult)) error {
	if want < 0 || want > len(body)/9+1 {
		return fmt.Errorf("multi-read reply of %d bytes cannot hold %d results (malformed packet)", len(body), want)
	}
	r := jute.NewReader(body)
	n := 0
	for {
		typ, done, _ := r.Int32(), r.Bool(), r.Int32()
		if r.Err() != nil {
			return fmt.Errorf("decode multi-read reply: %w", r.Err())
		}
		if done {
			break
		}
		if n == want {
			return fmt.Errorf("multi-read reply holds more than the %d results asked for", want)
		}
		var res ReadResult
		switch typ {
		case OpGetData:
			res.Data = r.BufferCopy()
			res.Stat = r.Stat()
		case OpGetChildren:
			res.Names = names(&r)
		case OpError:
			code := r.Int32()
			if code == CodeOK {
				code = math.MinInt32
			}
			res.Err = CodeError(code)
		default:
			return fmt.Errorf("unexpected op type %d in multi-read reply", typ)
		}
		if r.Err() != nil {
			return fmt.Errorf("decode multi-read reply: %w", r.Err())
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
func names(r *jute.Reader) []string {
	n := r.Int32()
	if r.Err() != nil || n <= 0 {
		if n < -1 {
			r.Fail(fmt.Errorf("negative child count %d (malformed packet)", n))
		}
		return nil
	}
	if int(n) > r.Left()/4 {
		r.Fail(fmt.Errorf("%d children in %d bytes (malformed packet)", n, r.Left()))
		return nil
	}
	// First pass: the total length, on a copy of the reader.
	scan := *r
	total := 0
	for i := int32(0); i < n && scan.Err() == nil; i++ {
		l := scan.Int32()
		if l < 0 {
			r.Fail(fmt.Errorf("negative name length %d (malformed packet)", l))
			return nil
		}
		scan.Take(int(l))
		total += int(l)
	}
	if scan.Err() != nil {
		r.Fail(scan.Err())
		return nil
	}
	all := make([]byte, 0, total)
	ends := make([]int, 0, n)
	for i := int32(0); i < n; i++ {
		all = append(all, r.Take(int(r.Int32()))...)
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
