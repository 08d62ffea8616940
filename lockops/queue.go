package lockops

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// Kind names a lock recipe as decoded, in the words of the
// `zkscope locks --json` contract ("curator.mutex", "kazoo.rwlock", …).
type Kind string

// The recipes the decoders know. Their string values are part of the JSON
// contract (shared/locks-json.md): never rename them.
const (
	KindCuratorMutex       Kind = "curator.mutex"
	KindCuratorRW          Kind = "curator.rwlock"
	KindCuratorSemaphoreV2 Kind = "curator.semaphore-v2"
	KindCuratorLeaderLatch Kind = "curator.leader-latch"
	KindKazooLock          Kind = "kazoo.lock"
	KindKazooRW            Kind = "kazoo.rwlock"
	KindKazooSemaphore     Kind = "kazoo.semaphore"
	KindGoZK               Kind = "go-zk.lock"
	KindZooKeeperLock      Kind = "zookeeper.lock"
	KindZooKeeperDocsRW    Kind = "zookeeper.docs-rwlock"
	KindUnknown            Kind = "unknown"

	// Single-node locks and elections (election.go): one node whose
	// existence means "held", or (Solr) a system's election queue.
	KindKafkaController Kind = "kafka.controller"
	KindHadoopHA        Kind = "hadoop.ha"
	KindHBaseMaster     Kind = "hbase.master"
	KindSolrOverseer    Kind = "solr.overseer"
	KindEphemeralLock   Kind = "zookeeper.ephemeral-lock"
)

// State is a participant's place in a queue.
type State string

// Participant states.
const (
	StateHolding State = "holding"
	StateWaiting State = "waiting"
)

// WatchKind is the call a waiter uses to wait on its target.
type WatchKind string

// Watch kinds. A children watch is set with getChildren on a parent
// (semaphore lease waits); data with getData; exists with exists.
const (
	WatchNone     WatchKind = ""
	WatchData     WatchKind = "data"
	WatchExists   WatchKind = "exists"
	WatchChildren WatchKind = "children"
)

// Child is one znode of a lock directory as read: its name (relative to the
// directory), data, and the stat fields a decoder uses. Path, when set, is
// the node's absolute path (the directory's path joined with Name), kept
// so that a decoder need not build it again. A 10,000-contender lock is
// read into 10,000 of these, so they hold no more than that.
type Child struct {
	Name    string
	Path    string
	Data    []byte
	Owner   int64 // the stat's ephemeralOwner: the session, 0 for a persistent node
	Ctime   int64 // creation time, ms since the epoch
	Czxid   int64
	Version int32
}

// ChildOf is the Child for a node read as name (at path, "" to let the
// decoder join it) with stat st and data.
func ChildOf(name, path string, st *zk.Stat, data []byte) Child {
	return Child{Name: name, Path: path, Data: data, Owner: st.EphemeralOwner, Ctime: st.Ctime, Czxid: st.Czxid, Version: st.Version}
}

// path is c's absolute path in dir.
func (c *Child) path(dir string) string {
	if c.Path != "" {
		return c.Path
	}
	return JoinPath(dir, c.Name)
}

// Dir is everything a decoder reads about one lock: the directory's own
// path (absolute, as the user sees it), stat and data, and its children.
// Semaphores span two places; Aux holds the second one (Curator
// SemaphoreV2: Path is <path>/leases and Aux <path>/locks; kazoo Semaphore:
// Path is <path> and Aux <path>-__lock__). Aux is nil for other recipes.
type Dir struct {
	Path     string
	Stat     zk.Stat
	Data     []byte
	Children []Child
	Aux      *Dir
	// Context are the nodes a system's election keeps away from its
	// directory (Kafka's /brokers/ids/*, HBase's backup masters, Solr's
	// leader node), each with its Path; nil for other recipes.
	Context []Child
}

// Participant is one node of a lock queue as the recipe's client library
// sees it.
//
// (The small fields are grouped so that a 10,000-node queue takes less
// memory.)
type Participant struct {
	Node      string // absolute znode path
	Name      string // last path element
	Seq       int64  // parsed sequence number; meaningful when HasSeq
	Version   int32
	HasSeq    bool
	Ephemeral bool
	// WatcherOnly: a waiter that owns no node of the lock, seen only in
	// the servers' watch lists (a single-node lock's or election's
	// candidates); Node is then the node it watches.
	WatcherOnly bool
	Mode        Mode // exclusive, read, write, or ModeLease / ModeLatch
	State       State
	Position    int // 0-based place in the recipe's order
	Session     int64
	Czxid       int64
	Data        []byte
	Ctime       time.Time // the node's creation (the server's clock): its age, not how long it has held

	// HeldSince is when this holder began to hold, where that is known:
	// zkscope saw it turn holding or appear holding after its first read
	// (the lock pane, `locks --watch`), or a history says so (transaction
	// log, recording); zero when unknown, HeldSource then "". One read
	// of a lock cannot know it: a node holds from when those before it
	// left, not from its creation.
	HeldSince  time.Time
	HeldSource HeldSource
	// WaitSeen is when zkscope first read this waiter waiting on Watches
	// (zkscope's clock; zero: when its queue was read, [Queue.ReadAt]):
	// a wait a sample of the servers' watches began after cannot be
	// judged by it (diagnose.ApplySamples).
	WaitSeen time.Time

	// Watches is the node (or, for a children watch, the parent) this
	// waiter waits on; "" for holders.
	Watches   string
	WatchKind WatchKind

	// Filled by verification against the servers (Verify); nil when
	// unknown.
	WatchObserved *bool
	Client        string // owner session's client address; "" when unknown
	// ObservedWatches are the nodes of this lock the servers list the
	// owner session watching (data/exists watches), whatever the recipe
	// predicts; nil when unknown or none.
	ObservedWatches []string

	// Redis participants: the key's remaining time to live ([NoExpiry]
	// when none; for a fair-lock waiter, the time to its deadline, negative
	// once passed), meaningful when HasTTL; Holds is a Redisson holder's
	// re-entry count.
	TTL    time.Duration
	HasTTL bool
	Holds  int

	// DB is the backend behind a database lock's participant; nil for
	// the other recipes.
	DB *DBSession

	// Payload is the node's data as its system wrote it, decoded (a Kafka
	// controller's broker id, an HDFS NameNode's address); nil for the
	// recipes whose data is free text.
	Payload *Payload
}

// HeldSource says how a holder's [Participant.HeldSince] is known.
type HeldSource string

// Where a holder's start is known from.
const (
	HeldSeen      HeldSource = "seen"      // zkscope's reads saw it turn (or appear) holding
	HeldTxnlog    HeldSource = "txnlog"    // the transaction log's replay
	HeldRecording HeldSource = "recording" // a recording's replay
)

// Mode is a participant's (or a requested lock's) kind of hold.
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

// ModeNames are the lock modes [ParseMode] takes (completion, help).
func ModeNames() []string {
	return []string{string(ModeExclusive), string(ModeRead), string(ModeWrite)}
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

// Extra modes for participants that are neither mutex nor read/write nodes.
const (
	ModeLease Mode = "lease" // a semaphore lease
	ModeLatch Mode = "latch" // a leader latch candidate
)

// Problem is one thing wrong with a lock, in the JSON contract's words.
type Problem struct {
	Kind   ProblemKind
	Node   string // absolute path it concerns ("" for the whole lock)
	Detail string // one plain sentence
}

// Queue is a decoded lock: holders first, then waiters in order.
type Queue struct {
	Path string
	Kind Kind
	// ReadAt is when the read this queue was decoded from finished
	// (zkscope's clock; zero when unknown): node ages are counted to it,
	// and a sample of the servers' watches taken after it may judge its
	// waits (diagnose.ApplySamples).
	ReadAt       time.Time
	MaxLeases    int // semaphores: given or inferred; 0 otherwise
	Participants []Participant
	Problems     []Problem
	// Others says how other libraries would see a mixed directory (one
	// entry per other library present), nil when only one is present.
	Others []Queue
	// Validity is what is left of a held Redlock (redislock.Decode), when
	// HasValidity.
	Validity    time.Duration
	HasValidity bool

	// Context is what a system's election keeps next to its leader node
	// (Kafka's controller epoch and brokers, HDFS's last active), in the
	// order read; nil for other recipes.
	Context []Field
	// labels name the sessions of a system's members (a Kafka broker's
	// registration) for the waiters seen only in the servers' watch lists.
	labels map[int64]*Payload
}

// Holders returns the participants holding the lock, in order.
func (q *Queue) Holders() []Participant { return q.filter(StateHolding) }

// Waiters returns the participants waiting, in queue order.
func (q *Queue) Waiters() []Participant { return q.filter(StateWaiting) }

func (q *Queue) filter(s State) []Participant {
	var out []Participant
	for _, p := range q.Participants {
		if p.State == s {
			out = append(out, p)
		}
	}
	return out
}

// Clone copies q deeply enough that applying the servers' view to the
// copy (diagnose.ApplyEnsemble) and diagnosing it (diagnose.Diagnose) leaves q as it was.
func (q Queue) Clone() Queue {
	q.Participants = append([]Participant(nil), q.Participants...)
	q.Problems = append([]Problem(nil), q.Problems...)
	if q.Others != nil {
		others := make([]Queue, len(q.Others))
		for i, o := range q.Others {
			others[i] = o.Clone()
		}
		q.Others = others
	}
	return q
}

// ParticipantIndex is node's index in q.Participants, -1 when absent.
func ParticipantIndex(q Queue, node string) int {
	return slices.IndexFunc(q.Participants, func(p Participant) bool { return p.Node == node })
}

// Dirs are the directories whose children make up q: a semaphore's two
// places (Curator's leases/ and locks/, kazoo's <sem> and <sem>-__lock__),
// else its path.
func (q *Queue) Dirs() []string {
	switch q.Kind {
	case KindCuratorSemaphoreV2:
		return []string{JoinPath(q.Path, CuratorLeases), JoinPath(q.Path, CuratorLocks)}
	case KindKazooSemaphore:
		return []string{q.Path, q.Path + KazooSemaphoreLock}
	}
	return []string{q.Path}
}

// WatchDirs are the directories whose children watch tells a change of
// q: a plain ephemeral lock's parent (its node created or deleted; the
// servers do not list children watches, so the watcher is never counted
// as one of its waiters), else [Queue.Dirs].
func (q *Queue) WatchDirs() []string {
	if q.Kind == KindEphemeralLock {
		return []string{path.Dir(q.Path)}
	}
	return q.Dirs()
}

// Equal reports whether q and o are the same in every field, as
// reflect.DeepEqual would say, without reflection: a follow compares
// thousands of queues a second with the ones it showed.
func (q *Queue) Equal(o *Queue) bool {
	if q.Path != o.Path || q.Kind != o.Kind || q.ReadAt != o.ReadAt || q.MaxLeases != o.MaxLeases ||
		q.Validity != o.Validity || q.HasValidity != o.HasValidity ||
		!slices.Equal(q.Problems, o.Problems) || !slices.Equal(q.Context, o.Context) ||
		!slices.EqualFunc(q.Participants, o.Participants, func(a, b Participant) bool { return a.equal(&b) }) ||
		!slices.EqualFunc(q.Others, o.Others, func(a, b Queue) bool { return a.Equal(&b) }) ||
		(q.Problems == nil) != (o.Problems == nil) || (q.Participants == nil) != (o.Participants == nil) ||
		(q.Others == nil) != (o.Others == nil) || (q.Context == nil) != (o.Context == nil) ||
		len(q.labels) != len(o.labels) || (q.labels == nil) != (o.labels == nil) {
		return false
	}
	for s, l := range q.labels {
		if m, ok := o.labels[s]; !ok || !m.equal(l) {
			return false
		}
	}
	return true
}

// equal is Queue.Equal's comparison of two participants.
func (p *Participant) equal(o *Participant) bool {
	return p.Node == o.Node && p.Name == o.Name && p.Seq == o.Seq && p.Version == o.Version && p.HasSeq == o.HasSeq &&
		p.Ephemeral == o.Ephemeral && p.WatcherOnly == o.WatcherOnly && p.Mode == o.Mode && p.State == o.State &&
		p.Position == o.Position && p.Session == o.Session && p.Czxid == o.Czxid && sameBytes(p.Data, o.Data) &&
		p.Ctime == o.Ctime && p.HeldSince == o.HeldSince && p.HeldSource == o.HeldSource && p.WaitSeen == o.WaitSeen &&
		p.Watches == o.Watches && p.WatchKind == o.WatchKind && p.Client == o.Client && p.TTL == o.TTL &&
		p.HasTTL == o.HasTTL && p.Holds == o.Holds &&
		(p.WatchObserved == nil) == (o.WatchObserved == nil) && (p.WatchObserved == nil || *p.WatchObserved == *o.WatchObserved) &&
		slices.Equal(p.ObservedWatches, o.ObservedWatches) && (p.ObservedWatches == nil) == (o.ObservedWatches == nil) &&
		p.Payload.equal(o.Payload) && p.DB.equal(o.DB)
}

// sameBytes is bytes.Equal, nil differing from empty (as DeepEqual says).
func sameBytes(a, b []byte) bool { return string(a) == string(b) && (a == nil) == (b == nil) }

func (p *Payload) equal(o *Payload) bool {
	if p == nil || o == nil {
		return p == o
	}
	return p.Err == o.Err && slices.Equal(p.Fields, o.Fields) && (p.Fields == nil) == (o.Fields == nil)
}

func (d *DBSession) equal(o *DBSession) bool {
	if d == nil || o == nil {
		return d == o
	}
	return d.Level == o.Level && d.Database == o.Database && d.User == o.User && d.Application == o.Application &&
		d.State == o.State && d.Query == o.Query && d.BackendStart == o.BackendStart && d.XactStart == o.XactStart &&
		d.StateChange == o.StateChange && d.WaitStart == o.WaitStart && d.NoBackend == o.NoBackend &&
		slices.Equal(d.BlockedBy, o.BlockedBy) && (d.BlockedBy == nil) == (o.BlockedBy == nil)
}
