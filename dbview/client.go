package dbview

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrBusy is HoldSession's error when Try is set and another session
// holds the lock.
var ErrBusy = errors.New("the lock is held by another session")

// Client is one connection for reading a database server's locks (a
// lock held is on a connection of its own: HoldSession). Its methods are
// safe for concurrent use; reads are serialised.
type Client struct {
	cfg     Config
	version string

	mu    sync.Mutex
	pg    *pgx.Conn // PostgreSQL
	sqlDB *sql.DB   // MySQL (go-sql-driver/mysql), for mysql.go
}

// Open connects to cfg's server.
func Open(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 5 * time.Second
	}
	c := &Client{cfg: cfg}
	var err error
	switch cfg.Kind {
	case KindPostgres:
		err = openPostgres(ctx, c)
	case KindMySQL:
		err = openMySQL(ctx, c)
	default:
		err = fmt.Errorf("database kind %q: want %s or %s", cfg.Kind, KindPostgres, KindMySQL)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Kind is KindPostgres or KindMySQL.
func (c *Client) Kind() string { return c.cfg.Kind }

// Server is the server's name for display: host:port/database (the
// caller escapes it, it came from the operator).
func (c *Client) Server() string {
	if c.cfg.Database == "" {
		return c.cfg.Addr()
	}
	return c.cfg.Addr() + "/" + c.cfg.Database
}

// Version is the server's version as it reported it at connect.
func (c *Client) Version() string { return c.version }

// Config is the configuration the client was opened with.
func (c *Client) Config() Config { return c.cfg }

// Close closes the reading connection.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	if c.pg != nil {
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.DialTimeout)
		errs = append(errs, c.pg.Close(ctx))
		cancel()
	}
	if c.sqlDB != nil {
		errs = append(errs, c.sqlDB.Close())
	}
	return errors.Join(errs...)
}

// Locks reads every lock held or awaited on the server, with the
// sessions behind them, in one statement.
func (c *Client) Locks(ctx context.Context) (*Snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cfg.Kind == KindMySQL {
		return readMySQL(ctx, c)
	}
	return readPostgres(ctx, c)
}

// HoldOptions say how HoldSession takes the lock.
type HoldOptions struct {
	Try    bool // fail with ErrBusy rather than wait
	Shared bool // a shared lock (PostgreSQL only)
	// PingEvery is how often the held lock's connection is asked to
	// answer (default 2s); each answer goes to OnContact. A connection
	// that does not answer within PingTimeout (default 5s) is closed and
	// the lock lost.
	PingEvery, PingTimeout time.Duration
	OnContact              func(time.Time)
}

// HoldSession takes the session-level lock key on a connection of its
// own, waiting (until ctx ends) unless o.Try. The lock is held until
// Release or until that connection breaks (Session.Lost).
func (c *Client) HoldSession(ctx context.Context, key string, o HoldOptions) (*Session, error) {
	if c.cfg.Kind == KindMySQL {
		return holdMySQL(ctx, c, key, o)
	}
	return holdPostgres(ctx, c, key, o)
}

// TerminateIf is what must still be true for Terminate to end a
// backend: it holds the lock Key in Database (granted), and it is the
// backend that started at BackendStart (not a reused id).
type TerminateIf struct {
	Key          string
	Database     string
	BackendStart time.Time
}

// Terminate ends backend id (PostgreSQL pg_terminate_backend, MySQL KILL)
// when it still holds the lock as cond says; ended is false (and err nil)
// when it no longer does.
func (c *Client) Terminate(ctx context.Context, id int64, cond TerminateIf) (ended bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cfg.Kind == KindMySQL {
		return terminateMySQL(ctx, c, id, cond)
	}
	return terminatePostgres(ctx, c, id, cond)
}
