package lockops

import (
	"path"
	"strings"
)

// library is the client library whose format a child name has.
type library int

const (
	libNone      library = iota // not a lock node of any known recipe
	libCurator                  // _c_<uuid36>-<lockName><seq>
	libKazoo                    // <hex32>__lock__<seq>, <hex32>__rlock__<seq>
	libGoZK                     // _c_<hex32>-lock-<seq>
	libZooKeeper                // x-<session>-<seq>, <guid>-lock-<seq> (recipes and docs)
	libDocsRW                   // [<guid>-]read-<seq>, [<guid>-]write-<seq> (docs)
)

func (l library) String() string {
	return [...]string{"none", "Curator", "kazoo", "go-zookeeper", "ZooKeeper recipe", "ZooKeeper docs read/write"}[l]
}

// nodeName is what a child's name says about it.
type nodeName struct {
	lib    library
	marker string // the library's lock name inside the node name ("lock-", "__READ__", "__lock__", …)
	seqStr string // the sequence text as the library cuts it ("" when none)
}

// Curator lock names inside protected node names.
const (
	curatorLock  = "lock-"
	curatorRead  = "__READ__"
	curatorWrite = "__WRIT__"
	curatorLatch = "latch-"
	curatorLease = "lease-"
	kazooLock    = "__lock__"
	kazooRLock   = "__rlock__"
)

// parseName classifies one child name. It never fails: unknown names are
// libNone.
func parseName(name string) nodeName {
	if rest, ok := strings.CutPrefix(name, "_c_"); ok {
		if len(rest) > 37 && isUUID36(rest[:36]) && rest[36] == '-' {
			tail := rest[37:]
			for _, m := range []string{curatorRead, curatorWrite, curatorLatch, curatorLease, curatorLock} {
				if s, ok := strings.CutPrefix(tail, m); ok {
					return nodeName{lib: libCurator, marker: m, seqStr: s}
				}
			}
			return nodeName{lib: libCurator}
		}
		if len(rest) > 33 && isHex(rest[:32]) && strings.HasPrefix(rest[32:], "-lock-") {
			return nodeName{lib: libGoZK, marker: "lock-", seqStr: rest[38:]}
		}
	}
	if len(name) > 32 && isHex(name[:32]) {
		for _, m := range []string{kazooLock, kazooRLock} {
			if s, ok := strings.CutPrefix(name[32:], m); ok {
				if _, ok := ParseSeq(s); ok {
					return nodeName{lib: libKazoo, marker: m, seqStr: s}
				}
			}
		}
	}
	if rest, ok := strings.CutPrefix(name, "x-"); ok && len(rest) > 1 {
		// x-<session>-<seq>: the session in decimal (Java, may be negative)
		// or 16 hex digits (C).
		if j := strings.IndexByte(rest[1:], '-') + 1; j > 0 {
			sid, seq := rest[:j], rest[j+1:]
			if _, ok := ParseSeq(seq); ok && (allDigits(strings.TrimPrefix(sid, "-")) || len(sid) == 16 && isHex(sid)) {
				return nodeName{lib: libZooKeeper, marker: "x-", seqStr: seq}
			}
		}
	}
	for _, m := range []string{"read-", "write-"} {
		if s, ok := afterLast(name, m); ok && (name == m+s || strings.HasSuffix(strings.TrimSuffix(name, m+s), "-")) {
			if _, ok := ParseSeq(s); ok {
				return nodeName{lib: libDocsRW, marker: m, seqStr: s}
			}
		}
	}
	if s, ok := afterLast(name, "lock-"); ok && !strings.HasPrefix(name, "_c_") {
		if _, ok := ParseSeq(s); ok {
			return nodeName{lib: libZooKeeper, marker: "lock-", seqStr: s}
		}
	}
	return nodeName{}
}

// Detect names the recipe of a lock directory from its children's names
// (and, for semaphores, its layout: see [Dir]). Mixed directories get the
// recipe of the library with the most nodes there.
func Detect(d Dir) Kind {
	if d.Aux != nil {
		if path.Base(d.Path) == "leases" {
			return KindCuratorSemaphoreV2
		}
		return KindKazooSemaphore
	}
	c := takeCensus(d.Children)
	return c.kindOf(c.dominant())
}

// census is what a directory's names say, from one pass over them: how
// many nodes each library has there, and which of its lock names occur.
type census struct {
	count [libDocsRW + 1]int
	seen  []libMarker // distinct, in order of first occurrence
}

type libMarker struct {
	lib    library
	marker string
}

func takeCensus(children []Child) census {
	var c census
	for i := range children {
		n := parseName(children[i].Name)
		c.count[n.lib]++
		if n.lib != libNone && !c.has(n.lib, n.marker) {
			c.seen = append(c.seen, libMarker{n.lib, n.marker})
		}
	}
	return c
}

func (c *census) has(lib library, marker string) bool {
	for _, s := range c.seen {
		if s.lib == lib && s.marker == marker {
			return true
		}
	}
	return false
}

// dominant is the library with most nodes (ties: Curator, kazoo, go-zk,
// ZooKeeper, docs), libNone when there is no lock node at all.
func (c *census) dominant() library {
	best, n := libNone, 0
	for _, l := range []library{libCurator, libKazoo, libGoZK, libZooKeeper, libDocsRW} {
		if c.count[l] > n {
			best, n = l, c.count[l]
		}
	}
	return best
}

// kindOf is the recipe a library's nodes make.
func (c *census) kindOf(l library) Kind {
	switch l {
	case libCurator:
		switch {
		case c.has(libCurator, curatorRead) || c.has(libCurator, curatorWrite):
			return KindCuratorRW
		case c.has(libCurator, curatorLatch):
			return KindCuratorLeaderLatch
		case c.has(libCurator, curatorLease) && !c.has(libCurator, curatorLock):
			return KindCuratorSemaphoreV2
		}
		return KindCuratorMutex
	case libKazoo:
		if c.has(libKazoo, kazooRLock) {
			return KindKazooRW
		}
		return KindKazooLock
	case libGoZK:
		return KindGoZK
	case libZooKeeper:
		return KindZooKeeperLock
	case libDocsRW:
		return KindZooKeeperDocsRW
	}
	return KindUnknown
}

// IsLockDir reports whether names look like the children of a lock
// directory (at least one node in a known recipe's format).
func IsLockDir(names []string) bool {
	for _, n := range names {
		if parseName(n).lib != libNone {
			return true
		}
	}
	return false
}

// libraryOfKind is the library a recipe belongs to.
func libraryOfKind(k Kind) library {
	switch k {
	case KindCuratorMutex, KindCuratorRW, KindCuratorSemaphoreV2, KindCuratorLeaderLatch:
		return libCurator
	case KindKazooLock, KindKazooRW, KindKazooSemaphore:
		return libKazoo
	case KindGoZK:
		return libGoZK
	case KindZooKeeperLock:
		return libZooKeeper
	case KindZooKeeperDocsRW:
		return libDocsRW
	}
	return libNone
}
