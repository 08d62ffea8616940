package lockops

// ProblemKind names one thing that can be wrong with a lock. Its values
// are part of the `zkscope locks --json` contract (shared/locks-json.md)
// and of `zkscope doctor`'s output: never rename them.
type ProblemKind string

// The problem kinds, as [Decode] and diagnose.Diagnose report them.
const (
	// ProblemPersistentLockNode: a lock node that is not ephemeral; no
	// session will ever release it.
	ProblemPersistentLockNode ProblemKind = "persistent-lock-node"
	// ProblemWatchMissing: a waiter whose watch no server lists; it may
	// never wake up.
	ProblemWatchMissing ProblemKind = "watch-missing"
	// ProblemHeldTooLong: a holder older than [DiagnoseOptions.HeldLongerThan].
	ProblemHeldTooLong ProblemKind = "held-too-long"
	// ProblemUpgradeDeadlock: a session holds the read lock and waits for
	// the write lock of the same lock.
	ProblemUpgradeDeadlock ProblemKind = "upgrade-deadlock"
	// ProblemOrphan: one session owns several nodes of one lock (a retried
	// create left one behind, and it blocks the queue).
	ProblemOrphan ProblemKind = "orphan"
	// ProblemLeaseOrphan: a semaphore lease left behind by a failed
	// acquire, taking a slot.
	ProblemLeaseOrphan ProblemKind = "lease-orphan"
	// ProblemDeadOwner: no server knows the node's owner session any more.
	ProblemDeadOwner ProblemKind = "dead-owner"
	// ProblemOwnerDisconnected: the owner session is alive but connected to
	// no server.
	ProblemOwnerDisconnected ProblemKind = "owner-disconnected"
	// ProblemDeadlock: two waiters the servers see watching each other.
	ProblemDeadlock ProblemKind = "deadlock"
	// ProblemSessionDeadlock: sessions that each hold a lock another of
	// them waits on, across lock directories (a wait-for cycle): none of
	// them will ever proceed.
	ProblemSessionDeadlock ProblemKind = "session-deadlock"
	// ProblemSessionHung: a holder session that has answered only pings
	// for longer than [DiagnoseOptions.HungAfter] (two samples of the
	// members' connections): its client may be hung while its heartbeat
	// thread lives.
	ProblemSessionHung ProblemKind = "session-hung"
	// ProblemHerd: many sessions watch one node (all wake at once).
	ProblemHerd ProblemKind = "herd"
	// ProblemMixedLibraries: nodes of several libraries in one directory.
	ProblemMixedLibraries ProblemKind = "mixed-libraries"
	// ProblemUnknownRecipe: no known recipe makes these names; the order
	// shown is by sequence number only.
	ProblemUnknownRecipe ProblemKind = "unknown-recipe"
	// ProblemSequenceTie: two nodes with the same sequence number.
	ProblemSequenceTie ProblemKind = "sequence-tie"
	// ProblemStrayChild: a non-lock child the library still counts; the
	// contender after it waits forever (or every contender fails).
	ProblemStrayChild ProblemKind = "stray-child"
	// ProblemNoPredecessor: go-zookeeper's Lock finds no predecessor
	// (negative sequences) and fails.
	ProblemNoPredecessor ProblemKind = "no-predecessor"
	// ProblemInvisibleSequence: an overflowed kazoo sequence the other
	// kazoo clients cannot see, so two may hold at once.
	ProblemInvisibleSequence ProblemKind = "invisible-sequence"
	// ProblemSequenceOverflow: the parent's cversion passed 2^31; sequence
	// numbers are negative and sort out of order.
	ProblemSequenceOverflow ProblemKind = "sequence-overflow"
	// ProblemSequenceOverflowRisk: the parent's cversion is close to 2^31.
	ProblemSequenceOverflowRisk ProblemKind = "sequence-overflow-risk"
	// ProblemLeasesExceedMax: more semaphore leases held than allowed.
	ProblemLeasesExceedMax ProblemKind = "leases-exceed-max"
	// ProblemKazooRWDeadlockRisk: a kazoo < 2.9 reader that re-waits on a
	// writer queued behind it (python-zk/kazoo#649).
	ProblemKazooRWDeadlockRisk ProblemKind = "kazoo-rw-deadlock-risk"
	// ProblemMaxLeasesInferred: a Curator semaphore's lease count, which
	// ZooKeeper does not store, inferred from the nodes.
	ProblemMaxLeasesInferred ProblemKind = "max-leases-inferred"
	// ProblemNoLeader: a system's election (or a single-node lock's
	// directory) with no leader node now: an election is under way, or
	// every candidate is down.
	ProblemNoLeader ProblemKind = "no-leader"
	// ProblemFailoverUnfinished: an election whose record of the last
	// leader disagrees with the leader node (HDFS's ActiveBreadCrumb is not
	// the ActiveStandbyElectorLock's NameNode; Solr's leader node is not
	// the first in line): a failover that did not finish, or a fencing
	// still to do.
	ProblemFailoverUnfinished ProblemKind = "failover-unfinished"
	// ProblemLeaderClientGone: an election's leader whose session is alive
	// while its client is connected to no server: no new election before
	// the session expires.
	ProblemLeaderClientGone ProblemKind = "leader-client-gone"
	// ProblemUnreadable: a subtree a scan could not read (the session's
	// ACL does not allow it, or it vanished mid-scan) and left out; locks
	// below it are not checked. Not a lock's problem: see scan.Unreadable.
	ProblemUnreadable ProblemKind = "unreadable"

	// ProblemRedisNoExpiry: a Redis lock key that never expires; if its
	// holder dies, nobody gets the lock again.
	ProblemRedisNoExpiry ProblemKind = "redis-no-expiry"
	// ProblemRedisTTLOutlier: a Redis lock key whose expiry is far above
	// the others of its pattern.
	ProblemRedisTTLOutlier ProblemKind = "redis-ttl-outlier"
	// ProblemRedisExpiring: a held Redis lock key about to expire; a holder
	// still working loses it without knowing.
	ProblemRedisExpiring ProblemKind = "redis-expiring"
	// ProblemRedlockMinority: a Redlock key on fewer masters than the
	// quorum: nobody holds the lock through it.
	ProblemRedlockMinority ProblemKind = "redlock-minority"
	// ProblemRedlockSplit: different tokens on different masters of one
	// Redlock.
	ProblemRedlockSplit ProblemKind = "redlock-split"
	// ProblemRedisUnreachable: a Redlock master that could not be read.
	ProblemRedisUnreachable ProblemKind = "redis-unreachable"
	// ProblemFairWaiterExpired: a Redisson fair-lock waiter whose deadline
	// passed but that is still queued.
	ProblemFairWaiterExpired ProblemKind = "fair-waiter-expired"

	// Database lock problems (PostgreSQL advisory locks, MySQL GET_LOCK).

	// ProblemIdleInTransaction: a holder idle in an open transaction for
	// longer than the bound: its client stopped working without
	// committing, and the lock waits for it.
	ProblemIdleInTransaction ProblemKind = "idle-in-transaction"
	// ProblemHolderClientGone: a lock held with no client behind it (a
	// prepared transaction's, or a backend the server no longer lists).
	ProblemHolderClientGone ProblemKind = "holder-client-gone"
	// ProblemWaitingTooLong: a waiter that has waited longer than the bound.
	ProblemWaitingTooLong ProblemKind = "waiting-too-long"
	// ProblemLongTransaction: a lock held by a backend whose transaction
	// has been open longer than the bound (a transaction-level lock is
	// held until it ends).
	ProblemLongTransaction ProblemKind = "long-transaction"
	// ProblemHolderIdle: a MySQL/MariaDB GET_LOCK holder whose connection
	// has been idle (Sleep) for longer than the bound with no transaction
	// open: its client holds the lock without using the connection (a lock
	// kept across work done elsewhere, or a stuck client). With a
	// transaction open it is ProblemIdleInTransaction.
	ProblemHolderIdle ProblemKind = "holder-idle"

	// Problems found in a lock's history (`zkscope history`).

	// ProblemHeldLongerThanUsual: a hold far longer than the lock's usual
	// (median) hold.
	ProblemHeldLongerThanUsual ProblemKind = "held-longer-than-usual"
	// ProblemHolderExpired: a holder whose tenure ended by its session's
	// expiry: its client crashed, paused or was cut off while holding.
	ProblemHolderExpired ProblemKind = "holder-session-expired"
	// ProblemWaitedTooLong: a waiter that waited longer than
	// history.Options.WaitedLongerThan.
	ProblemWaitedTooLong ProblemKind = "waited-too-long"
	// ProblemForceDeleted: a lock node deleted by another session than
	// its owner.
	ProblemForceDeleted ProblemKind = "force-deleted"
)

// Severity is how urgently a problem wants an operator.
type Severity int

// Severities, least urgent first.
const (
	// SeverityInfo describes rather than accuses: `zkscope doctor` does not
	// count it.
	SeverityInfo Severity = iota
	// SeverityWarning is worth a look: the lock still works, or may stop.
	SeverityWarning
	// SeverityError is a lock that is stuck, leaks, or lets two hold at
	// once.
	SeverityError
)

// String is the severity as the JSON report writes it.
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityError:
		return "error"
	}
	return "warning"
}

// Severity is how urgent a problem of kind k is; an unknown kind is a
// warning.
func (k ProblemKind) Severity() Severity {
	switch k {
	case ProblemPersistentLockNode, // never released
		ProblemWatchMissing,      // a waiter that never wakes
		ProblemUpgradeDeadlock,   // waits for itself forever
		ProblemOrphan,            // blocks the queue until its session ends
		ProblemLeaseOrphan,       // takes a slot until its session ends
		ProblemDeadOwner,         // a node that outlived its owner
		ProblemDeadlock,          // neither waiter will ever proceed
		ProblemSessionDeadlock,   // none of the sessions will ever proceed
		ProblemStrayChild,        // the contender after it waits forever
		ProblemNoPredecessor,     // the contender fails
		ProblemInvisibleSequence, // two may hold at once
		ProblemSequenceOverflow,  // the order is wrong now
		ProblemLeasesExceedMax,   // more holders than allowed
		ProblemLeaderClientGone,  // nobody leads until the session expires
		ProblemHolderClientGone,  // nobody will release it
		ProblemRedisNoExpiry:     // never released if its holder dies
		return SeverityError
	case ProblemHeldTooLong, // maybe stuck, maybe a long job
		ProblemOwnerDisconnected,    // goes when the session expires
		ProblemSessionHung,          // maybe hung, maybe working without ZooKeeper
		ProblemHerd,                 // works, wakes everyone at once
		ProblemMixedLibraries,       // works only if the libraries agree
		ProblemSequenceTie,          // clients may order differently
		ProblemSequenceOverflowRisk, // not yet
		ProblemKazooRWDeadlockRisk,  // only with kazoo < 2.9, and only later
		ProblemUnreadable,           // locks below it went unchecked
		ProblemRedisTTLOutlier,      // works, blocks long if its holder dies
		ProblemRedisExpiring,        // maybe finished, maybe about to overlap
		ProblemRedlockMinority,      // a failed acquire left behind; expires
		ProblemRedlockSplit,         // contenders' partial acquires; expire
		ProblemRedisUnreachable,     // one master fewer towards the quorum
		ProblemFairWaiterExpired,    // removed by the next lock call
		ProblemNoLeader,             // an election under way, or nobody left
		ProblemFailoverUnfinished,   // fencing or a new leader's write pending
		ProblemIdleInTransaction,    // maybe stuck, maybe a slow client
		ProblemWaitingTooLong,       // the holders ahead hold long
		ProblemLongTransaction,      // maybe a big job
		ProblemHolderIdle:           // maybe a lock kept across other work
		return SeverityWarning
	case ProblemMaxLeasesInferred, ProblemUnknownRecipe:
		return SeverityInfo
	case ProblemHolderExpired: // may have worked on after losing the lock
		return SeverityError
	case ProblemHeldLongerThanUsual, // maybe stuck, maybe a big job
		ProblemWaitedTooLong, // the holders ahead held long
		ProblemForceDeleted:  // its owner may not know
		return SeverityWarning
	}
	return SeverityWarning
}

// Severity is the severity of p's kind.
func (p Problem) Severity() Severity { return p.Kind.Severity() }
