package lockops

// kazoo (shared/lock-recipes.md §2): <uuid4 hex32><NODE_NAME><seq>,
// non-matching children ignored, predecessor = the nearest lower blocker
// by sequence string, PERSISTENT parents.

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// kazoo node names (NODE_NAME of Lock/WriteLock and ReadLock).
const (
	KazooLockMarker = "__lock__"
	KazooReadMarker = "__rlock__"
)

// IsKazooLease reports whether name is a kazoo Semaphore lease's:
// uuid4().hex, 32 hex digits, not sequential.
func IsKazooLease(name string) bool { return len(name) == 32 && isHex(name) }

// KazooSemaphoreLock ends the path of a kazoo Semaphore's internal lock,
// next to the semaphore: <sem>-__lock__.
const KazooSemaphoreLock = "-__lock__"

// Kazoo is python-zk/kazoo's format: Lock, WriteLock, ReadLock, Semaphore.
var Kazoo = &Library{
	Name: "kazoo", Title: "kazoo",
	parse:  parseKazoo,
	kindOf: kazooKind,
	Format: &TakeFormat{
		Kinds:  map[Mode]Kind{ModeExclusive: KindKazooLock, ModeRead: KindKazooRW, ModeWrite: KindKazooRW},
		Marker: kazooMarker,
		NewPrefix: func(marker string) string {
			b := uuid4() // uuid4().hex
			return fmt.Sprintf("%x%s", b[:], marker)
		},
	},
}

func parseKazoo(name string) (marker, seq string, ok bool) {
	if len(name) <= 32 || !isHex(name[:32]) {
		return "", "", false
	}
	for _, m := range []string{KazooLockMarker, KazooReadMarker} {
		if s, ok := strings.CutPrefix(name[32:], m); ok {
			if _, ok := ParseSeq(s); ok {
				return m, s, true
			}
		}
	}
	return "", "", false
}

func kazooKind(has func(string) bool) Kind {
	if has(KazooReadMarker) {
		return KindKazooRW
	}
	return KindKazooLock
}

func kazooMarker(m Mode) string {
	if m == ModeRead {
		return KazooReadMarker
	}
	return KazooLockMarker
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

// kazooContender is a node kazoo's Lock (or, with rw, its read/write
// lock) counts.
type kazooContender struct {
	c       *Child
	seq     string
	read    bool
	visible bool
}

// kazooContenders are the children kazoo counts, in its order (by sequence
// string, ties by name).
func kazooContenders(children []Child, rw bool) []kazooContender {
	cs := make([]kazooContender, 0, len(children))
	for i := range children {
		c := &children[i]
		n := parseName(c.Name)
		if n.lib != Kazoo {
			continue
		}
		read := n.marker == KazooReadMarker
		if read && !rw {
			continue // a plain Lock ignores __rlock__
		}
		_, visible := kazooSeq(c.Name, n.marker)
		cs = append(cs, kazooContender{c: c, seq: n.seqStr, read: read, visible: visible})
	}
	keys := make([]string, len(cs))
	for i := range cs {
		keys[i] = cs[i].seq
	}
	permute(cs, keyOrder(keys, nil, func(i int) string { return cs[i].c.Name }))
	return cs
}

// decodeKazooLock: kazoo Lock (exclusive) or, with rw, WriteLock and
// ReadLock. Children that do not match kazoo's pattern are ignored; a
// contender's predecessor is the NEAREST blocker with a smaller sequence
// STRING (a reader is blocked by __lock__ nodes, a writer by both), watched
// with get(). A node whose overflowed sequence ("-000000001") the pattern
// misses is invisible to the others but still judges by its own sequence.
func decodeKazooLock(dir string, children []Child, rw bool) []Participant {
	cs := kazooContenders(children, rw)
	ps := make([]Participant, len(cs))
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
	return NumberPositions(ps)
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
		queue = decodeKazooLock(d.Aux.Path, d.Aux.Children, false)
		for i := range queue {
			queue[i].Mode = ModeLock
			if queue[i].State == StateHolding && (maxLeases == 0 || len(holding) >= maxLeases) {
				queue[i].State, queue[i].Watches, queue[i].WatchKind = StateWaiting, d.Path, WatchChildren
			}
		}
	}
	if maxLeases > 0 && len(holding) > maxLeases {
		q.Problems = append(q.Problems, Problem{Kind: ProblemLeasesExceedMax,
			Detail: fmt.Sprintf("%d leases held for max_leases %d", len(holding), maxLeases)})
	}
	q.Participants = NumberPositions(append(holding, queue...))
	return q
}

// checkKazooRWDeadlockRisk flags the kazoo < 2.9 read/write deadlock
// (python-zk/kazoo#649): a waiting reader there re-evaluates to wait on the
// NEWEST writer, even one queued behind it, which in turn waits for the
// reader. A waiting reader with a writer queued after it deadlocks as soon
// as the writer it waits on lets go.
func checkKazooRWDeadlockRisk(_ Dir, q *Queue) []Problem {
	if q.Kind != KindKazooRW {
		return nil
	}
	var out []Problem
	nextWriter := -1 // the first writer after the participant at hand
	for i := len(q.Participants) - 1; i >= 0; i-- {
		p := &q.Participants[i]
		if p.Mode == ModeRead && p.State == StateWaiting && nextWriter >= 0 {
			out = append(out, Problem{Kind: ProblemKazooRWDeadlockRisk, Node: p.Node,
				Detail: fmt.Sprintf("kazoo before 2.9 (python-zk/kazoo#649): when %s lets go this reader waits on the later writer %s, which waits for it: deadlock; upgrade kazoo", path.Base(p.Watches), q.Participants[nextWriter].Name)})
		}
		if p.Mode == ModeWrite {
			nextWriter = i
		}
	}
	slices.Reverse(out) // in queue order
	return out
}
