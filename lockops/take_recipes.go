package lockops

// This file holds the naming, ordering and predecessor rules that Take uses
// to join a queue exactly as the real libraries do (see
// /work/shared/lock-recipes.md). They are deliberately small and private:
// when the decoders of this package expose "which node does position i
// watch", Take should call them instead (one source of truth).

import (
	"crypto/rand"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Recipe names the lock library whose znode format Take writes.
type Recipe string

const (
	// RecipeAuto detects the library from the children already in the lock
	// directory, and uses Curator for an empty or new one.
	RecipeAuto Recipe = "auto"
	// RecipeCurator is Apache Curator's InterProcessMutex (exclusive) or
	// InterProcessReadWriteLock (read/write).
	RecipeCurator Recipe = "curator"
	// RecipeKazoo is kazoo's Lock (exclusive), WriteLock and ReadLock.
	RecipeKazoo Recipe = "kazoo"
	// RecipeGoZK is go-zookeeper's zk.Lock (exclusive only).
	RecipeGoZK Recipe = "go-zk"
)

// Mode is the kind of lock requested.
type Mode string

const (
	// ModeExclusive is a plain mutex (Curator InterProcessMutex, kazoo Lock,
	// go-zk Lock).
	ModeExclusive Mode = "exclusive"
	// ModeRead is the shared side of a read/write lock.
	ModeRead Mode = "read"
	// ModeWrite is the exclusive side of a read/write lock.
	ModeWrite Mode = "write"
)

// ParseRecipe accepts the names the CLI takes ("auto", "curator", "kazoo",
// "go-zk"; "" means auto).
func ParseRecipe(s string) (Recipe, error) {
	switch r := Recipe(strings.ToLower(strings.TrimSpace(s))); r {
	case "", RecipeAuto:
		return RecipeAuto, nil
	case RecipeCurator, RecipeKazoo, RecipeGoZK:
		return r, nil
	case "gozk", "go-zookeeper":
		return RecipeGoZK, nil
	}
	return "", fmt.Errorf("unknown lock recipe %q (want auto, curator, kazoo or go-zk)", s)
}

// ParseMode accepts "exclusive", "read" and "write" ("" means exclusive).
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", ModeExclusive, "mutex":
		return ModeExclusive, nil
	case ModeRead, ModeWrite:
		return m, nil
	}
	return "", fmt.Errorf("unknown lock mode %q (want exclusive, read or write)", s)
}

const seqPattern = `(\d{10}|-\d{9,10})`

// The patterns are compiled on first use: most commands never need them,
// and every start would pay for them.
var (
	curatorNameRE = lazyRegexp(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-(lock-|__READ__|__WRIT__)` + seqPattern + `$`)
	goZKNameRE    = lazyRegexp(`^_c_[0-9a-f]{32}-lock-` + seqPattern + `$`)
	kazooNameRE   = lazyRegexp(`^[0-9a-f]{32}(__lock__|__rlock__)` + seqPattern + `$`)
	// kazooContenderRE is kazoo's own contender pattern (re.search, so it is
	// not anchored at the start).
	kazooContenderRE = lazyRegexp(`(__lock__|__rlock__)(-?\d{10})$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// takeRecipe is a resolved recipe and mode: how to name our node and whom
// to wait for.
type takeRecipe struct {
	recipe Recipe
	mode   Mode
}

// String is the locks-json recipe name ("curator.mutex", ...).
func (r takeRecipe) String() string {
	switch r.recipe {
	case RecipeCurator:
		if r.mode == ModeExclusive {
			return "curator.mutex"
		}
		return "curator.rwlock"
	case RecipeKazoo:
		if r.mode == ModeExclusive {
			return "kazoo.lock"
		}
		return "kazoo.rwlock"
	case RecipeGoZK:
		return "go-zk.lock"
	}
	return "unknown"
}

// containerParents reports whether the library creates the lock directory
// (and its missing ancestors) as CONTAINER nodes (Curator) rather than
// persistent ones (kazoo, go-zk).
func (r takeRecipe) containerParents() bool { return r.recipe == RecipeCurator }

// marker is the text between the protection prefix and the sequence number.
func (r takeRecipe) marker() string {
	switch r.recipe {
	case RecipeCurator:
		switch r.mode {
		case ModeRead:
			return "__READ__"
		case ModeWrite:
			return "__WRIT__"
		}
		return "lock-"
	case RecipeKazoo:
		if r.mode == ModeRead {
			return "__rlock__"
		}
		return "__lock__"
	}
	return "lock-"
}

// newNamePrefix returns a fresh node name without its sequence suffix, in
// the library's exact format, e.g. "_c_<uuid36>-lock-".
func (r takeRecipe) newNamePrefix() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("read random bytes: %v", err)) // crypto/rand never fails on Linux
	}
	switch r.recipe {
	case RecipeCurator:
		b[6] = b[6]&0x0f | 0x40 // UUID version 4, as java.util.UUID.randomUUID
		b[8] = b[8]&0x3f | 0x80
		return fmt.Sprintf("_c_%x-%x-%x-%x-%x-%s", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16], r.marker())
	case RecipeKazoo:
		b[6] = b[6]&0x0f | 0x40 // uuid4().hex
		b[8] = b[8]&0x3f | 0x80
		return fmt.Sprintf("%x%s", b[:], r.marker())
	}
	return fmt.Sprintf("_c_%x-lock-", b[:])
}

// queueSlot is our place in the recipe's order.
type queueSlot struct {
	found    bool   // our node is among the children
	position int    // 0-based index in the library's sorted order
	queueLen int    // contenders in that order
	wait     string // child name we must watch; "" when we hold the lock
}

// slot sorts children with the library's rule and finds the node that own
// must wait for.
func (r takeRecipe) slot(children []string, own string) queueSlot {
	switch r.recipe {
	case RecipeCurator:
		return r.curatorSlot(children, own)
	case RecipeKazoo:
		return r.kazooSlot(children, own)
	}
	return goZKSlot(children, own)
}

// curatorSortKey is StandardLockInternalsDriver.fixForSorting: the text
// after the last occurrence of the lock name, or the whole name. The
// read/write lock strips __READ__ and then __WRIT__.
func (r takeRecipe) curatorSortKey(name string) string {
	fix := func(s, marker string) string {
		if i := strings.LastIndex(s, marker); i >= 0 {
			return s[i+len(marker):]
		}
		return s
	}
	if r.mode == ModeExclusive {
		return fix(name, "lock-")
	}
	return fix(fix(name, "__READ__"), "__WRIT__")
}

func (r takeRecipe) curatorSlot(children []string, own string) queueSlot {
	sorted := append([]string(nil), children...)
	sort.SliceStable(sorted, func(i, j int) bool { return r.curatorSortKey(sorted[i]) < r.curatorSortKey(sorted[j]) })
	s := queueSlot{position: -1, queueLen: len(sorted)}
	firstWriter := -1
	for i, n := range sorted {
		if firstWriter < 0 && strings.Contains(n, "__WRIT__") {
			firstWriter = i
		}
		if n == own {
			s.found, s.position = true, i
		}
	}
	if !s.found {
		return s
	}
	if r.mode == ModeRead {
		// readLockPredicate: we hold unless a writer sorts before us; then we
		// watch the FIRST writer of the queue.
		if firstWriter >= 0 && firstWriter < s.position {
			s.wait = sorted[firstWriter]
		}
		return s
	}
	if s.position > 0 {
		s.wait = sorted[s.position-1] // maxLeases 1: sorted[i-1], of any type
	}
	return s
}

func (r takeRecipe) kazooSlot(children []string, own string) queueSlot {
	type contender struct{ name, kind, seq string }
	var all []contender
	for _, n := range children {
		if m := kazooContenderRE().FindStringSubmatch(n); m != nil {
			all = append(all, contender{n, m[1], m[2]})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	s := queueSlot{position: -1, queueLen: len(all)}
	blocks := func(kind string) bool {
		// Lock and ReadLock are blocked by __lock__ only; WriteLock by both.
		return kind == "__lock__" || (r.mode == ModeWrite && kind == "__rlock__")
	}
	var pred string
	for i, c := range all {
		if c.name == own {
			s.found, s.position, s.wait = true, i, pred
			return s
		}
		if blocks(c.kind) {
			pred = c.name // the nearest lower blocking node
		}
	}
	return s
}

// goZKSlot follows zk.Lock: sequence = text after "lock-" (else after
// "__"), numeric; the holder has the smallest, a waiter watches the one
// with the greatest strictly smaller sequence (ties do not block, as in
// zk.Lock). Children that do not parse are skipped here (zk.Lock itself
// fails on them); unlike zk.Lock, negative (overflowed) sequences count.
func goZKSlot(children []string, own string) queueSlot {
	parse := func(n string) (int, bool) {
		parts := strings.Split(n, "lock-")
		if len(parts) == 1 {
			parts = strings.Split(n, "__")
		}
		seq, err := strconv.Atoi(parts[len(parts)-1])
		return seq, err == nil
	}
	s := queueSlot{position: -1}
	ownSeq, ok := parse(own)
	for _, n := range children {
		if n == own {
			s.found = true
		}
	}
	if !ok || !s.found {
		s.found = false
		return s
	}
	s.position = 0
	best := 0
	for _, n := range children {
		seq, ok := parse(n)
		if !ok || n == own {
			continue
		}
		s.queueLen++
		if seq < ownSeq {
			s.position++
			if s.wait == "" || seq > best {
				s.wait, best = n, seq
			}
		}
	}
	s.queueLen++ // ourselves
	return s
}

// detectRecipe guesses the library from the children of a lock directory:
// the format most children have. ok is false when no child has a known
// format. mode is the mode the existing children imply for Curator
// (read/write when any __READ__/__WRIT__ node is there) and kazoo (read/write
// when any __rlock__ node is there), "" otherwise.
func detectRecipe(children []string) (recipe Recipe, rw bool, ok bool, err error) {
	counts := map[Recipe]int{}
	for _, n := range children {
		switch {
		case curatorNameRE().MatchString(n):
			counts[RecipeCurator]++
			if strings.Contains(n, "__READ__") || strings.Contains(n, "__WRIT__") {
				rw = true
			}
		case goZKNameRE().MatchString(n):
			counts[RecipeGoZK]++
		case kazooNameRE().MatchString(n):
			counts[RecipeKazoo]++
			if strings.Contains(n, "__rlock__") {
				rw = true
			}
		}
	}
	best, bestN, tie := Recipe(""), 0, false
	for _, r := range []Recipe{RecipeCurator, RecipeKazoo, RecipeGoZK} {
		switch n := counts[r]; {
		case n > bestN:
			best, bestN, tie = r, n, false
		case n == bestN && n > 0:
			tie = true
		}
	}
	if bestN == 0 {
		return "", false, false, nil
	}
	if tie {
		return "", false, false, fmt.Errorf("the lock directory mixes lock libraries (%d Curator, %d kazoo, %d go-zk nodes): pass --recipe",
			counts[RecipeCurator], counts[RecipeKazoo], counts[RecipeGoZK])
	}
	return best, rw, true, nil
}

// resolveRecipe checks the requested recipe and mode against each other and
// against what the lock directory already holds.
func resolveRecipe(want Recipe, mode Mode, children []string) (takeRecipe, error) {
	if mode == "" {
		mode = ModeExclusive
	}
	detected, rw, ok, err := detectRecipe(children)
	if want == RecipeAuto || want == "" {
		if err != nil {
			return takeRecipe{}, err
		}
		want = RecipeCurator
		if ok {
			want = detected
		}
	}
	r := takeRecipe{recipe: want, mode: mode}
	if !ok || detected != want {
		rw = false // nothing of that library there to compare with
	}
	switch want {
	case RecipeGoZK:
		if mode != ModeExclusive {
			return takeRecipe{}, fmt.Errorf("go-zk locks are exclusive only (asked for mode %s)", mode)
		}
	case RecipeCurator:
		if rw && mode == ModeExclusive {
			return takeRecipe{}, fmt.Errorf("this is a Curator read/write lock (__READ__/__WRIT__ nodes): pass --mode read or --mode write")
		}
		if ok && detected == RecipeCurator && !rw && mode != ModeExclusive && len(children) > 0 && hasCuratorMutexNode(children) {
			return takeRecipe{}, fmt.Errorf("this is a Curator mutex (-lock- nodes), not a read/write lock: use --mode exclusive")
		}
	case RecipeKazoo:
		if rw && mode == ModeExclusive {
			// kazoo's Lock ignores readers; a person taking a lock by hand
			// wants them to count, which is kazoo's WriteLock (same nodes).
			r.mode = ModeWrite
		}
	default:
		return takeRecipe{}, fmt.Errorf("unknown lock recipe %q", want)
	}
	return r, nil
}

func hasCuratorMutexNode(children []string) bool {
	for _, n := range children {
		if m := curatorNameRE().FindStringSubmatch(n); m != nil && m[1] == "lock-" {
			return true
		}
	}
	return false
}
