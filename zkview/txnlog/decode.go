package txnlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
)

// errShort is a record that ends before its fields do.
var errShort = errors.New("record ends early")

// decoder reads jute's binary encoding (big-endian integers, length-prefixed
// buffers, strings and vectors; -1 for null) from one entry's bytes. The
// first failure sticks: later reads return zero values, and err says why.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) left() int { return len(d.b) - d.off }

// fail records err (the first one) and makes every later read fail too.
func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.off = len(d.b)
}

// take returns the next n bytes, sharing d.b.
func (d *decoder) take(n int) []byte {
	if n < 0 || n > d.left() {
		d.fail(errShort)
		return nil
	}
	d.off += n
	return d.b[d.off-n : d.off : d.off]
}

// need consumes n bytes, or fails.
func (d *decoder) need(n int) bool {
	if d.left() < n {
		d.fail(errShort)
		return false
	}
	d.off += n
	return true
}

func (d *decoder) int32() int32 {
	if !d.need(4) {
		return 0
	}
	return int32(binary.BigEndian.Uint32(d.b[d.off-4:]))
}

func (d *decoder) int64() int64 {
	if !d.need(8) {
		return 0
	}
	return int64(binary.BigEndian.Uint64(d.b[d.off-8:]))
}

func (d *decoder) bool() bool {
	return d.need(1) && d.b[d.off-1] != 0
}

// buffer returns a jute buffer (nil for a null one), sharing d's bytes.
func (d *decoder) buffer() []byte {
	n := d.int32()
	if d.err != nil || n == -1 {
		return nil
	}
	if n < -1 {
		d.fail(fmt.Errorf("negative length %d", n))
		return nil
	}
	return d.take(int(n))
}

// str returns a jute ustring.
func (d *decoder) str() string {
	return internString(d.buffer())
}

// internString converts p, without allocating for the names ACLs repeat.
func internString(p []byte) string {
	switch string(p) { // compared without allocating
	case "":
		return ""
	case "world":
		return "world"
	case "anyone":
		return "anyone"
	case "digest":
		return "digest"
	case "ip":
		return "ip"
	case "auth":
		return "auth"
	case "sasl":
		return "sasl"
	case "x509":
		return "x509"
	}
	return string(p)
}

// count reads a vector's length; a null vector (-1) has none.
func (d *decoder) count() int {
	n := d.int32()
	if n < -1 || int(n) > d.left() {
		d.fail(fmt.Errorf("bad vector length %d", n))
		return 0
	}
	if n == -1 {
		return 0
	}
	return int(n)
}

// acls appends a vector of ACL to arena and returns the appended part.
func (d *decoder) acls(arena *[]zk.ACL) []zk.ACL {
	n := d.count()
	start := len(*arena)
	for i := 0; i < n && d.err == nil; i++ {
		perms := d.int32()
		scheme := d.str()
		id := d.str()
		*arena = append(*arena, zk.ACL{Perms: perms, Scheme: scheme, ID: id})
	}
	a := *arena
	return a[start:len(a):len(a)]
}

// headerSize is a TxnHeader's: clientId, cxid, zxid, time, type.
const headerSize = 8 + 4 + 8 + 8 + 4

// header reads a TxnHeader into t, its length checked once.
func (d *decoder) header(t *Txn) {
	if !d.need(headerSize) {
		return
	}
	h := d.b[d.off-headerSize : d.off]
	t.Session = int64(binary.BigEndian.Uint64(h))
	t.Cxid = int32(binary.BigEndian.Uint32(h[8:]))
	t.Zxid = int64(binary.BigEndian.Uint64(h[12:]))
	t.Time = time.UnixMilli(int64(binary.BigEndian.Uint64(h[20:])))
	t.Op = Op(int32(binary.BigEndian.Uint32(h[28:])))
}

// parseState is what decoding an entry reuses from one entry to the next.
type parseState struct {
	acls    []zk.ACL
	ops     []Txn
	deletes []string
	digest  Digest
}

// parseEntry decodes one entry's bytes (header, record, optional digest)
// into a Txn whose slices share b and st.
func (st *parseState) parseEntry(b []byte) (Txn, error) {
	st.acls, st.ops, st.deletes = st.acls[:0], st.ops[:0], st.deletes[:0]
	d := decoder{b: b}
	var t Txn
	d.header(&t)
	if d.err != nil {
		return t, fmt.Errorf("transaction header: %w", d.err)
	}
	if err := st.record(&d, &t); err != nil {
		return t, fmt.Errorf("%s record of zxid 0x%x: %w", t.Op, t.Zxid, err)
	}
	if d.left() >= 12 {
		st.digest = Digest{Version: d.int32(), TreeDigest: d.int64()}
		t.Digest = &st.digest
	}
	return t, nil
}

// record decodes the record that follows the header, by t.Op.
func (st *parseState) record(d *decoder, t *Txn) error {
	switch t.Op {
	case OpCreateSession:
		t.Timeout = d.int32()
	case OpCloseSession:
		// Servers before 3.6 (or with closeSessionTxn disabled) write
		// no record: nothing, or only the digest, follows.
		if d.left() != 0 && d.left() != 12 {
			st.closeSession(d, t)
		}
	case OpMulti:
		st.multi(d, t)
	default:
		return st.simple(d, t)
	}
	return d.err
}

func (st *parseState) closeSession(d *decoder, t *Txn) {
	n := d.count()
	for i := 0; i < n && d.err == nil; i++ {
		st.deletes = append(st.deletes, d.str())
	}
	t.Deletes = st.deletes[:len(st.deletes):len(st.deletes)]
}

// simple decodes the records a multi may hold too.
func (st *parseState) simple(d *decoder, t *Txn) error {
	switch t.Op {
	case OpCreate, OpCreate2:
		t.Path, t.Data, t.ACL = d.str(), d.buffer(), d.acls(&st.acls)
		t.Ephemeral = d.bool()
		if d.err == nil && d.left() == 0 {
			t.ParentCVersion = -1 // a version 0 create: no parent cversion
		} else {
			t.ParentCVersion = d.int32()
		}
	case OpCreateContainer:
		t.Path, t.Data, t.ACL = d.str(), d.buffer(), d.acls(&st.acls)
		t.ParentCVersion = d.int32()
	case OpCreateTTL:
		t.Path, t.Data, t.ACL = d.str(), d.buffer(), d.acls(&st.acls)
		t.ParentCVersion, t.TTL = d.int32(), d.int64()
	case OpDelete, OpDeleteContainer:
		t.Path = d.str()
	case OpSetData, OpReconfig:
		t.Path, t.Data, t.Version = d.str(), d.buffer(), d.int32()
	case OpCheck:
		t.Path, t.Version = d.str(), d.int32()
	case OpSetACL:
		t.Path, t.ACL, t.Version = d.str(), d.acls(&st.acls), d.int32()
	case OpError:
		t.Err = d.int32()
	default:
		return fmt.Errorf("unknown transaction type %d", int32(t.Op))
	}
	return d.err
}

// multi decodes a MultiTxn: a vector of (type, record bytes).
func (st *parseState) multi(d *decoder, t *Txn) {
	n := d.count()
	for i := 0; i < n && d.err == nil; i++ {
		sub := Txn{Session: t.Session, Cxid: t.Cxid, Zxid: t.Zxid, Time: t.Time}
		sub.Op = Op(d.int32())
		rec := d.buffer()
		if d.err != nil {
			break
		}
		sd := decoder{b: rec}
		if err := st.simple(&sd, &sub); err != nil {
			d.fail(fmt.Errorf("multi op %d (%s): %w", i, sub.Op, err))
			break
		}
		st.ops = append(st.ops, sub)
	}
	t.Ops = st.ops[:len(st.ops):len(st.ops)]
}
