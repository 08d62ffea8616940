package dbview

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgConfig is cfg as pgx's connection settings. Without a password in
// cfg, pgx looks where libpq does (PGPASSWORD, ~/.pgpass).
func pgConfig(cfg Config, app string) (*pgx.ConnConfig, error) {
	u := url.URL{Scheme: "postgres", Host: cfg.Addr(), Path: "/" + cfg.Database}
	if cfg.User != "" {
		u.User = url.User(cfg.User)
	}
	if cfg.SSLMode != "" {
		u.RawQuery = url.Values{"sslmode": {cfg.SSLMode}}.Encode()
	}
	pc, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("postgres://%s: %w", cfg.Addr(), err)
	}
	pc.RuntimeParams["application_name"] = app
	if cfg.Password != "" {
		pc.Password = cfg.Password
	}
	if cfg.TLS != nil {
		t := cfg.TLS.Clone()
		if t.ServerName == "" {
			t.ServerName = cfg.Host
		}
		pc.TLSConfig, pc.Fallbacks = t, nil
	}
	pc.ConnectTimeout = cfg.DialTimeout
	d := &net.Dialer{Timeout: cfg.DialTimeout, KeepAliveConfig: net.KeepAliveConfig{
		Enable: true, Idle: 5 * time.Second, Interval: 5 * time.Second, Count: 3}}
	pc.DialFunc = d.DialContext
	// A query whose context ends is cancelled on the server (the
	// connection stays usable), not cut off: a wait cut off would stay
	// queued on the server until granted.
	pc.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatchHandler {
		return newSwitchHandler(c)
	}
	return pc, nil
}

func openPostgres(ctx context.Context, c *Client) error {
	pc, err := pgConfig(c.cfg, "zkscope")
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, pc)
	if err != nil {
		return fmt.Errorf("connect to postgres://%s: %w", c.cfg.Addr(), err)
	}
	c.pg = conn
	c.version = conn.PgConn().ParameterStatus("server_version")
	return nil
}

// pgMajor is the major version of a server_version ("15.14 (Debian …)").
func pgMajor(v string) int {
	i := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(v)
	}
	n, _ := strconv.Atoi(v[:i])
	return n
}

// pgLocksQuery reads advisory locks and their backends in one statement:
// pg_locks once (a CTE used twice is materialised), its rows, then the
// pg_stat_activity rows of the backends in it. %s is waitstart's column
// (PostgreSQL 14+) or NULL.
const pgLocksQuery = `WITH l AS MATERIALIZED (
  SELECT pid, database, classid::int8 AS classid, objid::int8 AS objid, objsubid::int4 AS objsubid,
         mode, granted, %s AS waitstart,
         CASE WHEN granted THEN NULL ELSE pg_blocking_pids(pid) END AS blocked_by
  FROM pg_locks WHERE locktype = 'advisory')
SELECT true, l.pid, coalesce(d.datname::text, ''), l.classid, l.objid, l.objsubid, l.mode, l.granted,
       l.waitstart, l.blocked_by, NULL::text, NULL::text, NULL::text, NULL::int4, NULL::text, NULL::text,
       NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz
  FROM l LEFT JOIN pg_database d ON d.oid = l.database
UNION ALL
SELECT false, a.pid, coalesce(a.datname::text, ''), NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       a.usename::text, a.application_name, host(a.client_addr), a.client_port, a.state, a.query,
       a.backend_start, a.xact_start, a.state_change, a.query_start
  FROM pg_stat_activity a WHERE a.pid IN (SELECT pid FROM l)`

func readPostgres(ctx context.Context, c *Client) (*Snapshot, error) {
	waitstart := "NULL::timestamptz"
	if pgMajor(c.version) >= 14 {
		waitstart = "waitstart"
	}
	rows, err := c.pg.Query(ctx, fmt.Sprintf(pgLocksQuery, waitstart), pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, fmt.Errorf("read pg_locks from %s: %w", c.Server(), err)
	}
	defer rows.Close()
	s := &Snapshot{At: time.Now(), Server: c.Server(), Kind: KindPostgres, Version: c.version, Backends: map[int64]Backend{}}
	for rows.Next() {
		var r pgRow
		if err := rows.Scan(r.dest()...); err != nil {
			return nil, fmt.Errorf("read pg_locks from %s: %w", c.Server(), err)
		}
		r.add(s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_locks from %s: %w", c.Server(), err)
	}
	pgLevels(s)
	return s, nil
}

// pgRow is one row of pgLocksQuery: a lock (isLock) or a backend.
type pgRow struct {
	isLock                  bool
	pid                     *int32
	datname                 string
	classid, objid          *int64
	objsubid                *int32
	mode                    *string
	granted                 *bool
	waitstart               *time.Time
	blockedBy               []int32
	user, app, addr         *string
	port                    *int32
	state, query            *string
	backendStart, xactStart *time.Time
	stateChange, queryStart *time.Time
}

func (r *pgRow) dest() []any {
	return []any{&r.isLock, &r.pid, &r.datname, &r.classid, &r.objid, &r.objsubid, &r.mode, &r.granted,
		&r.waitstart, &r.blockedBy, &r.user, &r.app, &r.addr, &r.port, &r.state, &r.query,
		&r.backendStart, &r.xactStart, &r.stateChange, &r.queryStart}
}

func (r *pgRow) add(s *Snapshot) {
	var pid int64 // 0: a prepared transaction's lock (no backend)
	if r.pid != nil {
		pid = int64(*r.pid)
	}
	if !r.isLock {
		s.Backends[pid] = Backend{ID: pid, User: deref(r.user), Application: deref(r.app), ClientAddr: pgClientAddr(r.addr, r.port),
			Database: r.datname, State: deref(r.state), Query: deref(r.query), BackendStart: derefTime(r.backendStart),
			XactStart: derefTime(r.xactStart), StateChange: derefTime(r.stateChange), QueryStart: derefTime(r.queryStart)}
		return
	}
	l := LockRow{Database: r.datname, Holder: pid, Granted: r.granted != nil && *r.granted, WaitStart: derefTime(r.waitstart)}
	l.Key, l.Key1, l.Key2 = pgKey(deref64(r.classid), deref64(r.objid), r.objsubid)
	switch deref(r.mode) {
	case "ExclusiveLock":
		l.Mode = "exclusive"
	case "ShareLock":
		l.Mode = "shared"
	default:
		l.Mode = deref(r.mode)
	}
	if r.pid == nil {
		l.Level = "transaction" // only a prepared transaction holds a lock without a backend
	}
	for _, b := range r.blockedBy {
		l.BlockedBy = append(l.BlockedBy, int64(b))
	}
	s.Rows = append(s.Rows, l)
}

// pgKey is an advisory lock's key from pg_locks: objsubid 1 is
// pg_advisory_lock(bigint), classid the high and objid the low 32 bits;
// objsubid 2 is pg_advisory_lock(int4, int4), classid and objid the two.
func pgKey(classid, objid int64, objsubid *int32) (string, *int64, *int64) {
	if objsubid != nil && *objsubid == 2 {
		k1, k2 := int64(int32(uint32(classid))), int64(int32(uint32(objid)))
		return fmt.Sprintf("%d/%d", k1, k2), &k1, &k2
	}
	return strconv.FormatInt(int64(uint64(uint32(classid))<<32|uint64(uint32(objid))), 10), nil, nil
}

// pgLevels sets what can be known of a lock's level: pg_locks does not
// say it, but a transaction-level lock ends with its transaction, so a
// lock held by a backend outside any transaction is session-level. A
// backend inside a transaction may hold either: unknown.
func pgLevels(s *Snapshot) {
	for i := range s.Rows {
		r := &s.Rows[i]
		if b, ok := s.Backends[r.Holder]; ok && r.Granted && r.Level == "" && b.XactStart.IsZero() && b.State != "" {
			r.Level = "session"
		}
	}
}

func pgClientAddr(addr *string, port *int32) string {
	switch {
	case addr != nil && port != nil:
		return net.JoinHostPort(*addr, strconv.Itoa(int(*port)))
	case addr != nil:
		return *addr
	case port != nil && *port == -1:
		return "[local]"
	}
	return ""
}

// terminatePostgres ends backend id with pg_terminate_backend only while
// it holds cond's lock (granted) and is the backend that started at
// cond.BackendStart; PostgreSQL 14+ waits up to 5 s for it to end.
func terminatePostgres(ctx context.Context, c *Client, id int64, cond TerminateIf) (bool, error) {
	k1, k2, single, err := ParsePGKey(cond.Key)
	if err != nil {
		return false, err
	}
	classid, objid, sub := k1, k2, 2
	if single {
		classid, objid, sub = int64(uint64(k1)>>32), int64(uint64(k1)&0xffffffff), 1
	} else {
		classid, objid = int64(uint32(int32(k1))), int64(uint32(int32(k2)))
	}
	term := "pg_terminate_backend($1::int4)"
	if pgMajor(c.version) >= 14 {
		term = "pg_terminate_backend($1::int4, 5000)"
	}
	q := `SELECT ` + term + ` FROM pg_stat_activity a WHERE a.pid = $1::int4
  AND ($6::timestamptz IS NULL OR a.backend_start = $6::timestamptz)
  AND EXISTS (SELECT 1 FROM pg_locks l JOIN pg_database d ON d.oid = l.database
    WHERE l.locktype = 'advisory' AND l.granted AND l.pid = $1::int4 AND d.datname = $2
      AND l.classid = $3::int8::oid AND l.objid = $4::int8::oid AND l.objsubid = $5::int4)`
	var start *time.Time
	if !cond.BackendStart.IsZero() {
		start = &cond.BackendStart
	}
	rows, err := c.pg.Query(ctx, q, id, cond.Database, classid, objid, sub, start)
	if err != nil {
		return false, fmt.Errorf("terminate backend %d on %s: %w", id, c.Server(), err)
	}
	ended, err := pgx.CollectRows(rows, pgx.RowTo[bool])
	if err != nil {
		return false, fmt.Errorf("terminate backend %d on %s: %w", id, c.Server(), err)
	}
	return len(ended) == 1 && ended[0], nil
}

// ParsePGKey parses an advisory lock's key: "42" (one bigint, single) or
// "1/2" (two int4).
func ParsePGKey(key string) (k1, k2 int64, single bool, err error) {
	a, b, two := strings.Cut(strings.TrimSpace(key), "/")
	if !two {
		k1, err = strconv.ParseInt(a, 10, 64)
		if err != nil {
			return 0, 0, false, fmt.Errorf("advisory lock key %q: want a bigint (42) or two int4 (1/2)", key)
		}
		return k1, 0, true, nil
	}
	x, err1 := strconv.ParseInt(a, 10, 32)
	y, err2 := strconv.ParseInt(b, 10, 32)
	if err1 != nil || err2 != nil {
		return 0, 0, false, fmt.Errorf("advisory lock key %q: want a bigint (42) or two int4 (1/2)", key)
	}
	return x, y, false, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func deref64(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
