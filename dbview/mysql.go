package dbview

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// MySQL's and MariaDB's user-level locks (GET_LOCK) are listed from one
// of two sources, whichever the server offers (see readMySQL):
//
//   - performance_schema.metadata_locks (MySQL 5.7+, MariaDB 10.5+ with
//     performance_schema=ON): OBJECT_TYPE 'USER LEVEL LOCK' rows, GRANTED
//     (holders) and PENDING (waiters), when the instrument
//     wait/lock/metadata/sql/mdl is enabled (MySQL 8's default);
//   - MariaDB's metadata_lock_info plugin (INFORMATION_SCHEMA.
//     METADATA_LOCK_INFO): the holders only; a waiter is a process-list
//     entry in state "User lock" whose statement names the lock as a
//     literal (mysqlWaitName), else its lock is unknown.
//
// Both are joined with the process list (id, user, host, db, command,
// time, state, info) and InnoDB's open transactions.

// errMySQLNoSource is readMySQL's error when the server offers neither.
var errMySQLNoSource = errors.New("this server cannot list GET_LOCK locks: " +
	"enable performance_schema with the instrument wait/lock/metadata/sql/mdl, or on MariaDB INSTALL SONAME 'metadata_lock_info'")

// mysqlUserLockState is the process-list state of a session waiting in
// GET_LOCK (MySQL 5.7+ and MariaDB).
const mysqlUserLockState = "User lock"

// The sources of user-level locks (mysqlSource).
const (
	mySourcePS     = "performance_schema.metadata_locks"
	mySourcePlugin = "information_schema.METADATA_LOCK_INFO"
)

// mysqlConfig is the driver's configuration for c.
func mysqlConfig(c Config) (*mysql.Config, error) {
	mc := mysql.NewConfig()
	mc.User = c.User
	mc.Passwd = c.Password
	mc.Net = "tcp"
	mc.Addr = c.Addr()
	mc.DBName = c.Database
	mc.Timeout = c.DialTimeout
	mc.ParseTime = false
	mc.ConnectionAttributes = "program_name:zkscope"
	mc.Logger = &mysql.NopLogger{} // errors reach callers as values; the driver's log lines would reach the terminal
	switch {
	case c.TLS != nil:
		mc.TLS = c.TLS
	case c.SSLMode != "":
		mc.TLSConfig = c.SSLMode // true, false, skip-verify, preferred (ParseURL checked)
	}
	return mc, nil
}

// openMySQL connects c to a MySQL or MariaDB server (c.sqlDB) and reads
// its version once.
func openMySQL(ctx context.Context, c *Client) error {
	mc, err := mysqlConfig(c.cfg)
	if err != nil {
		return fmt.Errorf("mysql://%s: %w", c.cfg.Addr(), err)
	}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return fmt.Errorf("mysql://%s: %w", c.cfg.Addr(), err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxIdleConns(2)
	pctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	defer cancel()
	var version, comment string
	err = db.QueryRowContext(pctx, "SELECT VERSION(), @@version_comment").Scan(&version, &comment)
	if err != nil {
		db.Close()
		return fmt.Errorf("connect to mysql://%s: %w", c.cfg.Addr(), err)
	}
	if strings.Contains(strings.ToLower(comment), "mariadb") && !strings.Contains(strings.ToLower(version), "mariadb") {
		version += " (MariaDB)"
	}
	c.sqlDB, c.version = db, version
	return nil
}

// mysqlIsMariaDB reports whether the version string is MariaDB's.
func mysqlIsMariaDB(version string) bool {
	return strings.Contains(strings.ToLower(version), "mariadb")
}

// mysqlSource says which source lists the server's user-level locks now
// (the instrument can be switched at run time, so it is asked at each
// read).
func mysqlSource(ctx context.Context, db *sql.DB, mariadb bool) (string, error) {
	var enabled sql.NullString
	err := db.QueryRowContext(ctx, `SELECT ENABLED FROM performance_schema.setup_instruments WHERE NAME = 'wait/lock/metadata/sql/mdl'`).Scan(&enabled)
	if err == nil && strings.EqualFold(enabled.String, "YES") {
		var on sql.NullString
		if err := db.QueryRowContext(ctx, "SELECT @@performance_schema").Scan(&on); err == nil && (on.String == "1" || strings.EqualFold(on.String, "ON")) {
			return mySourcePS, nil
		}
	}
	if err != nil && ctx.Err() != nil {
		return "", ctx.Err()
	}
	if mariadb {
		var n int
		err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'METADATA_LOCK_INFO' AND PLUGIN_STATUS = 'ACTIVE'`).Scan(&n)
		if err != nil {
			return "", err
		}
		if n > 0 {
			return mySourcePlugin, nil
		}
	}
	return "", errMySQLNoSource
}
