package lockops

import (
	"fmt"
	"path"
	"strings"
)

// Library is one lock library's rules, in one place for both reading and
// acting: how its nodes are named and parsed (parse), which recipe a
// directory of its nodes makes (kindOf), and, for the libraries zkscope
// takes locks in, how our own node is named (take). The decoders of its
// recipes, which order the nodes, find the holders and each waiter's
// watch target, live in the library's file next to it (curator.go,
// kazoo.go, gozk.go, zookeeper.go); [Decode] and take.Take both call them.
//
// A *Library is compared by identity: the package's variables [Curator],
// [Kazoo], [GoZK], [ZooKeeper] and [ZooKeeperDocs] are the only values.
type Library struct {
	// Name is how the command line and the config file name it
	// ("curator", "kazoo", "go-zk"); Title how messages do ("Curator").
	Name, Title string
	// parse reports whether name is one of this library's nodes, with the
	// library's lock name inside it ("lock-", "__READ__", "__lock__", …)
	// and the sequence text as the library cuts it.
	parse func(name string) (marker, seq string, ok bool)
	// kindOf is the recipe a directory makes whose nodes of this library
	// carry these markers.
	kindOf func(markers func(marker string) bool) Kind
	// take is nil for libraries zkscope does not take locks in.
	Format *TakeFormat
}

// TakeFormat is how zkscope writes a node of a library when it joins a
// queue: the recipe each mode makes, the marker of each mode, the random
// protection prefix, and whether parents are containers.
type TakeFormat struct {
	Kinds            map[Mode]Kind
	Marker           func(m Mode) string
	NewPrefix        func(Marker string) string // without the sequence
	ContainerParents bool                       // Curator: CONTAINER parents; others persistent
}

// Libraries in the order a name is classified and ties are broken.
var Libraries = []*Library{Curator, GoZK, Kazoo, ZooKeeper, ZooKeeperDocs, Solr}

// String is the library's title.
func (l *Library) String() string {
	if l == nil {
		return "none"
	}
	return l.Title
}

// Takes reports whether zkscope can take locks in this library's format.
func (l *Library) Takes() bool { return l != nil && l.Format != nil }

// TakesMode reports whether zkscope takes locks of mode in this library's
// format (go-zookeeper's and plain ephemeral locks are exclusive only).
func (l *Library) TakesMode(m Mode) bool {
	if !l.Takes() {
		return false
	}
	_, ok := l.Format.Kinds[m]
	return ok
}

// TakeLibraries are the libraries zkscope takes locks in, for choosers.
func TakeLibraries() []*Library { return []*Library{Curator, Kazoo, GoZK} }

// RecipeNames are the names of the libraries zkscope takes locks in, as
// [ParseLibrary] takes them (completion, help): the taken libraries' and
// the plain ephemeral lock's.
func RecipeNames() []string {
	var names []string
	for _, l := range TakeLibraries() {
		names = append(names, l.Name)
	}
	return append(names, Ephemeral.Name)
}

// ParseLibrary accepts the names the command line and the config file use
// for the libraries zkscope takes locks in: "curator", "kazoo", "go-zk"
// ("gozk" and "go-zookeeper" too).
func ParseLibrary(s string) (*Library, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "curator":
		return Curator, nil
	case "kazoo":
		return Kazoo, nil
	case "go-zk", "gozk", "go-zookeeper":
		return GoZK, nil
	case "ephemeral":
		return Ephemeral, nil
	}
	return nil, fmt.Errorf("unknown lock library %q (want curator, kazoo, go-zk or ephemeral)", s)
}

// Library is the library a recipe belongs to; nil for [KindUnknown].
func (k Kind) Library() *Library {
	if r, ok := recipes[k]; ok {
		return r.lib
	}
	return nil
}

// nodeName is what a child's name says about it.
type nodeName struct {
	lib    *Library // nil: not a lock node of any known recipe
	marker string   // the library's lock name inside the node name
	seqStr string   // the sequence text as the library cuts it ("" when none)
}

// parseName classifies one child name. It never fails: unknown names have
// a nil lib.
func parseName(name string) nodeName {
	for _, l := range Libraries {
		if m, s, ok := l.parse(name); ok {
			return nodeName{lib: l, marker: m, seqStr: s}
		}
	}
	return nodeName{}
}

// LibraryOf is the library whose lock node name is name, nil when it is
// no library's.
func LibraryOf(name string) *Library { return parseName(name).lib }

// Detect names the recipe of a lock directory from its children's names
// (and, for semaphores, its layout: see [Dir]). Mixed directories get the
// recipe of the library with the most nodes there.
func Detect(d Dir) Kind {
	if d.Aux != nil {
		if path.Base(d.Path) == CuratorLeases {
			return KindCuratorSemaphoreV2
		}
		return KindKazooSemaphore
	}
	c := takeCensus(d.Children)
	return c.KindOf(c.Dominant())
}

// Census is what a directory's names say, from one pass over them: how
// many nodes each library has there, and which of its lock names occur.
type Census struct {
	Count map[*Library]int
	seen  []libMarker // distinct, in order of first occurrence
}

type libMarker struct {
	lib    *Library
	marker string
}

func takeCensus(children []Child) Census {
	c := Census{Count: make(map[*Library]int, 2)}
	for i := range children {
		c.add(parseName(children[i].Name))
	}
	return c
}

// CensusOfNames is takeCensus over bare names.
func CensusOfNames(names []string) Census {
	c := Census{Count: make(map[*Library]int, 2)}
	for _, n := range names {
		c.add(parseName(n))
	}
	return c
}

func (c *Census) add(n nodeName) {
	c.Count[n.lib]++
	if n.lib != nil && !c.has(n.lib, n.marker) {
		c.seen = append(c.seen, libMarker{n.lib, n.marker})
	}
}

func (c *Census) has(lib *Library, marker string) bool {
	for _, s := range c.seen {
		if s.lib == lib && s.marker == marker {
			return true
		}
	}
	return false
}

// Present lists the libraries with nodes in the directory, in [Libraries]
// order.
func (c *Census) Present() []*Library {
	var out []*Library
	for _, l := range Libraries {
		if c.Count[l] > 0 {
			out = append(out, l)
		}
	}
	return out
}

// Dominant is the library with most nodes (ties: the order of
// [Libraries]), nil when there is no lock node at all.
func (c *Census) Dominant() *Library {
	var best *Library
	n := 0
	for _, l := range Libraries {
		if c.Count[l] > n {
			best, n = l, c.Count[l]
		}
	}
	return best
}

// KindOf is the recipe a library's nodes make in this directory.
func (c *Census) KindOf(l *Library) Kind {
	if l == nil {
		return KindUnknown
	}
	return l.kindOf(func(m string) bool { return c.has(l, m) })
}

// IsLockDir reports whether names look like the children of a lock
// directory (at least one node in a known recipe's format), or of a
// system's election (Kafka's root, HDFS's elector directory, HBase's
// parent znode: see familyOf).
func IsLockDir(names []string) bool {
	for _, n := range names {
		if parseName(n).lib != nil {
			return true
		}
	}
	return FamilyOf(names) != ""
}
