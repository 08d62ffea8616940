package dbview

import "time"

// Backend is one server session (PostgreSQL backend, MySQL connection)
// that holds or waits for a lock, as the server describes it. Empty
// strings and zero times are unknown.
type Backend struct {
	ID           int64 // PostgreSQL pid, MySQL connection id
	User         string
	Application  string
	ClientAddr   string // host:port; "[local]" for a Unix socket
	Database     string
	State        string // PostgreSQL: active, idle, idle in transaction, …
	Query        string // the current or last statement
	BackendStart time.Time
	XactStart    time.Time // the open transaction's start
	StateChange  time.Time
	QueryStart   time.Time
}

// LockRow is one session's hold on, or wait for, one lock.
type LockRow struct {
	// Key names the lock: PostgreSQL "42" (pg_advisory_lock(bigint)) or
	// "1/2" (pg_advisory_lock(int4, int4)); MySQL the GET_LOCK name.
	Key string
	// Key1, Key2 are the two int4 of PostgreSQL's two-key form ("1/2").
	Key1, Key2 *int64
	// Database is the database the lock belongs to: PostgreSQL's
	// advisory locks are per database; "" for MySQL's server-wide names.
	Database string
	Mode     string // "exclusive" or "shared"
	// Level is "session" or "transaction" when known, "" when not.
	Level     string
	Granted   bool
	WaitStart time.Time // since when it waits; zero when held or unknown
	Holder    int64     // the Backend's ID (holding or waiting)
	BlockedBy []int64   // the backends it waits for (PostgreSQL: pg_blocking_pids)
}

// Snapshot is the locks of one server read at once.
type Snapshot struct {
	At       time.Time
	Server   string // printable name of the server (host:port/db)
	Kind     string
	Version  string
	Rows     []LockRow
	Backends map[int64]Backend
}
