package lockops

import (
	"cmp"
	"fmt"
	"path"
	"slices"
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
	var c Census
	if d.Aux == nil {
		c = takeCensus(d.Children)
	}
	k := o.Kind
	switch {
	case k != "":
	case d.Aux != nil:
		k = Detect(d) // a semaphore: by its layout
	default:
		k = c.KindOf(c.Dominant()) // what Detect says, from the census taken
		if f := FamilyOfChildren(d.Children); f != "" {
			k = f // a system's election: by its node names
		} else if len(d.Children) == 0 && d.Stat.EphemeralOwner != 0 && d.Stat.Czxid != 0 {
			k = KindEphemeralLock // an ephemeral node read as a lock: it holds itself
		}
	}
	q := DecodeAs(d, k, o)
	if own := k.Library(); d.Aux == nil && own != nil && !k.SingleNode() {
		names := []string{own.String()}
		for _, l := range c.Present() {
			if l != own {
				names = append(names, l.String())
				q.Others = append(q.Others, DecodeAs(d, c.KindOf(l), o))
			}
		}
		if len(names) > 1 {
			q.Problems = append(q.Problems, Problem{Kind: ProblemMixedLibraries,
				Detail: fmt.Sprintf("nodes of %s in one directory: each library orders them its own way (see the other views)", strings.Join(names, " and "))})
		}
	}
	q.Problems = append(q.Problems, structuralProblems(d, q)...)
	return q
}

// recipe is how one [Kind] is decoded, and the library it belongs to.
type recipe struct {
	lib *Library
	// decode orders d's participants, finds the holders and each waiter's
	// watch target. Queue's Path and Kind are filled by decodeAs.
	decode func(d Dir, o DecodeOptions) Queue
}

// recipes are the recipes the decoders know, by kind.
var recipes = map[Kind]recipe{
	KindCuratorMutex: {Curator, func(d Dir, o DecodeOptions) Queue {
		return Queue{Participants: decodeCuratorMutex(d.Path, d.Children, CuratorLockMarker, ModeExclusive, 1)}
	}},
	KindCuratorLeaderLatch: {Curator, func(d Dir, o DecodeOptions) Queue {
		return Queue{Participants: decodeCuratorMutex(d.Path, d.Children, CuratorLatchMarker, ModeLatch, 1)}
	}},
	KindCuratorRW: {Curator, func(d Dir, o DecodeOptions) Queue {
		return Queue{Participants: decodeCuratorRW(d.Path, d.Children)}
	}},
	KindCuratorSemaphoreV2: {Curator, func(d Dir, o DecodeOptions) Queue { return decodeCuratorSemaphore(d, o.MaxLeases) }},
	KindKazooLock: {Kazoo, func(d Dir, o DecodeOptions) Queue {
		return Queue{Participants: decodeKazooLock(d.Path, d.Children, false)}
	}},
	KindKazooRW: {Kazoo, func(d Dir, o DecodeOptions) Queue {
		return Queue{Participants: decodeKazooLock(d.Path, d.Children, true)}
	}},
	KindKazooSemaphore: {Kazoo, func(d Dir, o DecodeOptions) Queue { return decodeKazooSemaphore(d, o.MaxLeases) }},
	KindGoZK: {GoZK, func(d Dir, o DecodeOptions) Queue {
		return Queue{Participants: decodeGoZK(d.Path, d.Children)}
	}},
	KindZooKeeperLock: {ZooKeeper, func(d Dir, o DecodeOptions) Queue {
		return Queue{Participants: decodeZooKeeperLock(d.Path, d.Children)}
	}},
	KindZooKeeperDocsRW: {ZooKeeperDocs, func(d Dir, o DecodeOptions) Queue {
		return Queue{Participants: decodeDocsRW(d.Path, d.Children)}
	}},
	KindKafkaController: {Kafka, func(d Dir, o DecodeOptions) Queue { return decodeKafka(d) }},
	KindHadoopHA:        {Hadoop, func(d Dir, o DecodeOptions) Queue { return decodeHadoop(d) }},
	KindHBaseMaster:     {HBase, func(d Dir, o DecodeOptions) Queue { return decodeHBase(d) }},
	KindSolrOverseer:    {Solr, func(d Dir, o DecodeOptions) Queue { return decodeSolr(d) }},
	KindEphemeralLock:   {Ephemeral, func(d Dir, o DecodeOptions) Queue { return decodeEphemeral(d) }},
}

// DecodeAs decodes d as recipe k, whatever its names say.
func DecodeAs(d Dir, k Kind, o DecodeOptions) Queue {
	r, ok := recipes[k]
	if !ok {
		q := Queue{Path: d.Path, Kind: KindUnknown, Participants: decodeUnknown(d.Path, d.Children)}
		if len(q.Participants) > 0 {
			q.Problems = append(q.Problems, Problem{Kind: ProblemUnknownRecipe,
				Detail: "no known lock recipe makes these names: the order shown is by sequence number only"})
		}
		return q
	}
	q := r.decode(d, o)
	if q.Path == "" {
		q.Path = d.Path
	}
	q.Kind = k
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

// NumberPositions sets positions 0..n-1 in slice order.
func NumberPositions(ps []Participant) []Participant {
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
	return NumberPositions(ps)
}

// structuralProblems are the problems one read of the directory shows
// without asking the servers: ties, strays, overflow. Each check adds its
// kind's problems in queue order; a check that does not apply to the
// recipe adds none.
func structuralProblems(d Dir, q Queue) []Problem {
	var out []Problem
	for _, check := range []func(d Dir, q *Queue) []Problem{
		checkSequenceTie,
		checkBlockingStray,
		checkGoZKStray,
		checkNoPredecessor,
		checkKazooRWDeadlockRisk,
		checkInvisibleSequence,
		checkSequenceOverflow,
	} {
		out = append(out, check(d, &q)...)
	}
	return out
}

// ordered reports whether p's sequence counts in q's order (a kazoo
// semaphore's leases and strays do not).
func ordered(q *Queue, p *Participant) bool {
	return p.HasSeq && p.Mode != ModeStray && !(p.Mode == ModeLease && q.Kind == KindKazooSemaphore)
}

// seqsIncrease reports whether q's ordered participants come in strictly
// increasing sequence order, which leaves no tie to look for.
func seqsIncrease(q *Queue) bool {
	first, last := true, int64(0)
	for i := range q.Participants {
		if p := &q.Participants[i]; ordered(q, p) {
			if !first && p.Seq <= last {
				return false
			}
			first, last = false, p.Seq
		}
	}
	return true
}

// checkSequenceTie: each node against the one before it in queue order
// with the same sequence, found by sorting (sequence, index) pairs, which
// the queue order usually already is.
func checkSequenceTie(_ Dir, q *Queue) []Problem {
	type seqAt struct {
		seq int64
		i   int
	}
	if seqsIncrease(q) {
		return nil // the usual queue: no two ordered nodes share a sequence
	}
	seqs := make([]seqAt, 0, len(q.Participants))
	for i := range q.Participants {
		if p := &q.Participants[i]; ordered(q, p) {
			seqs = append(seqs, seqAt{p.Seq, i})
		}
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
	var out []Problem
	for _, t := range ties {
		p, o := &q.Participants[t[0]], &q.Participants[t[1]]
		if !(q.Kind == KindCuratorRW && o.Session == p.Session && o.Mode != p.Mode) && path.Dir(o.Node) == path.Dir(p.Node) {
			out = append(out, Problem{Kind: ProblemSequenceTie, Node: p.Node,
				Detail: fmt.Sprintf("same sequence %d as %s: the libraries break the tie by name or server order", p.Seq, o.Name)})
		}
	}
	return out
}

// checkBlockingStray: a stray the library counts, with a lock node after
// it.
func checkBlockingStray(_ Dir, q *Queue) []Problem {
	lastReal := -1
	for i := range q.Participants {
		if q.Participants[i].Mode != ModeStray {
			lastReal = i
		}
	}
	var out []Problem
	for i := range q.Participants[:lastReal+1] {
		if p := &q.Participants[i]; p.Mode == ModeStray {
			out = append(out, Problem{Kind: ProblemStrayChild, Node: p.Node,
				Detail: "not a lock node, but the library counts it in the queue: the contender after it waits on it forever"})
		}
	}
	return out
}

// checkGoZKStray: a child go-zookeeper's Lock cannot parse.
func checkGoZKStray(d Dir, q *Queue) []Problem {
	if q.Kind != KindGoZK {
		return nil
	}
	var out []Problem
	for _, c := range d.Children {
		if _, ok := goZKSeq(c.Name); !ok {
			out = append(out, Problem{Kind: ProblemStrayChild, Node: JoinPath(d.Path, c.Name),
				Detail: "go-zookeeper's Lock cannot parse this name and fails for every contender (leaving its own node behind)"})
		}
	}
	return out
}

// checkNoPredecessor: a go-zookeeper waiter that finds nothing to watch.
func checkNoPredecessor(_ Dir, q *Queue) []Problem {
	if q.Kind != KindGoZK {
		return nil
	}
	var out []Problem
	for i := range q.Participants {
		if p := &q.Participants[i]; p.State == StateWaiting && p.Watches == "" {
			out = append(out, Problem{Kind: ProblemNoPredecessor, Node: p.Node,
				Detail: "not the lowest, but every lower sequence is negative: go-zookeeper's Lock watches nothing and fails"})
		}
	}
	return out
}

// checkInvisibleSequence: an overflowed sequence kazoo's pattern misses.
func checkInvisibleSequence(_ Dir, q *Queue) []Problem {
	if q.Kind != KindKazooLock && q.Kind != KindKazooRW && q.Kind != KindKazooSemaphore {
		return nil
	}
	var out []Problem
	for i := range q.Participants {
		if p := &q.Participants[i]; p.HasSeq && p.Seq < 0 && p.Seq > -1000000000 {
			out = append(out, Problem{Kind: ProblemInvisibleSequence, Node: p.Node,
				Detail: "kazoo's pattern misses this overflowed sequence: other contenders ignore the node, so two may hold at once"})
		}
	}
	return out
}

// checkSequenceOverflow: negative sequences in the order, or a parent's
// cversion close to making them.
func checkSequenceOverflow(d Dir, q *Queue) []Problem {
	for i := range q.Participants {
		if p := &q.Participants[i]; ordered(q, p) && p.Seq < 0 {
			return []Problem{{Kind: ProblemSequenceOverflow, Detail: "the parent's cversion passed 2^31: sequence numbers are negative and sort out of order"}}
		}
	}
	if d.Stat.Cversion > (1<<31-1)-overflowRisk {
		return []Problem{{Kind: ProblemSequenceOverflowRisk,
			Detail: fmt.Sprintf("the parent's cversion is %d: sequence numbers overflow to negative after 2147483647", d.Stat.Cversion)}}
	}
	return nil
}

// Recognised reports whether k is a lock recipe zkscope decodes by its
// library's rules (not [KindUnknown]).
func Recognised(k Kind) bool { return k != "" && k != KindUnknown }
