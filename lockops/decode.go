package lockops

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DecodeOptions tune [Decode].
type DecodeOptions struct {
	// Kind forces a recipe; "" detects it ([Detect]).
	Kind Kind
	// MaxLeases is a semaphore's lease count (Curator keeps it out of
	// ZooKeeper); 0 infers it from the nodes (Curator) or reads the
	// semaphore node's data (kazoo).
	MaxLeases int

	// buf, when set, holds zeroed participants for the queue (made while
	// the children were being read); the first decoder to need as many
	// takes them.
	buf *[]Participant
}

// participants returns n zeroed participants, taken from buf when it holds
// enough.
func participants(n int, buf *[]Participant) []Participant {
	if buf != nil && cap(*buf) >= n {
		ps := (*buf)[:n]
		*buf = nil
		return ps
	}
	return make([]Participant, n)
}

// ModeLock marks a node of a semaphore's internal lock (Curator
// SemaphoreV2's locks/, kazoo Semaphore's <path>-__lock__), and ModeStray a
// child that is no lock node but that the library still counts in its order.
const (
	ModeLock  Mode = "lock"
	ModeStray Mode = "stray"
)

// overflowRisk is how close to 2^31 a parent's cversion may come before
// the next sequence numbers are flagged as about to overflow.
const overflowRisk = 1 << 20

// Decode predicts, from one read of a lock directory, what every client of
// its recipe computes: the order, who holds, and what each waiter watches
// with which call. It is a pure function of d.
func Decode(d Dir, o DecodeOptions) Queue {
	var c census
	if d.Aux == nil {
		c = takeCensus(d.Children)
	}
	k := o.Kind
	switch {
	case k != "":
	case d.Aux != nil:
		k = Detect(d) // a semaphore: by its layout
	default:
		k = c.kindOf(c.dominant()) // what Detect says, from the census taken
	}
	q := decodeAs(d, k, o)
	if d.Aux == nil {
		own := libraryOfKind(k)
		var others []library
		for _, l := range []library{libCurator, libKazoo, libGoZK, libZooKeeper, libDocsRW} {
			if l != own && c.count[l] > 0 {
				others = append(others, l)
			}
		}
		if len(others) > 0 && own != libNone {
			names := []string{own.String()}
			for _, l := range others {
				names = append(names, l.String())
				q.Others = append(q.Others, decodeAs(d, c.kindOf(l), o))
			}
			q.Problems = append(q.Problems, Problem{Kind: "mixed-libraries",
				Detail: fmt.Sprintf("nodes of %s in one directory: each library orders them its own way (see the other views)", strings.Join(names, " and "))})
		}
	}
	q.Problems = append(q.Problems, structuralProblems(d, q)...)
	return q
}

func decodeAs(d Dir, k Kind, o DecodeOptions) Queue {
	q := Queue{Path: d.Path, Kind: k}
	switch k {
	case KindCuratorMutex:
		q.Participants = decodeCuratorMutex(d.Path, d.Children, curatorLock, ModeExclusive, 1, o.buf)
	case KindCuratorLeaderLatch:
		q.Participants = decodeCuratorMutex(d.Path, d.Children, curatorLatch, ModeLatch, 1, o.buf)
	case KindCuratorRW:
		q.Participants = decodeCuratorRW(d.Path, d.Children, o.buf)
	case KindCuratorSemaphoreV2:
		q = decodeCuratorSemaphore(d, o.MaxLeases)
	case KindKazooLock:
		q.Participants = decodeKazooLock(d.Path, d.Children, false, o.buf)
	case KindKazooRW:
		q.Participants = decodeKazooLock(d.Path, d.Children, true, o.buf)
	case KindKazooSemaphore:
		q = decodeKazooSemaphore(d, o.MaxLeases)
	case KindGoZK:
		q.Participants = decodeGoZK(d.Path, d.Children, o.buf)
	case KindZooKeeperLock:
		q.Participants = decodeZooKeeperLock(d.Path, d.Children, o.buf)
	case KindZooKeeperDocsRW:
		q.Participants = decodeDocsRW(d.Path, d.Children, o.buf)
	default:
		q.Kind = KindUnknown
		q.Participants = decodeUnknown(d.Path, d.Children)
		if len(q.Participants) > 0 {
			q.Problems = append(q.Problems, Problem{Kind: "unknown-recipe",
				Detail: "no known lock recipe makes these names: the order shown is by sequence number only"})
		}
	}
	return q
}

// participant fills what every recipe shares from one child.
func participant(dir string, c *Child, mode Mode, seqStr string) Participant {
	p := Participant{
		Node:      c.path(dir),
		Name:      c.Name,
		Mode:      mode,
		Session:   c.Owner,
		Ephemeral: c.Owner != 0,
		Data:      c.Data,
		Ctime:     time.UnixMilli(c.Ctime).UTC(),
		Version:   c.Version,
		Czxid:     c.Czxid,
	}
	p.Seq, p.HasSeq = ParseSeq(seqStr)
	return p
}

func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// number sets positions 0..n-1 in slice order.
func number(ps []Participant) []Participant {
	for i := range ps {
		ps[i].Position = i
	}
	return ps
}

// byName returns the children sorted by name (pointers into children,
// which is left as it is). The libraries sort the server's (arbitrary)
// order stably, so where their keys tie we break the tie by name, which is
// unique in a directory: sorting by (key, name) gives the order every
// client computes, whatever order the server listed.
func byName(children []Child) []*Child {
	out := make([]*Child, len(children))
	for i := range children {
		out[i] = &children[i]
	}
	slices.SortFunc(out, func(a, b *Child) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// sortByKey sorts children by key (string order), ties by first(c) true
// first and then by name, computing each key once.
func sortByKey(children []Child, key func(*Child) string, first func(*Child) bool) []*Child {
	keys := make([]string, len(children))
	var rank []uint8
	if first != nil {
		rank = make([]uint8, len(children))
	}
	for i := range children {
		keys[i] = key(&children[i])
		if first != nil && !first(&children[i]) {
			rank[i] = 1
		}
	}
	out := make([]*Child, len(children))
	for j, i := range keyOrder(keys, rank, func(i int) string { return children[i].Name }) {
		out[j] = &children[i]
	}
	return out
}

// curatorKey is Curator's fixForSorting: the text after the last
// occurrence of each lock name in turn (the whole name if it has none).
func curatorKey(name string, markers ...string) string {
	for _, m := range markers {
		if s, ok := afterLast(name, m); ok {
			name = s
		}
	}
	return name
}

// decodeCuratorMutex: InterProcessMutex, LeaderSelector, LeaderLatch and
// the v1 semaphore. Every child is sorted by the text after the last
// lockName (string order, stable), strays included; index < maxLeases
// holds; the others getData-watch sorted[i-maxLeases].
func decodeCuratorMutex(dir string, children []Child, lockName string, mode Mode, maxLeases int, buf *[]Participant) []Participant {
	kids := sortByKey(children, func(c *Child) string { return curatorKey(c.Name, lockName) }, nil)
	ps := participants(len(kids), buf)
	for i, c := range kids {
		m := mode
		if !strings.Contains(c.Name, lockName) {
			m = ModeStray
		}
		ps[i] = participant(dir, c, m, curatorKey(c.Name, lockName))
		if i < maxLeases {
			ps[i].State = StateHolding
			continue
		}
		ps[i].State = StateWaiting
		if m != ModeStray {
			ps[i].Watches, ps[i].WatchKind = ps[i-maxLeases].Node, WatchData
		}
	}
	return number(ps)
}

// decodeCuratorRW: InterProcessReadWriteLock. All children sorted by the
// bare sequence (the text after __READ__, then after __WRIT__). A writer
// holds at index 0 and watches sorted[i-1]; a reader holds when no writer
// stands before it and otherwise watches the FIRST writer. A reader owned
// by the session of the holding writer is a downgrade and holds (≤5.4: a
// later sequential node; 5.5+: a non-sequential node with the writer's
// sequence, which we order after the writer).
func decodeCuratorRW(dir string, children []Child, buf *[]Participant) []Participant {
	key := func(c *Child) string { return curatorKey(c.Name, curatorRead, curatorWrite) }
	isWriter := func(c *Child) bool { return strings.Contains(c.Name, curatorWrite) }
	kids := sortByKey(children, key, isWriter)
	var holdingWriter int64 = 0
	if len(kids) > 0 && isWriter(kids[0]) && kids[0].Owner != 0 {
		holdingWriter = kids[0].Owner
	}
	ps := participants(len(kids), buf)
	firstWriter := -1
	for i, c := range kids {
		switch {
		case isWriter(c):
			ps[i] = participant(dir, c, ModeWrite, key(c))
			if i == 0 {
				ps[i].State = StateHolding
			} else {
				ps[i].State = StateWaiting
				ps[i].Watches, ps[i].WatchKind = ps[i-1].Node, WatchData
			}
			if firstWriter < 0 {
				firstWriter = i
			}
		case strings.Contains(c.Name, curatorRead):
			ps[i] = participant(dir, c, ModeRead, key(c))
			switch {
			case firstWriter < 0:
				ps[i].State = StateHolding
			case holdingWriter != 0 && c.Owner == holdingWriter:
				ps[i].State = StateHolding // downgrade
			default:
				ps[i].State = StateWaiting
				ps[i].Watches, ps[i].WatchKind = ps[firstWriter].Node, WatchData
			}
		default:
			ps[i] = participant(dir, c, ModeStray, key(c))
			ps[i].State = StateWaiting
			if i == 0 {
				ps[i].State = StateHolding // blocks every writer
			}
		}
	}
	return number(ps)
}

// decodeCuratorSemaphore: InterProcessSemaphoreV2 at <path>, d being
// <path>/leases and d.Aux <path>/locks. The locks/ mutex head has made (or
// is making) its lease; while there are more leases than maxLeases it
// waits, holding the mutex, on a getChildren watch of leases/.
func decodeCuratorSemaphore(d Dir, maxLeases int) Queue {
	semPath := d.Path
	leasesPath := d.Path
	if path.Base(d.Path) == "leases" {
		semPath = path.Dir(d.Path)
	}
	q := Queue{Path: semPath, Kind: KindCuratorSemaphoreV2}
	leases := decodeCuratorMutex(leasesPath, d.Children, curatorLease, ModeLease, len(d.Children), nil)
	var locks []Participant
	locksPath := joinPath(semPath, "locks")
	if d.Aux != nil {
		locksPath = d.Aux.Path
		locks = decodeCuratorMutex(locksPath, d.Aux.Children, curatorLock, ModeLock, 1, nil)
	}
	var head int64
	if len(locks) > 0 {
		head = locks[0].Session
	}
	waitingLease := -1
	for i, l := range leases {
		if head != 0 && l.Session == head {
			waitingLease = i
		}
	}
	if maxLeases <= 0 {
		maxLeases = len(leases)
		if waitingLease >= 0 {
			maxLeases = len(leases) - 1
		}
		q.MaxLeases = maxLeases
		q.Problems = append(q.Problems, Problem{Kind: "max-leases-inferred",
			Detail: fmt.Sprintf("maxLeases is not stored in ZooKeeper; inferred %d from the nodes (pass --max-leases)", maxLeases)})
	} else {
		q.MaxLeases = maxLeases
	}
	var holding, waiting []Participant
	for i, l := range leases {
		if len(leases) > maxLeases && i == waitingLease {
			l.State, l.Watches, l.WatchKind = StateWaiting, leasesPath, WatchChildren
			waiting = append(waiting, l)
			continue
		}
		l.State, l.Watches, l.WatchKind = StateHolding, "", WatchNone
		holding = append(holding, l)
	}
	if len(leases) > maxLeases && waitingLease < 0 {
		q.Problems = append(q.Problems, Problem{Kind: "leases-exceed-max",
			Detail: fmt.Sprintf("%d leases for %d allowed and nobody waiting: orphaned leases, or a different maxLeases", len(leases), maxLeases)})
	}
	for i, l := range locks {
		if i == 0 {
			if waitingLease >= 0 && len(leases) > maxLeases {
				l.State, l.Watches, l.WatchKind = StateWaiting, leasesPath, WatchChildren
			}
		}
		waiting = append(waiting, l)
	}
	q.Participants = number(append(holding, waiting...))
	return q
}

// kazooSeq is the sequence kazoo compares: the text after the lock's node
// name, matched by `(?:names)(-?\d{10})$` for the others' view.
func kazooSeq(name string, markers ...string) (string, bool) {
	for _, m := range markers {
		i := strings.LastIndex(name, m)
		if i < 0 {
			continue
		}
		s := name[i+len(m):]
		if len(s) == 10 && allDigits(s) || len(s) == 11 && s[0] == '-' && allDigits(s[1:]) {
			return s, true
		}
	}
	return "", false
}

// decodeKazooLock: kazoo Lock (exclusive) or, with rw, WriteLock and
// ReadLock. Children that do not match kazoo's pattern are ignored; a
// contender's predecessor is the NEAREST blocker with a smaller sequence
// STRING (a reader is blocked by __lock__ nodes, a writer by both), watched
// with get(). A node whose overflowed sequence ("-000000001") the pattern
// misses is invisible to the others but still judges by its own sequence.
func decodeKazooLock(dir string, children []Child, rw bool, buf *[]Participant) []Participant {
	type contender struct {
		c       *Child
		seq     string
		read    bool
		visible bool
	}
	cs := make([]contender, 0, len(children))
	for i := range children {
		c := &children[i]
		n := parseName(c.Name)
		if n.lib != libKazoo {
			continue
		}
		read := n.marker == kazooRLock
		if read && !rw {
			continue // a plain Lock ignores __rlock__
		}
		_, visible := kazooSeq(c.Name, n.marker)
		cs = append(cs, contender{c: c, seq: n.seqStr, read: read, visible: visible})
	}
	keys := make([]string, len(cs))
	for i := range cs {
		keys[i] = cs[i].seq
	}
	sorted := make([]contender, len(cs))
	for j, i := range keyOrder(keys, nil, func(i int) string { return cs[i].c.Name }) {
		sorted[j] = cs[i]
	}
	cs = sorted
	ps := participants(len(cs), buf)
	// One pass in sequence order: the nearest lower visible node of any
	// kind (a writer's blocker) and the nearest lower visible writer (a
	// reader's). Equal sequences are not "lower": a group of equal ones is
	// judged before it is counted, and kazoo's max() keeps the first of a
	// tie.
	lastAny, lastWriter := -1, -1
	for g := 0; g < len(cs); {
		end := g
		for end < len(cs) && cs[end].seq == cs[g].seq {
			end++
		}
		for i := g; i < end; i++ {
			me := cs[i]
			mode := ModeExclusive
			if rw {
				mode = ModeWrite
				if me.read {
					mode = ModeRead
				}
			}
			ps[i] = participant(dir, me.c, mode, me.seq)
			pred := lastAny
			if me.read {
				pred = lastWriter
			}
			if pred < 0 {
				ps[i].State = StateHolding
			} else {
				ps[i].State = StateWaiting
				ps[i].Watches, ps[i].WatchKind = ps[pred].Node, WatchData
			}
		}
		anySet, writerSet := false, false
		for i := g; i < end; i++ {
			if !cs[i].visible {
				continue
			}
			if !anySet {
				lastAny, anySet = i, true
			}
			if !cs[i].read && !writerSet {
				lastWriter, writerSet = i, true
			}
		}
		g = end
	}
	return number(ps)
}

// decodeKazooSemaphore: kazoo Semaphore at d.Path (every child is a lease
// and holds; max_leases is d.Data) with its queue, a kazoo Lock, at the
// sibling d.Aux (<path>-__lock__). The queue's head waits on a getChildren
// watch of <path> while the leases are all taken.
func decodeKazooSemaphore(d Dir, maxLeases int) Queue {
	q := Queue{Path: d.Path, Kind: KindKazooSemaphore}
	if maxLeases <= 0 {
		if n, err := strconv.Atoi(strings.TrimSpace(string(d.Data))); err == nil && n > 0 {
			maxLeases = n
		}
	}
	q.MaxLeases = maxLeases
	var holding []Participant
	for _, c := range byName(d.Children) {
		p := participant(d.Path, c, ModeLease, "")
		p.State = StateHolding
		holding = append(holding, p)
	}
	var queue []Participant
	if d.Aux != nil {
		queue = decodeKazooLock(d.Aux.Path, d.Aux.Children, false, nil)
		for i := range queue {
			queue[i].Mode = ModeLock
			if queue[i].State == StateHolding && (maxLeases == 0 || len(holding) >= maxLeases) {
				queue[i].State, queue[i].Watches, queue[i].WatchKind = StateWaiting, d.Path, WatchChildren
			}
		}
	}
	if maxLeases > 0 && len(holding) > maxLeases {
		q.Problems = append(q.Problems, Problem{Kind: "leases-exceed-max",
			Detail: fmt.Sprintf("%d leases held for max_leases %d", len(holding), maxLeases)})
	}
	q.Participants = number(append(holding, queue...))
	return q
}

// goZKSeq is go-zookeeper's parseSeq: split on "lock-" (else "__"), Atoi
// of the last part.
func goZKSeq(name string) (int, bool) {
	parts := strings.Split(name, "lock-")
	if len(parts) == 1 {
		parts = strings.Split(name, "__")
	}
	n, err := strconv.Atoi(parts[len(parts)-1])
	return n, err == nil
}

// decodeGoZK: go-zookeeper's zk.Lock. The lowest sequence holds; a waiter
// GetW-watches the greatest smaller sequence above -1 (a negative
// predecessor is never chosen). Any child it cannot parse makes Lock fail.
func decodeGoZK(dir string, children []Child, buf *[]Participant) []Participant {
	type contender struct {
		c   *Child
		seq int
	}
	var cs []contender
	for i := range children {
		if s, ok := goZKSeq(children[i].Name); ok {
			cs = append(cs, contender{&children[i], s})
		}
	}
	slices.SortFunc(cs, func(a, b contender) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), strings.Compare(a.c.Name, b.c.Name))
	})
	ps := participants(len(cs), buf)
	// In sequence order: the lowest sequence holds; a waiter's predecessor
	// is the first node of the nearest lower sequence, when that is not
	// negative (Lock's search starts above -1).
	prev := -1 // first index of the group before the current one
	for g := 0; g < len(cs); {
		end := g
		for end < len(cs) && cs[end].seq == cs[g].seq {
			end++
		}
		for i := g; i < end; i++ {
			ps[i] = participant(dir, cs[i].c, ModeExclusive, "")
			ps[i].Seq, ps[i].HasSeq = int64(cs[i].seq), true
			switch {
			case g == 0:
				ps[i].State = StateHolding
			default:
				ps[i].State = StateWaiting
				if prev >= 0 && cs[prev].seq > -1 {
					ps[i].Watches, ps[i].WatchKind = ps[prev].Node, WatchData
				}
			}
		}
		prev, g = g, end
	}
	return number(ps)
}

// decodeZooKeeperLock: the recipes' own locks, which wait with exists().
// Java WriteLock (x-<session>-SEQ): sequence = Integer of the text after
// the LAST '-', then the prefix; C (x-<hex16>-SEQ): strcmp of that text;
// the docs' <guid>-lock-SEQ: by sequence. The first holds, each other
// watches the one before it.
func decodeZooKeeperLock(dir string, children []Child, buf *[]Participant) []Participant {
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
		if n.lib != libZooKeeper {
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
	ps := participants(len(cs), buf)
	for i, me := range cs {
		ps[i] = participant(dir, me.c, ModeExclusive, me.seqStr)
		if i == 0 {
			ps[i].State = StateHolding
			continue
		}
		ps[i].State = StateWaiting
		ps[i].Watches, ps[i].WatchKind = ps[i-1].Node, WatchExists
	}
	return number(ps)
}

// decodeDocsRW: the shared-lock recipe of ZooKeeper's documentation. By
// sequence: a reader holds when no write- node is lower and otherwise
// watches (exists) the nearest lower write-; a writer holds when lowest and
// otherwise watches the next lowest node of either kind.
func decodeDocsRW(dir string, children []Child, buf *[]Participant) []Participant {
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
		if n.lib != libDocsRW {
			continue
		}
		s, _ := ParseSeq(n.seqStr)
		cs = append(cs, contender{c, n, s, n.marker == "write-"})
	}
	slices.SortFunc(cs, func(a, b contender) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), strings.Compare(a.c.Name, b.c.Name))
	})
	ps := participants(len(cs), buf)
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
	return number(ps)
}

// decodeUnknown orders sequence-suffixed children by sequence, the lowest
// first, without claiming anything about watches.
func decodeUnknown(dir string, children []Child) []Participant {
	var ps []Participant
	for i := range children {
		c := &children[i]
		if len(c.Name) < 10 {
			continue
		}
		p := participant(dir, c, ModeExclusive, c.Name[len(c.Name)-10:])
		if !p.HasSeq {
			continue
		}
		p.State = StateWaiting
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b Participant) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), strings.Compare(a.Name, b.Name))
	})
	if len(ps) > 0 {
		ps[0].State = StateHolding
	}
	return number(ps)
}

// structuralProblems are the problems one read of the directory shows
// without asking the servers: ties, strays, overflow.
func structuralProblems(d Dir, q Queue) []Problem {
	var out []Problem
	// Ties: each node against the one before it in queue order with the
	// same sequence, found by sorting (sequence, index) pairs, which the
	// queue order usually already is.
	type seqAt struct {
		seq int64
		i   int
	}
	seqs := make([]seqAt, 0, len(q.Participants))
	overflowed := false
	for i := range q.Participants {
		p := &q.Participants[i]
		if !p.HasSeq || p.Mode == ModeStray || p.Mode == ModeLease && q.Kind == KindKazooSemaphore {
			continue
		}
		if p.Seq < 0 {
			overflowed = true
		}
		seqs = append(seqs, seqAt{p.Seq, i})
	}
	bySeq := func(a, b seqAt) int { return cmp.Or(cmp.Compare(a.seq, b.seq), cmp.Compare(a.i, b.i)) }
	if !slices.IsSortedFunc(seqs, bySeq) {
		slices.SortFunc(seqs, bySeq)
	}
	var ties [][2]int // (index, index of the earlier node)
	for k := 1; k < len(seqs); k++ {
		if seqs[k].seq == seqs[k-1].seq {
			ties = append(ties, [2]int{seqs[k].i, seqs[k-1].i})
		}
	}
	slices.SortFunc(ties, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	for _, t := range ties {
		p, o := &q.Participants[t[0]], &q.Participants[t[1]]
		if !(q.Kind == KindCuratorRW && o.Session == p.Session && o.Mode != p.Mode) && path.Dir(o.Node) == path.Dir(p.Node) {
			out = append(out, Problem{Kind: "sequence-tie", Node: p.Node,
				Detail: fmt.Sprintf("same sequence %d as %s: the libraries break the tie by name or server order", p.Seq, o.Name)})
		}
	}
	lastReal := -1
	for i := range q.Participants {
		if q.Participants[i].Mode != ModeStray {
			lastReal = i
		}
	}
	for i, p := range q.Participants {
		if p.Mode == ModeStray && i < lastReal {
			out = append(out, Problem{Kind: "stray-child", Node: p.Node,
				Detail: "not a lock node, but the library counts it in the queue: the contender after it waits on it forever"})
		}
	}
	switch q.Kind {
	case KindGoZK:
		for _, c := range d.Children {
			if _, ok := goZKSeq(c.Name); !ok {
				out = append(out, Problem{Kind: "stray-child", Node: joinPath(d.Path, c.Name),
					Detail: "go-zookeeper's Lock cannot parse this name and fails for every contender (leaving its own node behind)"})
			}
		}
		for _, p := range q.Participants {
			if p.State == StateWaiting && p.Watches == "" {
				out = append(out, Problem{Kind: "no-predecessor", Node: p.Node,
					Detail: "not the lowest, but every lower sequence is negative: go-zookeeper's Lock watches nothing and fails"})
			}
		}
	case KindKazooLock, KindKazooRW, KindKazooSemaphore:
		if q.Kind == KindKazooRW {
			out = append(out, kazooDeadlockRisk(q)...)
		}
		for _, p := range q.Participants {
			if p.HasSeq && p.Seq < 0 && p.Seq > -1000000000 {
				out = append(out, Problem{Kind: "invisible-sequence", Node: p.Node,
					Detail: "kazoo's pattern misses this overflowed sequence: other contenders ignore the node, so two may hold at once"})
			}
		}
	}
	if overflowed {
		out = append(out, Problem{Kind: "sequence-overflow", Detail: "the parent's cversion passed 2^31: sequence numbers are negative and sort out of order"})
	} else if d.Stat.Cversion > (1<<31-1)-overflowRisk {
		out = append(out, Problem{Kind: "sequence-overflow-risk",
			Detail: fmt.Sprintf("the parent's cversion is %d: sequence numbers overflow to negative after 2147483647", d.Stat.Cversion)})
	}
	return out
}

// kazooDeadlockRisk flags the kazoo < 2.9 read/write deadlock
// (python-zk/kazoo#649): a waiting reader there re-evaluates to wait on the
// NEWEST writer, even one queued behind it, which in turn waits for the
// reader. A waiting reader with a writer queued after it deadlocks as soon
// as the writer it waits on lets go.
func kazooDeadlockRisk(q Queue) []Problem {
	var out []Problem
	nextWriter := -1 // the first writer after the participant at hand
	for i := len(q.Participants) - 1; i >= 0; i-- {
		p := &q.Participants[i]
		if p.Mode == ModeRead && p.State == StateWaiting && nextWriter >= 0 {
			out = append(out, Problem{Kind: "kazoo-rw-deadlock-risk", Node: p.Node,
				Detail: fmt.Sprintf("kazoo before 2.9 (python-zk/kazoo#649): when %s lets go this reader waits on the later writer %s, which waits for it: deadlock; upgrade kazoo", path.Base(p.Watches), q.Participants[nextWriter].Name)})
		}
		if p.Mode == ModeWrite {
			nextWriter = i
		}
	}
	slices.Reverse(out) // in queue order
	return out
}
