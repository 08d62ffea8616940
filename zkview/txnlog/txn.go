// Package txnlog reads ZooKeeper's transaction logs (log.<zxid>) and
// snapshots (snapshot.<zxid>) as the server writes them in its data
// directory, without a running server: a copy of a production data
// directory is enough.
//
// A [Reader] streams the transactions of one or more log files in zxid
// order with constant memory: each entry's Adler-32 checksum is checked, the
// preallocated zero padding after the last entry ends a file cleanly, and so
// does a truncated last entry (a server stopped mid-write; see
// [Reader.Truncated]). A checksum mismatch is an error naming the file and
// the entry's offset.
//
// The format is the one of ZooKeeper 3.4 to 3.8 (file format version 2):
// a file header (magic "ZKLG", version, database id), then per entry a
// checksum, a length, the jute-serialised transaction header and record,
// an optional digest (3.6 and later) and an end-of-record byte 'B'.
//
// The package only reads files; it must not import zkview's client code or
// any ui package.
package txnlog

import (
	"strconv"
	"time"

	"github.com/go-zookeeper/zk"
)

// Op is a transaction's type: ZooKeeper's OpCode values.
type Op int32

// The OpCode values a transaction log holds (and a few more that a log
// never should, named so that a surprise prints well).
const (
	OpNotification    Op = 0
	OpCreate          Op = 1
	OpDelete          Op = 2
	OpExists          Op = 3
	OpGetData         Op = 4
	OpSetData         Op = 5
	OpGetACL          Op = 6
	OpSetACL          Op = 7
	OpGetChildren     Op = 8
	OpSync            Op = 9
	OpPing            Op = 11
	OpGetChildren2    Op = 12
	OpCheck           Op = 13
	OpMulti           Op = 14
	OpCreate2         Op = 15
	OpReconfig        Op = 16
	OpCheckWatches    Op = 17
	OpRemoveWatches   Op = 18
	OpCreateContainer Op = 19
	OpDeleteContainer Op = 20
	OpCreateTTL       Op = 21
	OpMultiRead       Op = 22
	OpAuth            Op = 100
	OpSetWatches      Op = 101
	OpSASL            Op = 102
	OpGetEphemerals   Op = 103
	OpGetAllChildren  Op = 104
	OpSetWatches2     Op = 105
	OpWhoAmI          Op = 107
	OpCreateSession   Op = -10
	OpCloseSession    Op = -11
	OpError           Op = -1
)

var opNames = map[Op]string{
	OpNotification: "notification", OpCreate: "create", OpDelete: "delete",
	OpExists: "exists", OpGetData: "getData", OpSetData: "setData",
	OpGetACL: "getACL", OpSetACL: "setACL", OpGetChildren: "getChildren",
	OpSync: "sync", OpPing: "ping", OpGetChildren2: "getChildren2",
	OpCheck: "check", OpMulti: "multi", OpCreate2: "create2",
	OpReconfig: "reconfig", OpCheckWatches: "checkWatches",
	OpRemoveWatches: "removeWatches", OpCreateContainer: "createContainer",
	OpDeleteContainer: "deleteContainer", OpCreateTTL: "createTtl",
	OpMultiRead: "multiRead", OpAuth: "auth", OpSetWatches: "setWatches",
	OpSASL: "sasl", OpGetEphemerals: "getEphemerals",
	OpGetAllChildren: "getAllChildrenNumber", OpSetWatches2: "setWatches2",
	OpWhoAmI: "whoAmI", OpCreateSession: "createSession",
	OpCloseSession: "closeSession", OpError: "error",
}

// String returns ZooKeeper's own name of the operation, as its tools print
// it ("create", "createTtl", "closeSession", ...), or "op(N)" for a value
// it does not know.
func (o Op) String() string {
	if s, ok := opNames[o]; ok {
		return s
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// IsCreate reports whether o creates a node (create, create2,
// createContainer, createTTL).
func (o Op) IsCreate() bool {
	return o == OpCreate || o == OpCreate2 || o == OpCreateContainer || o == OpCreateTTL
}

// Failed reports whether t is a multi that failed as a whole: one of its
// sub-operations is an error, so the server applied none of them (the
// others are recorded as they were asked, not as done).
func (t Txn) Failed() bool {
	for _, op := range t.Ops {
		if op.Op == OpError {
			return true
		}
	}
	return false
}

// Expired reports whether t is a closeSession the server issued itself
// rather than the client: the session expired. ZooKeeper's session tracker
// closes an expired session with cxid 0, while clients number their
// requests from 1, so a client's own close never has cxid 0.
func (t Txn) Expired() bool {
	return t.Op == OpCloseSession && t.Cxid == 0
}

// Txn is one transaction of the log: the header (session, cxid, zxid, time,
// type) and the fields of its record that the type carries.
//
// Data, ACL, Ops, Deletes and Digest (and the same fields of each of Ops)
// may share the reader's buffers: they are valid only until the next call
// to [Reader.Next]. Copy them (see [Txn.Clone]) to keep them longer.
// Strings (Path, Deletes' elements, ACL schemes and ids) are ordinary Go
// strings and stay valid.
type Txn struct {
	Session   int64     // the header's clientId: the session that asked
	Cxid      int32     // the client's request number
	Zxid      int64     // the transaction id
	Time      time.Time // the header's time (ms resolution, the leader's clock)
	Op        Op        // the transaction's type
	Path      string    // create*, delete, setData, setACL, check
	Data      []byte    // create*, setData
	Ephemeral bool      // create, create2: the ephemeral flag
	TTL       int64     // createTTL: the time to live (ms)
	Version   int32     // setData, check, setACL: the version
	ACL       []zk.ACL  // create*, setACL
	Timeout   int32     // createSession: the negotiated timeout (ms)
	Err       int32     // error: ZooKeeper's error code (also multi sub-ops that failed)
	Ops       []Txn     // multi: the sub-transactions, header fields copied from the multi
	Deletes   []string  // closeSession: the ephemeral paths it deleted (3.6+, when the server writes them)

	// ParentCVersion is the parent's child version a create* records.
	ParentCVersion int32
	// Digest is the tree digest the server appended (3.6+), or nil.
	Digest *Digest
}

// Digest is the digest of the data tree a 3.6+ server appends to each
// transaction (zookeeper.digest.enabled).
type Digest struct {
	Version    int32
	TreeDigest int64
}

// Clone returns a copy of t that shares nothing with the reader's buffers.
func (t Txn) Clone() Txn {
	c := t
	if t.Data != nil {
		c.Data = append([]byte(nil), t.Data...)
	}
	if t.ACL != nil {
		c.ACL = append([]zk.ACL(nil), t.ACL...)
	}
	if t.Deletes != nil {
		c.Deletes = append([]string(nil), t.Deletes...)
	}
	if t.Digest != nil {
		d := *t.Digest
		c.Digest = &d
	}
	if t.Ops != nil {
		c.Ops = make([]Txn, len(t.Ops))
		for i, op := range t.Ops {
			c.Ops[i] = op.Clone()
		}
	}
	return c
}
