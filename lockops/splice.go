package lockops

import "slices"

// Splicing: a followed lock's queue brought up to date as its children
// come and go, without decoding the whole directory again. It applies to
// the recipes where a node's state and wait follow from the node and the
// one before it in the order ([spliceKinds]), with every sequence
// distinct: there, decoding a node with only its predecessor (a window of
// two) gives what decoding the whole directory gives it, and decoding two
// nodes together says which comes first. The recipe's decoder decides
// both, through [DecodeAs]; the structural problems are checked on the
// whole spliced queue. Anything else (another recipe, a mixed directory,
// a problem in the queue, a tie, an empty queue, a node of another kind)
// makes [Splicer.Splice] refuse, and the caller decodes the directory
// whole. TestSpliceEqualsDecode holds the two to the same queue.

// spliceKinds are the recipes whose nodes depend only on their
// predecessor: one holder, each waiter watching the node before it.
var spliceKinds = map[Kind]bool{
	KindCuratorMutex:       true,
	KindCuratorLeaderLatch: true,
	KindKazooLock:          true,
	KindGoZK:               true,
}

// Splicer keeps a decoded queue that [Splicer.Splice] brings up to date.
// It is used by one goroutine at a time. It reads the participants of the
// last queue it returned for the next splice (one copy per change, not
// two): their caller may apply the servers' view to them (Client,
// WatchObserved, ObservedWatches, which the next splice clears) and add
// problems to the queue, but change nothing else of them.
type Splicer struct {
	o      DecodeOptions
	path   string
	kind   Kind
	marker string
	ps     []Participant // the last queue's participants, in order
	dirty  []bool        // which of ps to decode again (reused)
	// spare is a slice the next splice may write its queue into (Reuse).
	spare []Participant
}

// Reuse gives the splicer buf, a slice of participants nothing reads any
// more (a queue long replaced), to write the next queue into instead of
// a new one: a followed lock of thousands of nodes then costs no new
// memory per change. A buf that shares memory with the last queue is
// ignored.
func (s *Splicer) Reuse(buf []Participant) {
	if s == nil || cap(buf) == 0 || cap(s.ps) > 0 && &buf[:cap(buf)][cap(buf)-1] == &s.ps[:cap(s.ps)][cap(s.ps)-1] {
		return
	}
	s.spare = buf[:0]
}

// NewSplicer keeps q, a whole [Decode] of a directory with options o, for
// splicing; nil when its recipe or contents do not allow it (then every
// change is decoded whole).
func NewSplicer(q Queue, o DecodeOptions) *Splicer {
	if !spliceKinds[q.Kind] || o.Kind != "" && o.Kind != q.Kind || len(q.Others) > 0 || len(q.Problems) > 0 || len(q.Participants) == 0 {
		return nil
	}
	ps := q.Participants
	if !plainChain(ps) {
		return nil
	}
	n := parseName(ps[0].Name)
	if n.lib != q.Kind.Library() {
		return nil
	}
	for i := range ps {
		if m := parseName(ps[i].Name); m.lib != n.lib || m.marker != n.marker {
			return nil
		}
	}
	return &Splicer{o: o, path: q.Path, kind: q.Kind, marker: n.marker, ps: slices.Clone(ps)}
}

// plainChain reports whether ps are all lock nodes of their own with
// strictly increasing, non-negative sequences (no tie, no stray, no
// overflow).
func plainChain(ps []Participant) bool {
	for i := range ps {
		p := &ps[i]
		if !p.HasSeq || p.Seq < 0 || p.Mode == ModeStray || p.WatcherOnly || i > 0 && p.Seq <= ps[i-1].Seq {
			return false
		}
	}
	return true
}

// childOf is the child p was decoded from.
func childOf(p *Participant) Child {
	return Child{Name: p.Name, Path: p.Node, Data: p.Data, Owner: p.Session, Ctime: p.Ctime.UnixMilli(), Czxid: p.Czxid, Version: p.Version}
}

// window decodes kids alone as the splicer's recipe.
func (s *Splicer) window(kids ...Child) []Participant {
	return DecodeAs(Dir{Path: s.path, Children: kids}, s.kind, s.o).Participants
}

// Splice returns the queue of the directory once the children named in
// gone have left and fresh have come (a child whose data changed is in
// both), d being the directory's path, stat and data after them (its
// children are not read). ok false: the queue must be decoded whole; the
// splicer is then of no more use. After a queue with problems it
// refuses too: the next change is decoded whole.
func (s *Splicer) Splice(d Dir, gone []string, fresh []Child) (q Queue, ok bool) {
	if s == nil || d.Path != s.path || d.Aux != nil || len(s.ps) == 0 {
		return Queue{}, false
	}
	ps, dirty, ok := s.without(gone)
	for _, c := range fresh {
		if ok {
			ps, dirty, ok = s.insert(ps, dirty, c)
		}
	}
	s.ps, s.dirty = ps, dirty
	if !ok || len(ps) == 0 || !plainChain(ps) {
		s.ps = nil
		return Queue{}, false
	}
	for i := range ps {
		if dirty[i] || i == 0 && ps[i].State != StateHolding {
			if !s.redecode(i) {
				s.ps = nil
				return Queue{}, false
			}
		}
		ps[i].Position = i
	}
	q = Queue{Path: s.path, Kind: s.kind, Participants: ps}
	q.Problems = structuralProblems(Dir{Path: d.Path, Stat: d.Stat, Data: d.Data}, q)
	if len(q.Problems) > 0 {
		s.ps = nil // the next change: decoded whole
	}
	return q, true
}

// without is a copy of the last queue's participants without those named
// in gone (false: one is not there), each marked when its predecessor
// left. The last queue's participants are the caller's since they were
// returned (a view applied to them, see clearView): they are only read.
func (s *Splicer) without(gone []string) ([]Participant, []bool, bool) {
	at := make([]int, 0, len(gone))
	for _, name := range gone {
		i := indexOf(s.ps, name)
		if i < 0 {
			return nil, nil, false
		}
		at = append(at, i)
	}
	slices.Sort(at)
	at = slices.Compact(at) // a name twice: once gone
	ps := s.spare
	if s.spare = nil; cap(ps) < len(s.ps)-len(at)+4 {
		ps = make([]Participant, 0, len(s.ps)-len(at)+4)
	}
	from := 0
	for _, i := range at {
		ps = append(ps, s.ps[from:i]...) // in runs: one copy each
		from = i + 1
	}
	ps = append(ps, s.ps[from:]...)
	dirty := slices.Grow(s.dirty[:0], len(ps))[:len(ps)]
	clear(dirty)
	for k, i := range at {
		if j := i - k; j < len(dirty) {
			dirty[j] = true // its predecessor left
		}
	}
	for i := range ps {
		if x := &ps[i]; x.Client != "" || x.WatchObserved != nil || x.ObservedWatches != nil {
			clearView(x)
		}
	}
	return ps, dirty, true
}

// indexOf is the index of the participant named name in ps, -1 if none
// (the usual departure is the first).
func indexOf(ps []Participant, name string) int {
	for i := range ps {
		if ps[i].Name == name {
			return i
		}
	}
	return -1
}

// clearView takes off a participant what a view of the servers sets
// ([Participant.Client], WatchObserved, ObservedWatches): a decode leaves
// them empty.
func clearView(p *Participant) {
	p.Client, p.WatchObserved, p.ObservedWatches = "", nil, nil
}

// insert places c, decoded alone, where the recipe orders it among ps,
// marking it and its successor to be decoded again.
func (s *Splicer) insert(ps []Participant, dirty []bool, c Child) ([]Participant, []bool, bool) {
	if n := parseName(c.Name); n.lib != s.kind.Library() || n.marker != s.marker {
		return ps, dirty, false
	}
	one := s.window(c)
	if len(one) != 1 || one[0].Name != c.Name {
		return ps, dirty, false
	}
	// Where it goes: after every node the recipe puts before it (the
	// usual arrival goes last: one comparison).
	before := func(i int) bool {
		w := s.window(childOf(&ps[i]), c)
		return len(w) == 2 && w[0].Name == ps[i].Name
	}
	at := len(ps)
	if at > 0 && !before(at-1) {
		lo, hi := 0, at-1 // the first node not before c is in [lo, hi]
		for lo < hi {
			mid := (lo + hi) / 2
			if before(mid) {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		at = lo
	}
	ps, dirty = slices.Insert(ps, at, one[0]), slices.Insert(dirty, at, true)
	if at+1 < len(dirty) {
		dirty[at+1] = true
	}
	return ps, dirty, true
}

// redecode decodes s.ps[i] again with its predecessor (alone when it is
// first).
func (s *Splicer) redecode(i int) bool {
	ps := s.ps
	var w []Participant
	if i == 0 {
		w = s.window(childOf(&ps[0]))
	} else {
		w = s.window(childOf(&ps[i-1]), childOf(&ps[i]))
	}
	if len(w) != min(i+1, 2) || w[len(w)-1].Name != ps[i].Name {
		return false
	}
	ps[i] = w[len(w)-1]
	return true
}
