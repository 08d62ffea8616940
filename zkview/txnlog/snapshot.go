package txnlog

import (
	"errors"

	"github.com/go-zookeeper/zk"
)

// Session is a session a snapshot records as open, with its negotiated
// timeout.
type Session struct {
	ID      int64
	Timeout int32 // ms
}

// Node is one znode of a snapshot. Stat.EphemeralOwner is the owning
// session of an ephemeral node; Stat.DataLength is len(Data); Stat.NumChildren
// is filled in by [ReadSnapshot] only (a streaming [SnapshotReader] does not
// know it yet).
type Node struct {
	Path string
	Data []byte
	ACL  []zk.ACL
	Stat zk.Stat
}

// Snapshot is the whole state a snapshot file holds: the data tree as of
// Zxid (the zxid in the file's name: every transaction up to it, and perhaps
// a few after it, is applied — a snapshot is fuzzy; replay the logs from
// Zxid+1, which re-applies harmlessly) and the open sessions.
type Snapshot struct {
	Zxid     int64
	Sessions []Session
	Nodes    []Node // in the file's order: parents before children
}

// SnapshotReader streams a snapshot file: its sessions first, then its
// nodes one by one.
type SnapshotReader struct {
	path string
}

// OpenSnapshot opens a snapshot file (snapshot.<hex zxid>) and reads its
// header and sessions.
func OpenSnapshot(path string) (*SnapshotReader, error) {
	return nil, errors.New("txnlog: snapshots not implemented yet")
}

// Zxid returns the zxid in the snapshot's file name.
func (s *SnapshotReader) Zxid() int64 { return 0 }

// Sessions returns the sessions the snapshot records as open.
func (s *SnapshotReader) Sessions() []Session { return nil }

// Next returns the next node, or io.EOF after the last one (when the file's
// checksum has been checked too). Data and ACL are valid until the next
// call to Next.
func (s *SnapshotReader) Next() (Node, error) {
	return Node{}, errors.New("txnlog: snapshots not implemented yet")
}

// Close closes the file.
func (s *SnapshotReader) Close() error { return nil }

// ReadSnapshot reads a whole snapshot file into memory.
func ReadSnapshot(path string) (*Snapshot, error) {
	return nil, errors.New("txnlog: snapshots not implemented yet")
}

// LatestSnapshot returns the path of the newest snapshot.* file in dir (or
// dir/version-2) whose zxid is at most before, or "" when there is none.
// Pass math.MaxInt64 for the newest of all.
func LatestSnapshot(dir string, before int64) (string, error) {
	return "", errors.New("txnlog: snapshots not implemented yet")
}
