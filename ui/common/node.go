package common

import (
	"path"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// Node is what is known about one node, copied out of the tree cache.
type Node struct {
	Path    string
	Stat    zk.Stat
	Data    []byte
	HasStat bool
	Gone    bool
	Err     error
}

// NodeKind names a node's type from its stat and name.
type NodeKind struct {
	Ephemeral, Sequential, Container, TTL bool
	TTLMillis                             int64
}

// HasSeqSuffix reports whether name ends in a sequential node's counter,
// the ten digits ZooKeeper appends (a longer run of digits is just a
// number in the name). It runs for every row of the tree on every frame,
// so it checks bytes rather than matching a pattern.
func HasSeqSuffix(name string) bool {
	n := len(name)
	if n < 10 {
		return false
	}
	for i := n - 10; i < n; i++ {
		if name[i] < '0' || name[i] > '9' {
			return false
		}
	}
	return n == 10 || name[n-11] < '0' || name[n-11] > '9'
}

// KindOf is a node's type as its stat and name tell it.
func KindOf(name string, st zk.Stat) NodeKind {
	var k NodeKind
	owner := uint64(st.EphemeralOwner)
	switch {
	case owner == 0:
	case owner == 1<<63:
		k.Container = true
	case owner>>56 == 0xff:
		k.TTL = true
		k.TTLMillis = int64(owner & (1<<56 - 1))
	default:
		k.Ephemeral = true
	}
	k.Sequential = HasSeqSuffix(name)
	return k
}

// IsTTL reports whether create flags make a TTL node.
func IsTTL(flags int32) bool {
	return flags == zk.FlagTTL || flags == zk.FlagPersistentSequentialWithTTL
}

// Made remembers the container and TTL nodes zkscope created this
// session. ZooKeeper reports them to clients as plain persistent ones
// (their ephemeralOwner reads 0), so the tree and the detail pane can mark
// them only when zkscope itself made them. Each is keyed by path and tied
// to the node's czxid once seen (a node deleted and created again by
// someone else is not marked). The zero value is ready to use.
type Made struct {
	nodes map[string]madeNode
}

type madeNode struct {
	flags int32
	ttl   time.Duration
	czxid int64 // 0 until a stat of the node was seen
}

// Note records a node zkscope created (only containers and TTL nodes are
// kept).
func (m *Made) Note(p string, flags int32, ttl time.Duration) {
	if flags != zk.FlagContainer && !IsTTL(flags) {
		return
	}
	if m.nodes == nil {
		m.nodes = map[string]madeNode{}
	}
	m.nodes[p] = madeNode{flags: flags, ttl: ttl}
}

// KindOf is [KindOf] plus what zkscope knows of the nodes it made.
func (m *Made) KindOf(p, name string, st zk.Stat) NodeKind {
	k := KindOf(name, st)
	mt, ok := m.nodes[p]
	if !ok || st.EphemeralOwner != 0 || mt.czxid != 0 && mt.czxid != st.Czxid {
		return k
	}
	if mt.czxid == 0 && st.Czxid != 0 {
		mt.czxid = st.Czxid
		m.nodes[p] = mt
	}
	switch {
	case mt.flags == zk.FlagContainer:
		k.Container = true
	case IsTTL(mt.flags):
		k.TTL, k.TTLMillis = true, mt.ttl.Milliseconds()
	}
	return k
}

// SplitPath splits a znode path into its parent ("" for the root) and its
// last element ("/" for the root).
func SplitPath(p string) (dir, name string) {
	if p == "/" || p == "" {
		return "", "/"
	}
	i := strings.LastIndexByte(p, '/')
	dir, name = p[:i], p[i+1:]
	if dir == "" {
		dir = "/"
	}
	return dir, name
}

// LastElem is the last element of a path.
func LastElem(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	return p
}

// CleanPath makes p an absolute, clean znode path.
func CleanPath(p string) string {
	return path.Clean("/" + strings.TrimSpace(p))
}
