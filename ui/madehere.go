package ui

import (
	"time"

	"github.com/go-zookeeper/zk"
)

// ZooKeeper reports container and TTL nodes to clients as plain
// persistent ones (their ephemeralOwner reads 0), so the tree can mark them
// only when zkscope itself created them. madeType remembers how, for this
// session, keyed by path and tied to the node's czxid once seen (a node
// deleted and created again by someone else is not marked).
type madeType struct {
	flags int32
	ttl   time.Duration
	czxid int64 // 0 until a stat of the node was seen
}

// noteMade records a node zkscope created as a container or TTL node.
func (m *Model) noteMade(p string, flags int32, ttl time.Duration) {
	if flags != zk.FlagContainer && !isTTL(flags) {
		return
	}
	if m.made == nil {
		m.made = map[string]madeType{}
	}
	m.made[p] = madeType{flags: flags, ttl: ttl}
}

// nodeKindOf is [kindOf] plus what zkscope knows of the nodes it made.
func (m *Model) nodeKindOf(p, name string, st zk.Stat) nodeKind {
	k := kindOf(name, st)
	mt, ok := m.made[p]
	if !ok || st.EphemeralOwner != 0 || mt.czxid != 0 && mt.czxid != st.Czxid {
		return k
	}
	if mt.czxid == 0 && st.Czxid != 0 {
		mt.czxid = st.Czxid
		m.made[p] = mt
	}
	switch {
	case mt.flags == zk.FlagContainer:
		k.container = true
	case isTTL(mt.flags):
		k.ttl, k.ttlMillis = true, mt.ttl.Milliseconds()
	}
	return k
}
