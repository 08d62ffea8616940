package lockops

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// DiagnoseOptions tune the checks of one queue ([DiagnoseQueue],
// [DiagnoseWith]).
type DiagnoseOptions struct {
	// HeldLongerThan flags holders whose node is older than this (0: off).
	HeldLongerThan time.Duration
	// Now is the time to measure ages against (zero: time.Now()).
	Now time.Time
	// Herd is how many waiters on one node make a herd (0: 3).
	Herd int
	// Sentences, when set, remembers the sentences of the per-node
	// problems across the diagnoses of one lock (nil: made each time).
	Sentences *Sentences
	// KindsOnly leaves the problems' sentences out (Detail ""), for a
	// caller that only counts problems by kind: a tree of persistent lock
	// nodes has a sentence per node.
	KindsOnly bool
}

// Sentences remembers per-node problems' sentences across the diagnoses
// of one lock: a churning queue diagnosed on every read would otherwise
// make the same sentence for the same node each time. Safe for use by
// several goroutines; it forgets everything when it grows past
// maxSentences.
type Sentences struct {
	mu sync.Mutex
	m  map[int64]sentence // by the node's czxid
	// last are the sentences the last diagnosis asked for, in its order,
	// and cur this one's: a followed queue keeps its order from one read
	// to the next, so the next node's sentence is usually last[next] (or
	// just after, when nodes before it left), found without the map.
	last, cur []sentence
	next      int
	// problems is how many problems the last diagnosis found (this one's
	// list is made that long at once); spare is a list the next diagnosis
	// may write its problems into (ReuseProblems).
	problems int
	spare    []Problem
}

// ReuseProblems gives the next diagnosis buf, a list of problems nothing
// reads any more (a queue's long replaced), to write its problems into
// instead of a new list (a busy lock has a problem or two per node, and
// is diagnosed on every read).
func (s *Sentences) ReuseProblems(buf []Problem) {
	if s != nil {
		s.mu.Lock()
		s.spare = buf
		s.mu.Unlock()
	}
}

// sentence is one node's remembered sentence, of kind for state.
type sentence struct {
	czxid int64
	kind  ProblemKind
	state State
	node  string
	text  string
}

// maxSentences bounds a Sentences.
const maxSentences = 1 << 15

// sentenceLookAhead is how far past the expected place in the last
// diagnosis's order a node's sentence is looked for (nodes that left
// just before it: a queue polled every 100 ms under churn loses tens)
// before the map.
const sentenceLookAhead = 64

// begin starts a diagnosis (s locked by the caller).
func (s *Sentences) begin() {
	if s == nil {
		return
	}
	s.last, s.cur, s.next = s.cur, s.last[:0], 0
}

// end ends a diagnosis that found n problems.
func (s *Sentences) end(n int) {
	if s != nil {
		s.problems = n
	}
}

// sentence is the remembered sentence of kind for p (its state and node), made by
// mk the first time (one kind per node is remembered: the per-node
// check that asks); s is locked by the caller (diagnose).
func (s *Sentences) sentence(kind ProblemKind, p *Participant, mk func(State, string) string) string {
	if s == nil {
		return mk(p.State, p.Node)
	}
	for k := s.next; k < len(s.last) && k <= s.next+sentenceLookAhead; k++ {
		if t := &s.last[k]; t.czxid == p.Czxid && t.kind == kind && t.state == p.State && t.node == p.Node {
			s.next = k + 1
			s.cur = append(s.cur, *t)
			return t.text
		}
	}
	if t, ok := s.m[p.Czxid]; ok && t.kind == kind && t.state == p.State && t.node == p.Node {
		s.cur = append(s.cur, t)
		return t.text
	}
	if s.m == nil || len(s.m) >= maxSentences {
		s.m = map[int64]sentence{}
	}
	t := sentence{p.Czxid, kind, p.State, p.Node, mk(p.State, p.Node)}
	s.m[p.Czxid] = t
	s.cur = append(s.cur, t)
	return t.text
}

// ServersView is what the servers said that the checks of one queue use,
// as plain values (made from the members' answers by those who ask them).
type ServersView struct {
	// Sessions are the sessions the servers know; SessionsComplete says
	// every member listed its sessions (a session none lists is gone).
	Sessions         map[int64]bool
	SessionsComplete bool
	// ConnsKnown says every member listed its connections (a session
	// missing from all of them has no connection).
	ConnsKnown bool
	// Watchers are the sessions the servers list watching node with a
	// data or exists watch.
	Watchers func(node string) []int64
}

// Checks selects the checks [DiagnoseWith] runs: those of the queue
// alone, those needing the servers' view, or both.
type Checks uint8

// The parts of the checks.
const (
	QueueChecks Checks = 1 << iota
	ServerChecks
)

// DiagnoseQueue adds to each queue the problems its own nodes show, with
// no question to the servers: persistent lock nodes, long holds, several
// nodes of one session, upgrade deadlocks and the herds the recipe
// predicts. It is cheap enough to run on every read of a busy lock.
func DiagnoseQueue(queues []Queue, o DiagnoseOptions) {
	DiagnoseWith(queues, o, nil, QueueChecks)
}

// DiagnoseWith adds to each queue the problems the checks of parts find,
// in the order the report lists them; the server checks judge what view
// (nil: not asked) says. Both parts in one pass are a report's whole
// diagnosis of each lock; a caller re-reading one lock often runs the
// queue's checks on every read and the servers' only when their answer
// changes.
func DiagnoseWith(queues []Queue, o DiagnoseOptions, view *ServersView, parts Checks) {
	o = o.withDefaults()
	for qi := range queues {
		diagnose(&queues[qi], o, view, parts)
	}
}

func (o DiagnoseOptions) withDefaults() DiagnoseOptions {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Herd <= 0 {
		o.Herd = 3
	}
	return o
}

// diagnose appends q's problems to q.Problems: each check of parts in
// turn, in the order the report lists them (per node, per session, then
// per queue).
func diagnose(q *Queue, o DiagnoseOptions, view *ServersView, parts Checks) {
	if o.Sentences != nil {
		o.Sentences.mu.Lock()
		defer o.Sentences.mu.Unlock()
		o.Sentences.begin()
	}
	ix := newQueueIndex(q, o, view, parts)
	if s := o.Sentences; s != nil {
		if spare := s.spare; cap(spare) >= len(ix.out)+s.problems {
			ix.out = append(spare[:0], ix.out...)
		}
		s.spare = nil
		ix.out = slices.Grow(ix.out, max(s.problems-len(ix.out), 0))
	}
	queue, servers := parts&QueueChecks != 0, parts&ServerChecks != 0
	for i := range q.Participants {
		p := &q.Participants[i]
		if p.Mode == ModeStray {
			continue
		}
		if queue {
			checkPersistentLockNode(ix, p)
		}
		if servers {
			checkWatchMissing(ix, p)
		}
		if queue {
			checkHeldTooLong(ix, p)
		}
	}
	if queue {
		for i := range ix.sessions {
			s := &ix.sessions[i]
			checkUpgradeDeadlock(ix, s)
			checkOrphan(ix, s)
			checkLeaseOrphan(ix, s)
		}
	}
	if servers && view != nil {
		for i := range q.Participants {
			p := &q.Participants[i]
			checkDeadOwner(ix, p)
			checkOwnerDisconnected(ix, p)
		}
		for i := range q.Participants {
			checkDeadlock(ix, &q.Participants[i])
		}
	}
	checkHerd(ix, parts)
	checkElection(ix)
	if o.KindsOnly {
		for i := range ix.out {
			ix.out[i].Detail = ""
		}
	}
	q.Problems = ix.out
	o.Sentences.end(len(ix.out))
}

// queueIndex is what the checks of one queue share, built once: indices
// and sorted lists, not copies or maps of everything, since a queue can
// hold 10,000 participants, each usually of its own session.
type queueIndex struct {
	q    *Queue
	o    DiagnoseOptions
	view *ServersView // nil: the servers were not asked (or not judged)
	rw   bool         // a read/write lock
	// sessions are the sessions owning several ephemeral nodes of the lock,
	// in session order.
	sessions []sessionNodes
	// position of each node, only when a check needs it (see positions).
	pos map[string]int
	out []Problem
}

// sessionNodes are one session's ephemeral nodes of a lock, by mode, as
// indices into the queue's participants in queue order.
type sessionNodes struct {
	session                       int64
	reads, writes, leases, others []int
}

func newQueueIndex(q *Queue, o DiagnoseOptions, view *ServersView, parts Checks) *queueIndex {
	ix := &queueIndex{q: q, o: o, out: q.Problems,
		rw: q.Kind == KindCuratorRW || q.Kind == KindKazooRW || q.Kind == KindZooKeeperDocsRW}
	if parts&QueueChecks != 0 {
		ix.sessions = sharedSessions(q)
	}
	if parts&ServerChecks != 0 {
		ix.view = view
	}
	return ix
}

// sharedSessions lists the sessions owning several ephemeral nodes of q
// (strays aside), sorted, with their nodes in queue order.
func sharedSessions(q *Queue) []sessionNodes {
	n := 0
	for i := range q.Participants {
		if p := &q.Participants[i]; p.Mode != ModeStray && p.Ephemeral {
			n++
		}
	}
	if n < 2 {
		return nil
	}
	owners := make([]int64, 0, n)
	for i := range q.Participants {
		if p := &q.Participants[i]; p.Mode != ModeStray && p.Ephemeral {
			owners = append(owners, p.Session)
		}
	}
	slices.Sort(owners)
	at := map[int64]int{} // session -> index in out
	var out []sessionNodes
	for i := 1; i < len(owners); i++ {
		if owners[i] == owners[i-1] && (len(out) == 0 || out[len(out)-1].session != owners[i]) {
			at[owners[i]] = len(out)
			out = append(out, sessionNodes{session: owners[i]})
		}
	}
	if len(out) == 0 {
		return nil
	}
	for i := range q.Participants {
		p := &q.Participants[i]
		k, ok := at[p.Session]
		if !ok || p.Mode == ModeStray || !p.Ephemeral {
			continue
		}
		s := &out[k]
		switch p.Mode {
		case ModeRead:
			s.reads = append(s.reads, i)
		case ModeWrite:
			s.writes = append(s.writes, i)
		case ModeLease:
			s.leases = append(s.leases, i)
		case ModeLock:
			// a semaphore contender's internal lock node next to its lease
		default:
			s.others = append(s.others, i)
		}
	}
	return out
}

// positions maps each node of the queue to its position, made on first use.
func (ix *queueIndex) positions() map[string]int {
	if ix.pos == nil {
		ix.pos = make(map[string]int, len(ix.q.Participants))
		for i := range ix.q.Participants {
			ix.pos[ix.q.Participants[i].Node] = ix.q.Participants[i].Position
		}
	}
	return ix.pos
}

// sessionAlive reports whether the servers know session s, and whether
// that is known (every member listed its sessions).
func (ix *queueIndex) sessionAlive(s int64) (alive, known bool) {
	if ix.view.Sessions[s] {
		return true, true
	}
	return false, ix.view.SessionsComplete
}

func (ix *queueIndex) add(kind ProblemKind, node, format string, args ...any) {
	ix.out = append(ix.out, Problem{Kind: kind, Node: node, Detail: fmt.Sprintf(format, args...)})
}

// addDetail is add with the sentence made already (the per-participant
// checks, which may run for every node of a long queue on every read).
func (ix *queueIndex) addDetail(kind ProblemKind, node, detail string) {
	ix.out = append(ix.out, Problem{Kind: kind, Node: node, Detail: detail})
}

// addEach adds one problem for each node of idx but the first, sharing one
// sentence.
func (ix *queueIndex) addEach(kind ProblemKind, idx []int, detail string) {
	ix.out = slices.Grow(ix.out, len(idx)-1)
	for _, i := range idx[1:] {
		ix.out = append(ix.out, Problem{Kind: kind, Node: ix.q.Participants[i].Node, Detail: detail})
	}
}

// CountProblems counts the problems `zkscope doctor` reports (not the
// informational ones), other libraries' views included.
func CountProblems(queues []Queue) int {
	n := 0
	for _, q := range queues {
		for _, p := range q.Problems {
			if p.Severity() > SeverityInfo {
				n++
			}
		}
	}
	return n
}
