package txnlog

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"hash"
	"hash/adler32"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-zookeeper/zk"
)

// snapMagic is "ZKSN", the first four bytes of every snapshot.
const snapMagic = 0x5a4b534e

// openACL is the ACL cache's id of world:anyone with every permission.
const openACL = -1

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

// ZooKeeper (with extended types, 3.5.3 and later) keeps the marks of
// containers and TTL nodes in the ephemeral owner field.
const (
	containerOwner = math.MinInt64       // 0x8000000000000000
	ttlMask        = -0x0100000000000000 // 0xff00000000000000: the high byte of a TTL node's mark
)

// Owner returns the session owning an ephemeral node, or 0 for a node of no
// session (persistent, container or TTL).
func (n Node) Owner() int64 {
	if o := n.Stat.EphemeralOwner; !n.Container() && o&ttlMask != ttlMask {
		return o
	}
	return 0
}

// Container reports whether n is a container node.
func (n Node) Container() bool { return n.Stat.EphemeralOwner == containerOwner }

// TTL returns a TTL node's time to live (ms), and whether n is one: the
// mark's high byte is 0xff, the next two (the extended type) are zero and
// the low 40 bits hold the TTL.
func (n Node) TTL() (int64, bool) {
	o := n.Stat.EphemeralOwner
	if o == containerOwner || o&ttlMask != ttlMask || o>>40&0xffff != 0 {
		return 0, false
	}
	return o & (1<<40 - 1), true
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
// nodes one by one. It checks the file's Adler-32 seal after the last node.
type SnapshotReader struct {
	path     string
	zxid     int64
	f        *os.File
	in       io.Reader // f, or a gzip reader over it
	br       *bufio.Reader
	sum      hash.Hash32 // of every byte consumed
	off      int64
	sessions []Session
	acls     map[int64][]zk.ACL
	big      []byte
	data     []byte // the current node's data
	bad      *snapErr
	done     bool
}

// OpenSnapshot opens a snapshot file (snapshot.<hex zxid>, or .gz) and
// reads its header, sessions and ACLs. Snappy-compressed snapshots are
// refused.
func OpenSnapshot(file string) (*SnapshotReader, error) {
	zxid, _ := FileZxid(strings.TrimSuffix(file, ".gz"), "snapshot")
	if strings.HasSuffix(file, ".snappy") {
		return nil, fmt.Errorf("%s: snappy-compressed snapshots are not supported (decompress it first)", file)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("open snapshot: %w", err)
	}
	s := &SnapshotReader{path: file, zxid: zxid, f: f, in: f, sum: adler32.New()}
	if strings.HasSuffix(file, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		s.in = gz
	}
	s.br = bufio.NewReaderSize(s.in, 256<<10)
	if err := s.start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s at offset %d: %w", file, s.off, err)
	}
	return s, nil
}

// start reads the file header, the sessions and the ACL cache.
func (s *SnapshotReader) start() error {
	if magic := uint32(s.int32()); magic != snapMagic {
		return errors.New("not a ZooKeeper snapshot (no ZKSN magic)")
	}
	if v := s.int32(); v != 2 {
		return fmt.Errorf("unknown snapshot format version %d (want 2)", v)
	}
	s.int64() // dbid
	n := s.int32()
	for i := int32(0); i < n && s.err() == nil; i++ {
		s.sessions = append(s.sessions, Session{ID: s.int64(), Timeout: s.int32()})
	}
	s.acls = map[int64][]zk.ACL{openACL: zk.WorldACL(zk.PermAll)}
	n = s.int32()
	for i := int32(0); i < n && s.err() == nil; i++ {
		id := s.int64()
		cnt := s.int32()
		acl := []zk.ACL{}
		for j := int32(0); j < cnt && s.err() == nil; j++ {
			perms := s.int32()
			scheme := internString(s.buffer())
			acl = append(acl, zk.ACL{Perms: perms, Scheme: scheme, ID: internString(s.buffer())})
		}
		s.acls[id] = acl
	}
	return s.err()
}

// Zxid returns the zxid in the snapshot's file name.
func (s *SnapshotReader) Zxid() int64 { return s.zxid }

// Sessions returns the sessions the snapshot records as open.
func (s *SnapshotReader) Sessions() []Session { return s.sessions }

// Next returns the next node, or io.EOF after the last one (when the file's
// checksum has been checked too). Data is valid until the next call to
// Next; ACL slices are shared by every node with the same ACL.
func (s *SnapshotReader) Next() (Node, error) {
	if s.done {
		return Node{}, io.EOF
	}
	p := string(s.buffer())
	if err := s.err(); err != nil {
		return Node{}, s.fail(err)
	}
	if p == "/" {
		s.done = true
		if err := s.seal(); err != nil {
			return Node{}, s.fail(err)
		}
		return Node{}, io.EOF
	}
	if p == "" {
		p = "/"
	}
	if d := s.buffer(); d != nil {
		s.data = append(s.data[:0], d...)
	} else {
		s.data = nil
	}
	n := Node{Path: p, Data: s.data}
	aclID := s.int64()
	st := &n.Stat
	st.Czxid, st.Mzxid, st.Ctime, st.Mtime = s.int64(), s.int64(), s.int64(), s.int64()
	st.Version, st.Cversion, st.Aversion = s.int32(), s.int32(), s.int32()
	st.EphemeralOwner, st.Pzxid = s.int64(), s.int64()
	st.DataLength = int32(len(n.Data))
	if err := s.err(); err != nil {
		return Node{}, s.fail(err)
	}
	acl, ok := s.acls[aclID]
	if !ok {
		return Node{}, s.fail(fmt.Errorf("node %s refers to ACL %d, which the snapshot does not hold", p, aclID))
	}
	n.ACL = acl
	return n, nil
}

// seal checks the Adler-32 of everything read against the value the
// server wrote after the last node, and the same after the digest that
// 3.6+ servers append.
func (s *SnapshotReader) seal() error {
	for i := 0; i < 2; i++ {
		want := uint64(s.sum.Sum32())
		got := uint64(s.int64())
		if p := string(s.buffer()); s.err() == nil && p != "/" {
			return fmt.Errorf("bad seal %q after the checksum", p)
		}
		if err := s.err(); err != nil {
			if i > 0 && errors.Is(err, io.ErrUnexpectedEOF) {
				return nil // no digest: a server before 3.6
			}
			return err
		}
		if got != want {
			return fmt.Errorf("checksum mismatch (file says %#x, content has %#x)", got, want)
		}
		if _, err := s.br.Peek(1); err == io.EOF {
			return nil
		}
		s.int64() // the digest: zxid, version, tree digest
		s.int32()
		s.int64()
	}
	return nil
}

func (s *SnapshotReader) fail(err error) error {
	s.done = true
	return fmt.Errorf("%s at offset %d: %w", s.path, s.off, err)
}

// Close closes the file.
func (s *SnapshotReader) Close() error { return s.f.Close() }

// ReadSnapshot reads a whole snapshot file into memory, with each node's
// NumChildren counted.
func ReadSnapshot(file string) (*Snapshot, error) {
	s, err := OpenSnapshot(file)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	snap := &Snapshot{Zxid: s.Zxid(), Sessions: s.Sessions()}
	index := map[string]int{}
	for {
		n, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		n.Data = append([]byte(nil), n.Data...)
		if n.Path != "/" {
			if i, ok := index[path.Dir(n.Path)]; ok {
				snap.Nodes[i].Stat.NumChildren++
			}
		}
		index[n.Path] = len(snap.Nodes)
		snap.Nodes = append(snap.Nodes, n)
	}
	return snap, nil
}

// LatestSnapshot returns the path of the newest snapshot.* file in dir (or
// dir/version-2) whose zxid is at most before, or "" when there is none.
// Pass math.MaxInt64 for the newest of all.
func LatestSnapshot(dir string, before int64) (string, error) {
	best, bestZxid := "", int64(math.MinInt64)
	for _, d := range []string{dir, filepath.Join(dir, "version-2")} {
		ents, err := os.ReadDir(d)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && d != dir {
				continue
			}
			return "", fmt.Errorf("read snapshot directory: %w", err)
		}
		for _, e := range ents {
			z, ok := FileZxid(strings.TrimSuffix(e.Name(), ".gz"), "snapshot")
			if ok && z <= before && z > bestZxid {
				best, bestZxid = filepath.Join(d, e.Name()), z
			}
		}
		if best != "" {
			break
		}
	}
	return best, nil
}
