package txnlog

import (
	"encoding/binary"
	"fmt"
	"github.com/zkscope/zkscope/zkview/jute"
	"time"

	"github.com/go-zookeeper/zk"
)

// decoder reads one entry's records (jute, through [jute.Reader]): the
// first failure sticks, later reads return zero values.
type decoder struct{ jute.Reader }

// str returns a jute ustring.
func (d *decoder) str() string {
	return internString(d.Buffer())
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

// acls appends a vector of ACL to arena and returns the appended part.
func (d *decoder) acls(arena *[]zk.ACL) []zk.ACL {
	n := d.Count()
	start := len(*arena)
	for i := 0; i < n && d.Err() == nil; i++ {
		perms := d.Int32()
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
	h := d.Take(headerSize)
	if h == nil {
		return
	}
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
	d := decoder{jute.NewReader(b)}
	var t Txn
	d.header(&t)
	if d.Err() != nil {
		return t, fmt.Errorf("transaction header: %w", d.Err())
	}
	if err := st.record(&d, &t); err != nil {
		return t, fmt.Errorf("%s record of zxid 0x%x: %w", t.Op, t.Zxid, err)
	}
	if d.Left() >= 12 {
		st.digest = Digest{Version: d.Int32(), TreeDigest: d.Int64()}
		t.Digest = &st.digest
	}
	return t, nil
}

// record decodes the record that follows the header, by t.Op.
func (st *parseState) record(d *decoder, t *Txn) error {
	switch t.Op {
	case OpCreateSession:
		t.Timeout = d.Int32()
	case OpCloseSession:
		// Servers before 3.6 (or with closeSessionTxn disabled) write
		// no record: nothing, or only the digest, follows.
		if d.Left() != 0 && d.Left() != 12 {
			st.closeSession(d, t)
		}
	case OpMulti:
		st.multi(d, t)
	default:
		return st.simple(d, t)
	}
	return d.Err()
}

func (st *parseState) closeSession(d *decoder, t *Txn) {
	n := d.Count()
	for i := 0; i < n && d.Err() == nil; i++ {
		st.deletes = append(st.deletes, d.str())
	}
	t.Deletes = st.deletes[:len(st.deletes):len(st.deletes)]
}

// simple decodes the records a multi may hold too.
func (st *parseState) simple(d *decoder, t *Txn) error {
	switch t.Op {
	case OpCreate, OpCreate2:
		t.Path, t.Data, t.ACL = d.str(), d.Buffer(), d.acls(&st.acls)
		t.Ephemeral = d.Bool()
		if d.Err() == nil && d.Left() == 0 {
			t.ParentCVersion = -1 // a version 0 create: no parent cversion
		} else {
			t.ParentCVersion = d.Int32()
		}
	case OpCreateContainer:
		t.Path, t.Data, t.ACL = d.str(), d.Buffer(), d.acls(&st.acls)
		t.ParentCVersion = d.Int32()
	case OpCreateTTL:
		t.Path, t.Data, t.ACL = d.str(), d.Buffer(), d.acls(&st.acls)
		t.ParentCVersion, t.TTL = d.Int32(), d.Int64()
	case OpDelete, OpDeleteContainer:
		t.Path = d.str()
	case OpSetData, OpReconfig:
		t.Path, t.Data, t.Version = d.str(), d.Buffer(), d.Int32()
	case OpCheck:
		t.Path, t.Version = d.str(), d.Int32()
	case OpSetACL:
		t.Path, t.ACL, t.Version = d.str(), d.acls(&st.acls), d.Int32()
	case OpError:
		t.Err = d.Int32()
	default:
		return fmt.Errorf("unknown transaction type %d", int32(t.Op))
	}
	return d.Err()
}

// multi decodes a MultiTxn: a vector of (type, record bytes).
func (st *parseState) multi(d *decoder, t *Txn) {
	n := d.Count()
	for i := 0; i < n && d.Err() == nil; i++ {
		sub := Txn{Session: t.Session, Cxid: t.Cxid, Zxid: t.Zxid, Time: t.Time}
		sub.Op = Op(d.Int32())
		rec := d.Buffer()
		if d.Err() != nil {
			break
		}
		sd := decoder{jute.NewReader(rec)}
		if err := st.simple(&sd, &sub); err != nil {
			d.Fail(fmt.Errorf("multi op %d (%s): %w", i, sub.Op, err))
			break
		}
		st.ops = append(st.ops, sub)
	}
	t.Ops = st.ops[:len(st.ops):len(st.ops)]
}
