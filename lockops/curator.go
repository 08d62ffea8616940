package lockops

// Apache Curator 5.x (shared/lock-recipes.md §1): protected names
// _c_<uuid36>-<lockName><seq>, every child sorted by the text after the
// last lock name (string order, strays included), CONTAINER parents.

import (
	"crypto/rand"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Curator lock names inside protected node names.
const (
	CuratorLockMarker  = "lock-"
	CuratorReadMarker  = "__READ__"
	CuratorWriteMarker = "__WRIT__"
	CuratorLatchMarker = "latch-"
	curatorLease       = "lease-"
)

// A Curator SemaphoreV2 keeps two directories below its path: its leases
// and the queue of its internal lock.
const (
	CuratorLeases = "leases"
	CuratorLocks  = "locks"
)

// IsCuratorSemaphore reports whether names, the children of a path, are a
// Curator SemaphoreV2's directory: leases and locks, and maybe its lease
// count node.
func IsCuratorSemaphore(names []string) bool {
	return slices.Contains(names, CuratorLeases) && slices.Contains(names, CuratorLocks) && len(names) <= 3
}

// IsCuratorLeases reports whether dir, with children names, is the leases/
// directory of a Curator SemaphoreV2 at its parent: named leases and
// holding Curator's lease nodes only. It tells a semaphore whose locks/
// is gone: locks/ is a container that only holds nodes while a client
// queues for a lease, and the server deletes an emptied container, so a
// semaphore whose leases are held with nobody waiting soon has leases/
// alone.
func IsCuratorLeases(dir string, names []string) bool {
	if path.Base(dir) != CuratorLeases || dir == "/"+CuratorLeases || len(names) == 0 {
		return false
	}
	for _, n := range names {
		if LibraryOf(n) != Curator || !strings.Contains(n, curatorLease) {
			return false
		}
	}
	return true
}

// Curator is Apache Curator's format: InterProcessMutex, LeaderSelector,
// InterProcessReadWriteLock, InterProcessSemaphoreV2 and LeaderLatch.
var Curator = &Library{
	Name: "curator", Title: "Curator",
	parse:  parseCurator,
	kindOf: curatorKind,
	Format: &TakeFormat{
		Kinds:            map[Mode]Kind{ModeExclusive: KindCuratorMutex, ModeRead: KindCuratorRW, ModeWrite: KindCuratorRW},
		Marker:           curatorMarker,
		NewPrefix:        curatorPrefix,
		ContainerParents: true,
	},
}

func parseCurator(name string) (marker, seq string, ok bool) {
	rest, ok := strings.CutPrefix(name, "_c_")
	if !ok || len(rest) <= 37 || !isUUID36(rest[:36]) || rest[36] != '-' {
		return "", "", false
	}
	tail := rest[37:]
	for _, m := range []string{CuratorReadMarker, CuratorWriteMarker, CuratorLatchMarker, curatorLease, CuratorLockMarker} {
		if s, ok := strings.CutPrefix(tail, m); ok {
			return m, s, true
		}
	}
	return "", "", true // a protected name with a lock name we do not know
}

func curatorKind(has func(string) bool) Kind {
	switch {
	case has(CuratorReadMarker) || has(CuratorWriteMarker):
		return KindCuratorRW
	case has(CuratorLatchMarker):
		return KindCuratorLeaderLatch
	case has(curatorLease) && !has(CuratorLockMarker):
		return KindCuratorSemaphoreV2
	}
	return KindCuratorMutex
}

func curatorMarker(m Mode) string {
	switch m {
	case ModeRead:
		return CuratorReadMarker
	case ModeWrite:
		return CuratorWriteMarker
	}
	return CuratorLockMarker
}

// curatorPrefix is ProtectedUtils' "_c_" + UUID (java.util.UUID.randomUUID,
// version 4, with dashes) + "-" + the lock name.
func curatorPrefix(marker string) string {
	b := uuid4()
	return fmt.Sprintf("_c_%x-%x-%x-%x-%x-%s", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16], marker)
}

// uuid4 is 16 random bytes with the version 4 and variant bits set.
func uuid4() [16]byte {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("read random bytes: %v", err)) // crypto/rand never fails on Linux
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return b
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
func decodeCuratorMutex(dir string, children []Child, lockName string, mode Mode, maxLeases int) []Participant {
	kids := sortByKey(children, func(c *Child) string { return curatorKey(c.Name, lockName) }, nil)
	ps := make([]Participant, len(kids))
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
	return NumberPositions(ps)
}

// decodeCuratorRW: InterProcessReadWriteLock. All children sorted by the
// bare sequence (the text after __READ__, then after __WRIT__). A writer
// holds at index 0 and watches sorted[i-1]; a reader holds when no writer
// stands before it and otherwise watches the FIRST writer. A reader owned
// by the session of the holding writer is a downgrade and holds (≤5.4: a
// later sequential node; 5.5+: a non-sequential node with the writer's
// sequence, which we order after the writer).
func decodeCuratorRW(dir string, children []Child) []Participant {
	key := func(c *Child) string { return curatorKey(c.Name, CuratorReadMarker, CuratorWriteMarker) }
	isWriter := func(c *Child) bool { return strings.Contains(c.Name, CuratorWriteMarker) }
	kids := sortByKey(children, key, isWriter)
	var holdingWriter int64 = 0
	if len(kids) > 0 && isWriter(kids[0]) && kids[0].Owner != 0 {
		holdingWriter = kids[0].Owner
	}
	ps := make([]Participant, len(kids))
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
		case strings.Contains(c.Name, CuratorReadMarker):
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
	return NumberPositions(ps)
}

// decodeCuratorSemaphore: InterProcessSemaphoreV2 at <path>, d being
// <path>/leases and d.Aux <path>/locks. The locks/ mutex head has made (or
// is making) its lease; while there are more leases than maxLeases it
// waits, holding the mutex, on a getChildren watch of leases/.
func decodeCuratorSemaphore(d Dir, maxLeases int) Queue {
	semPath := d.Path
	leasesPath := d.Path
	if path.Base(d.Path) == CuratorLeases {
		semPath = path.Dir(d.Path)
	}
	q := Queue{Path: semPath, Kind: KindCuratorSemaphoreV2}
	leases := decodeCuratorMutex(leasesPath, d.Children, curatorLease, ModeLease, len(d.Children))
	var locks []Participant
	locksPath := JoinPath(semPath, CuratorLocks)
	if d.Aux != nil {
		locksPath = d.Aux.Path
		locks = decodeCuratorMutex(locksPath, d.Aux.Children, CuratorLockMarker, ModeLock, 1)
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
		q.Problems = append(q.Problems, Problem{Kind: ProblemMaxLeasesInferred,
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
		q.Problems = append(q.Problems, Problem{Kind: ProblemLeasesExceedMax,
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
	q.Participants = NumberPositions(append(holding, waiting...))
	return q
}

// RevokeMessage is Curator's revocation request (Revoker.REVOKE_MESSAGE).
var RevokeMessage = []byte("__REVOKE__")
