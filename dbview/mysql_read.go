package dbview

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// myProc is one process-list entry: the Backend shown, and what decides
// a waiter's place (its command's age).
type myProc struct {
	Backend
	command, state string
	age            time.Duration // in the current command (TIME_MS, else TIME)
}

// readMySQL reads GET_LOCK's locks and the sessions behind them.
func readMySQL(ctx context.Context, c *Client) (*Snapshot, error) {
	src, err := mysqlSource(ctx, c.sqlDB, mysqlIsMariaDB(c.version))
	if err != nil {
		return nil, err
	}
	return readMySQLFrom(ctx, c, src)
}

// readMySQLFrom reads the locks from src, then the process list: a
// waiter's place is its statement's age there.
func readMySQLFrom(ctx context.Context, c *Client, src string) (*Snapshot, error) {
	var rows []LockRow
	var err error
	if src == mySourcePS {
		rows, err = mysqlPSLocks(ctx, c.sqlDB)
	} else {
		rows, err = mysqlPluginLocks(ctx, c.sqlDB)
	}
	if err != nil {
		return nil, fmt.Errorf("read GET_LOCK locks from %s: %w", src, err)
	}
	procs, at, err := mysqlProcesses(ctx, c.sqlDB)
	if err != nil {
		return nil, fmt.Errorf("read the process list: %w", err)
	}
	seesAll := mysqlSeesAll(ctx, c.sqlDB)
	if rows, err = mysqlRecheck(ctx, c.sqlDB, rows, procs, seesAll); err != nil {
		return nil, err
	}
	if src == mySourcePlugin {
		rows = append(rows, mysqlProcWaiters(procs)...)
	}
	apps := mysqlPrograms(ctx, c.sqlDB)
	s := &Snapshot{At: at, Server: c.Server(), Kind: KindMySQL, Version: c.version, Backends: map[int64]Backend{}}
	for i := range rows {
		p, ok := procs[rows[i].Holder]
		if !ok { // not shown to this account (no PROCESS privilege): nothing known but its id
			s.Backends[rows[i].Holder] = Backend{ID: rows[i].Holder}
			continue
		}
		p.Application = apps[p.ID]
		s.Backends[p.ID] = p.Backend
		if !rows[i].Granted && p.state == mysqlUserLockState {
			rows[i].WaitStart = at.Add(-p.age)
		}
	}
	s.Rows = mysqlOrder(rows)
	return s, nil
}

// mysqlPrograms are the connections' program_name attributes (what the
// client says it is), from performance_schema when it is on; none else.
func mysqlPrograms(ctx context.Context, db *sql.DB) map[int64]string {
	out := map[int64]string{}
	rs, err := db.QueryContext(ctx, `SELECT PROCESSLIST_ID, ATTR_VALUE FROM performance_schema.session_connect_attrs WHERE ATTR_NAME = 'program_name'`)
	if err != nil {
		return out
	}
	defer rs.Close()
	for rs.Next() {
		var id int64
		var name sql.NullString
		if rs.Scan(&id, &name) == nil {
			out[id] = name.String
		}
	}
	return out
}

// mysqlPSLocks reads performance_schema.metadata_locks' user-level locks:
// GRANTED rows are holders, PENDING rows waiters (other statuses are
// transient and left out).
func mysqlPSLocks(ctx context.Context, db *sql.DB) ([]LockRow, error) {
	rs, err := db.QueryContext(ctx, `SELECT ml.OBJECT_NAME, ml.LOCK_STATUS, t.PROCESSLIST_ID
FROM performance_schema.metadata_locks ml JOIN performance_schema.threads t ON t.THREAD_ID = ml.OWNER_THREAD_ID
WHERE ml.OBJECT_TYPE = 'USER LEVEL LOCK' AND t.PROCESSLIST_ID IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []LockRow
	for rs.Next() {
		var name, status string
		var id int64
		if err := rs.Scan(&name, &status, &id); err != nil {
			return nil, err
		}
		if status != "GRANTED" && status != "PENDING" {
			continue
		}
		out = append(out, mysqlRow(name, id, status == "GRANTED"))
	}
	return out, rs.Err()
}

// mysqlRecheck checks the lock rows against the process list read after
// them: a row of a connection no longer listed is left out (it ended in
// between; a user-level lock ends with its connection), and IS_USED_LOCK
// is asked about each PENDING row whose connection is not waiting for a
// user lock: MariaDB 10.11 was
// seen to leave a waiter's row PENDING after it was granted the lock (its
// holder killed). Such a row is the holder when IS_USED_LOCK names its
// connection, else it is left out (the wait is over).
func mysqlRecheck(ctx context.Context, db *sql.DB, rows []LockRow, procs map[int64]myProc, seesAll bool) ([]LockRow, error) {
	out := rows[:0]
	for _, r := range rows {
		p, ok := procs[r.Holder]
		if !ok && seesAll { // else: this account is not shown it
			continue
		}
		if r.Granted || !ok || p.state == mysqlUserLockState {
			out = append(out, r)
			continue
		}
		var holder sql.NullInt64
		if err := db.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", r.Key).Scan(&holder); err != nil {
			return nil, fmt.Errorf("IS_USED_LOCK(%q): %w", r.Key, err)
		}
		if holder.Valid && holder.Int64 == r.Holder {
			r.Granted = true
			out = append(out, r)
		}
	}
	return out, nil
}

// mysqlSeesAll reports whether the account has the PROCESS privilege,
// which shows it every connection in the process list (without it, its
// own only).
func mysqlSeesAll(ctx context.Context, db *sql.DB) bool {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES
WHERE PRIVILEGE_TYPE = 'PROCESS' AND GRANTEE = CONCAT("'", SUBSTRING_INDEX(CURRENT_USER(), '@', 1), "'@'", SUBSTRING_INDEX(CURRENT_USER(), '@', -1), "'")`).Scan(&n)
	return err == nil && n > 0
}

// mysqlPluginLocks reads MariaDB's METADATA_LOCK_INFO: holders only.
func mysqlPluginLocks(ctx context.Context, db *sql.DB) ([]LockRow, error) {
	rs, err := db.QueryContext(ctx, `SELECT THREAD_ID, TABLE_SCHEMA FROM information_schema.METADATA_LOCK_INFO WHERE LOCK_TYPE = 'User lock'`)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []LockRow
	for rs.Next() {
		var id int64
		var name string
		if err := rs.Scan(&id, &name); err != nil {
			return nil, err
		}
		out = append(out, mysqlRow(name, id, true))
	}
	return out, rs.Err()
}

// mysqlRow is one session's hold on or wait for GET_LOCK name: always
// exclusive and held by the session (not a transaction).
func mysqlRow(name string, id int64, granted bool) LockRow {
	return LockRow{Key: name, Mode: "exclusive", Level: "session", Granted: granted, Holder: id}
}

// mysqlProcWaiters are the sessions waiting in GET_LOCK by the process
// list (state "User lock"), each with the lock its statement names; a
// statement that does not name it as one plain literal is a waiter whose
// lock is unknown (Key "").
func mysqlProcWaiters(procs map[int64]myProc) []LockRow {
	var out []LockRow
	for _, p := range procs {
		if p.state != mysqlUserLockState || p.command != "Query" {
			continue
		}
		name, _ := mysqlWaitName(p.Query)
		out = append(out, mysqlRow(name, p.ID, false))
	}
	return out
}

// mysqlOrder sorts rows by lock, holders first, then waiters in the order
// the server grants them: the oldest wait first (MySQL's and MariaDB's
// metadata locks grant waiters of one kind first come, first served),
// the connection id breaking ties; and sets each waiter's BlockedBy to the
// lock's holders.
func mysqlOrder(rows []LockRow) []LockRow {
	holders := map[string][]int64{}
	for _, r := range rows {
		if r.Granted {
			holders[r.Key] = append(holders[r.Key], r.Holder)
		}
	}
	for i := range rows {
		if !rows[i].Granted && rows[i].Key != "" {
			rows[i].BlockedBy = append([]int64(nil), holders[rows[i].Key]...)
			sort.Slice(rows[i].BlockedBy, func(a, b int) bool { return rows[i].BlockedBy[a] < rows[i].BlockedBy[b] })
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch {
		case a.Key != b.Key:
			return a.Key < b.Key
		case a.Granted != b.Granted:
			return a.Granted
		case !a.WaitStart.Equal(b.WaitStart):
			return a.WaitStart.Before(b.WaitStart)
		}
		return a.Holder < b.Holder
	})
	return rows
}

// mysqlProcesses reads the process list (with each session's open InnoDB
// transaction, when the account may see them) and the time it was read.
func mysqlProcesses(ctx context.Context, db *sql.DB) (map[int64]myProc, time.Time, error) {
	rs, err := db.QueryContext(ctx, `SELECT p.*, TIMESTAMPDIFF(MICROSECOND, x.trx_started, NOW(6)) AS zkscope_trx_age_us
FROM information_schema.PROCESSLIST p LEFT JOIN information_schema.INNODB_TRX x ON x.trx_mysql_thread_id = p.ID`)
	if err != nil && ctx.Err() == nil { // INNODB_TRX needs PROCESS: the list alone then
		rs, err = db.QueryContext(ctx, `SELECT * FROM information_schema.PROCESSLIST`)
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	defer rs.Close()
	at := time.Now()
	cols, err := rs.Columns()
	if err != nil {
		return nil, at, err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	out := map[int64]myProc{}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, at, err
		}
		col := map[string]sql.NullString{}
		for i, c := range cols {
			col[strings.ToUpper(c)] = vals[i]
		}
		if p, ok := mysqlProc(col, at); ok {
			out[p.ID] = p
		}
	}
	return out, at, rs.Err()
}

// mysqlProc is one process-list row (columns by name) read at at.
func mysqlProc(col map[string]sql.NullString, at time.Time) (myProc, bool) {
	id, err := strconv.ParseInt(col["ID"].String, 10, 64)
	if err != nil {
		return myProc{}, false
	}
	p := myProc{command: col["COMMAND"].String, state: col["STATE"].String}
	p.ID, p.User, p.ClientAddr, p.Database = id, col["USER"].String, col["HOST"].String, col["DB"].String
	p.Query = col["INFO"].String
	p.State = p.command
	if p.state != "" {
		p.State += ": " + p.state
	}
	if sec, err := strconv.ParseFloat(col["TIME"].String, 64); err == nil {
		p.age = time.Duration(sec * float64(time.Second))
	}
	if ms, err := strconv.ParseFloat(col["TIME_MS"].String, 64); err == nil { // MariaDB: the same, in ms
		p.age = time.Duration(ms * float64(time.Millisecond))
	}
	p.StateChange = at.Add(-p.age)
	if p.command == "Query" {
		p.QueryStart = p.StateChange
	}
	if us, err := strconv.ParseInt(col["ZKSCOPE_TRX_AGE_US"].String, 10, 64); err == nil {
		p.XactStart = at.Add(-time.Duration(us) * time.Microsecond)
	}
	return p, true
}
