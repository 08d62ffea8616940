package lockops

// Apache ZooKeeper's own recipes (shared/lock-recipes.md §4): the Java
// WriteLock (x-<session>-<seq>), the C recipe (x-<hex16>-<seq>), the
// documentation's lock (<guid>-lock-<seq>) and shared lock
// ([<guid>-]read-<seq>, [<guid>-]write-<seq>). They wait with exists().
// zkscope reads them but does not take locks in their formats.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// ZooKeeper is the format of ZooKeeper's lock recipes (Java WriteLock, C,
// and the documentation's exclusive lock).
var ZooKeeper = &Library{
	Name: "zookeeper", Title: "ZooKeeper recipe",
	parse:  parseZooKeeperLock,
	kindOf: func(func(string) bool) Kind { return KindZooKeeperLock },
}

// ZooKeeperDocs is the format of the documentation's shared (read/write)
// lock recipe.
var ZooKeeperDocs = &Library{
	Name: "zookeeper-docs", Title: "ZooKeeper docs read/write",
	parse:  parseDocsRW,
	kindOf: func(func(string) bool) Kind { return KindZooKeeperDocsRW },
}

func parseZooKeeperLock(name string) (marker, seq string, ok bool) {
	if rest, ok := strings.CutPrefix(name, "x-"); ok && len(rest) > 1 {
		// x-<session>-<seq>: the session in decimal (Java, may be negative)
		// or 16 hex digits (C).
		if j := strings.IndexByte(rest[1:], '-') + 1; j > 0 {
			sid, seq := rest[:j], rest[j+1:]
			if _, ok := ParseSeq(seq); ok && (allDigits(strings.TrimPrefix(sid, "-")) || len(sid) == 16 && isHex(sid)) {
				return "x-", seq, true
			}
		}
	}
	if s, ok := afterLast(name, "lock-"); ok && !strings.HasPrefix(name, "_c_") {
		if _, ok := ParseSeq(s); ok {
			return "lock-", s, true
		}
	}
	return "", "", false
}

func parseDocsRW(name string) (marker, seq string, ok bool) {
	for _, m := range []string{"read-", "write-"} {
		if s, ok := afterLast(name, m); ok && (name == m+s || strings.HasSuffix(strings.TrimSuffix(name, m+s), "-")) {
			if _, ok := ParseSeq(s); ok {
				return m, s, true
			}
		}
	}
	return "", "", false
}

// decodeZooKeeperLock: the recipes' own locks, which wait with exists().
// Java WriteLock (x-<session>-SEQ): sequence = Integer of the text after
// the LAST '-', then the prefix; C (x-<hex16>-SEQ): strcmp of that text;
// the docs' <guid>-lock-SEQ: by sequence. The first holds, each other
// watches the one before it.
func decodeZooKeeperLock(dir string, children []Child) []Participant {
	type contender struct {
		c      *Child
		seqStr string
		javaN  int64 // Java's sequence (after the last '-')
		prefix string
		c16    bool // the C recipe's hex session
	}
	var cs []contender
	for i := range children {
		c := &children[i]
		n := parseName(c.Name)
		if n.lib != ZooKeeper {
			continue
		}
		i := strings.LastIndexByte(c.Name, '-')
		javaN, err := strconv.ParseInt(c.Name[i+1:], 10, 32)
		if err != nil {
			javaN = -1
		}
		sid := strings.TrimSuffix(strings.TrimPrefix(c.Name, "x-"), "-"+n.seqStr)
		cs = append(cs, contender{c: c, seqStr: n.seqStr, javaN: javaN, prefix: c.Name[:i],
			c16: n.marker == "x-" && len(sid) == 16 && isHex(sid)})
	}
	slices.SortFunc(cs, func(a, b contender) int {
		byName := strings.Compare(a.c.Name, b.c.Name)
		if a.c16 && b.c16 {
			return cmp.Or(strings.Compare(a.c.Name[strings.LastIndexByte(a.c.Name, '-')+1:], b.c.Name[strings.LastIndexByte(b.c.Name, '-')+1:]), byName)
		}
		return cmp.Or(cmp.Compare(a.javaN, b.javaN), strings.Compare(a.prefix, b.prefix), byName)
	})
	ps := make([]Participant, len(cs))
	for i, me := range cs {
		ps[i] = participant(dir, me.c, ModeExclusive, me.seqStr)
		if i == 0 {
			ps[i].State = StateHolding
			continue
		}
		ps[i].State = StateWaiting
		ps[i].Watches, ps[i].WatchKind = ps[i-1].Node, WatchExists
	}
	return NumberPositions(ps)
}

// decodeDocsRW: the shared-lock recipe of ZooKeeper's documentation. By
// sequence: a reader holds when no write- node is lower and otherwise
// watches (exists) the nearest lower write-; a writer holds when lowest and
// otherwise watches the next lowest node of either kind.
func decodeDocsRW(dir string, children []Child) []Participant {
	type contender struct {
		c     *Child
		n     nodeName
		seq   int64
		write bool
	}
	var cs []contender
	for i := range children {
		c := &children[i]
		n := parseName(c.Name)
		if n.lib != ZooKeeperDocs {
			continue
		}
		s, _ := ParseSeq(n.seqStr)
		cs = append(cs, contender{c, n, s, n.marker == "write-"})
	}
	slices.SortFunc(cs, func(a, b contender) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), strings.Compare(a.c.Name, b.c.Name))
	})
	ps := make([]Participant, len(cs))
	lastWriter := -1
	for i, me := range cs {
		mode := ModeRead
		if me.write {
			mode = ModeWrite
		}
		ps[i] = participant(dir, me.c, mode, me.n.seqStr)
		pred := lastWriter // a reader's: the nearest lower writer
		if me.write {
			pred = i - 1 // a writer's: the node just below
			lastWriter = i
		}
		if pred < 0 {
			ps[i].State = StateHolding
			continue
		}
		ps[i].State = StateWaiting
		ps[i].Watches, ps[i].WatchKind = ps[pred].Node, WatchExists
	}
	return NumberPositions(ps)
}
