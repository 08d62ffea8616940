// Package jute is ZooKeeper's binary record encoding, the one codec zkscope
// reads and writes it with: the requests and replies zkscope sends on
// connections of its own (zkview/wire) and the transaction logs and
// snapshots it reads from disk (zkview/txnlog). Integers are big-endian;
// buffers, strings and vectors are prefixed by their length, -1 for null;
// a record is its fields in the order of the server's zookeeper.jute.
//
// It imports nothing of zkscope.
package jute

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// ErrShort is a record that ends before its fields do.
var ErrShort = errors.New("record ends early (malformed)")

// StatSize is a serialized Stat: 4 longs, 3 ints, a long, 2 ints, a long.
const StatSize = 68

// Reader reads fields from one record's bytes. The first failure sticks:
// later reads return zero values and Err says why, so a decoder checks Err
// once at the end of a record and can never index out of range.
type Reader struct {
	b   []byte
	off int
	err error
}

// NewReader reads b.
func NewReader(b []byte) Reader { return Reader{b: b} }

// Err is the first failure, or nil.
func (r *Reader) Err() error { return r.err }

// Left is how many bytes are unread.
func (r *Reader) Left() int { return len(r.b) - r.off }

// Fail records err (the first one sticks) and makes every later read fail.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.off = len(r.b)
}

// Take returns the next n bytes, sharing the record's memory.
func (r *Reader) Take(n int) []byte {
	if n < 0 || n > r.Left() {
		r.Fail(ErrShort)
		return nil
	}
	r.off += n
	return r.b[r.off-n : r.off : r.off]
}

// need consumes n bytes, or fails.
func (r *Reader) need(n int) bool {
	if r.Left() < n {
		r.Fail(ErrShort)
		return false
	}
	r.off += n
	return true
}

// Int32 reads an int.
func (r *Reader) Int32() int32 {
	if !r.need(4) {
		return 0
	}
	return int32(binary.BigEndian.Uint32(r.b[r.off-4:]))
}

// Int64 reads a long.
func (r *Reader) Int64() int64 {
	if !r.need(8) {
		return 0
	}
	return int64(binary.BigEndian.Uint64(r.b[r.off-8:]))
}

// Bool reads a boolean (one byte).
func (r *Reader) Bool() bool {
	return r.need(1) && r.b[r.off-1] != 0
}

// Buffer reads a buffer (nil for a null one), sharing the record's memory.
func (r *Reader) Buffer() []byte {
	n := r.Int32()
	if r.err != nil || n == -1 {
		return nil
	}
	if n < -1 {
		r.Fail(fmt.Errorf("negative length %d (malformed)", n))
		return nil
	}
	return r.Take(int(n))
}

// BufferCopy is [Reader.Buffer] copied, so that a caller keeping one
// node's data does not pin the whole reply (nil for a null buffer).
func (r *Reader) BufferCopy() []byte {
	v := r.Buffer()
	if v == nil {
		return nil
	}
	return append(make([]byte, 0, len(v)), v...)
}

// Count reads a vector's length; a null vector (-1) has none. A length the
// rest of the record cannot hold fails.
func (r *Reader) Count() int {
	n := r.Int32()
	if n < -1 || int(n) > r.Left() {
		r.Fail(fmt.Errorf("bad vector length %d (malformed)", n))
		return 0
	}
	if n == -1 {
		return 0
	}
	return int(n)
}

// Stat reads a Stat.
func (r *Reader) Stat() zk.Stat {
	if !r.need(StatSize) {
		return zk.Stat{}
	}
	b := r.b[r.off-StatSize : r.off]
	be := binary.BigEndian
	return zk.Stat{
		Czxid: int64(be.Uint64(b)), Mzxid: int64(be.Uint64(b[8:])),
		Ctime: int64(be.Uint64(b[16:])), Mtime: int64(be.Uint64(b[24:])),
		Version: int32(be.Uint32(b[32:])), Cversion: int32(be.Uint32(b[36:])), Aversion: int32(be.Uint32(b[40:])),
		EphemeralOwner: int64(be.Uint64(b[44:])), DataLength: int32(be.Uint32(b[52:])),
		NumChildren: int32(be.Uint32(b[56:])), Pzxid: int64(be.Uint64(b[60:])),
	}
}

// Writer appends fields to B.
type Writer struct{ B []byte }

// Int32 appends an int.
func (w *Writer) Int32(v int32) { w.B = binary.BigEndian.AppendUint32(w.B, uint32(v)) }

// Int64 appends a long.
func (w *Writer) Int64(v int64) { w.B = binary.BigEndian.AppendUint64(w.B, uint64(v)) }

// Bool appends a boolean.
func (w *Writer) Bool(v bool) {
	if v {
		w.B = append(w.B, 1)
	} else {
		w.B = append(w.B, 0)
	}
}

// Buffer appends a buffer (null for nil).
func (w *Writer) Buffer(v []byte) {
	if v == nil {
		w.Int32(-1)
		return
	}
	w.Int32(int32(len(v)))
	w.B = append(w.B, v...)
}

// String appends a string.
func (w *Writer) String(v string) {
	w.Int32(int32(len(v)))
	w.B = append(w.B, v...)
}
