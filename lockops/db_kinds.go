package lockops

import (
	"slices"
	"time"
)

// The database recipes. Their string values are part of the JSON contract.
const (
	// KindPostgresAdvisory: PostgreSQL's advisory locks
	// (pg_advisory_lock and its shared, try and transaction variants).
	KindPostgresAdvisory Kind = "postgres.advisory"
	// KindMySQLGetLock: MySQL's and MariaDB's user-level locks (GET_LOCK).
	KindMySQLGetLock Kind = "mysql.get_lock"
)

// DBKinds are the database recipes, for the writers and the contract.
var DBKinds = []Kind{KindPostgresAdvisory, KindMySQLGetLock}

// IsDB reports whether k is a database recipe: its participants' nodes
// are lock keys, their sessions the servers' backends (pid or connection
// id) and what they wait on other backends.
func (k Kind) IsDB() bool { return slices.Contains(DBKinds, k) }

// ModeShared is a shared database lock (pg_advisory_lock_shared): any
// number hold it together, none while an exclusive one is held.
const ModeShared Mode = "shared"

// WatchBackends is a database waiter's watch kind: Watches lists the
// backends (pids, comma-separated) it waits for, as the server says.
const WatchBackends WatchKind = "backends"

// The levels of a database lock.
const (
	LevelSession     = "session"     // held until released or the session ends
	LevelTransaction = "transaction" // held until the transaction ends
)

// DBSession is what a database server says about the backend behind a
// participant; empty strings and zero times are unknown.
type DBSession struct {
	// Level is LevelSession or LevelTransaction when known, "" when the
	// server does not say.
	Level        string
	Database     string
	User         string
	Application  string
	State        string // active, idle, idle in transaction, …
	Query        string // its current or last statement
	BackendStart time.Time
	XactStart    time.Time
	StateChange  time.Time
	WaitStart    time.Time
	// BlockedBy are the backends a waiter waits for.
	BlockedBy []int64
	// NoBackend: the server lists the lock without a session (a
	// PostgreSQL prepared transaction): no client will release it.
	NoBackend bool
}
