package dbview

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
)

// mysqlWaitSeconds is each GET_LOCK's timeout while HoldSession waits (it
// asks again after one ends, until its context ends).
const mysqlWaitSeconds = 3600

// holdMySQL takes GET_LOCK(key) on a connection of its own (a pool of
// one that never reconnects: a broken connection is the lock lost).
func holdMySQL(ctx context.Context, c *Client, key string, o HoldOptions) (*Session, error) {
	if o.Shared {
		return nil, errors.New("GET_LOCK locks are exclusive only (a shared lock is PostgreSQL's)")
	}
	if key == "" {
		return nil, errors.New("GET_LOCK needs a lock name")
	}
	if o.PingEvery <= 0 {
		o.PingEvery = 2 * time.Second
	}
	if o.PingTimeout <= 0 {
		o.PingTimeout = 5 * time.Second
	}
	mc, err := mysqlConfig(c.cfg)
	if err != nil {
		return nil, err
	}
	connector, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	conn, err := db.Conn(ctx)
	if err == nil {
		var s *Session
		if s, err = mysqlTake(ctx, c, conn, key, o.Try); err == nil {
			mysqlWatch(s, db, conn, key, o)
			return s, nil
		}
		conn.Close()
	}
	db.Close()
	if errors.Is(err, ErrBusy) {
		return nil, err
	}
	return nil, fmt.Errorf("GET_LOCK(%q) on mysql://%s: %w", key, c.cfg.Addr(), err)
}

// mysqlTake reads conn's id, then GET_LOCK: once with timeout 0 for a
// try, else until it succeeds or ctx ends (the wait is then ended on the
// server with KILL QUERY from c's own connection).
func mysqlTake(ctx context.Context, c *Client, conn *sql.Conn, key string, try bool) (*Session, error) {
	s := newSession()
	s.Key = key
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&s.ID); err != nil {
		return nil, err
	}
	wait := mysqlWaitSeconds
	if try {
		wait = 0
	}
	for {
		var got sql.NullInt64
		err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", key, wait).Scan(&got)
		if ctx.Err() != nil {
			kctx, cancel := context.WithTimeout(context.Background(), c.cfg.DialTimeout)
			c.sqlDB.ExecContext(kctx, "KILL QUERY "+strconv.FormatInt(s.ID, 10))
			cancel()
			return nil, fmt.Errorf("waiting for the lock: %w", ctx.Err())
		}
		switch {
		case err != nil:
			return nil, err
		case !got.Valid:
			return nil, errors.New("GET_LOCK answered NULL (an error, or the wait was killed)")
		case got.Int64 == 1:
			return s, nil
		case try:
			return nil, ErrBusy
		}
	}
}

// mysqlWatch asks conn every o.PingEvery whether it still holds key
// (IS_USED_LOCK), each answer going to o.OnContact, until Release: a
// broken connection, no answer within o.PingTimeout or another holder is
// the lock lost. It sets s's release.
func mysqlWatch(s *Session, db *sql.DB, conn *sql.Conn, key string, o HoldOptions) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(o.PingEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			if err := mysqlProbe(conn, key, s.ID, o.PingTimeout); err != nil {
				s.markLost(err)
				conn.Close()
				return
			}
			if o.OnContact != nil {
				o.OnContact(time.Now())
			}
		}
	}()
	s.release = func(ctx context.Context) error {
		close(stop)
		<-done
		defer db.Close()
		defer conn.Close()
		if err := s.Err(); err != nil {
			return fmt.Errorf("GET_LOCK %q was lost: %w", key, err)
		}
		var ok sql.NullInt64
		if err := conn.QueryRowContext(ctx, "SELECT RELEASE_LOCK(?)", key).Scan(&ok); err != nil {
			return fmt.Errorf("release GET_LOCK %q: %w", key, err)
		}
		if !ok.Valid || ok.Int64 != 1 {
			return fmt.Errorf("release GET_LOCK %q: the server says this connection did not hold it", key)
		}
		return nil
	}
}

// mysqlProbe is nil while connection id still holds key; no answer
// within timeout is a broken connection too.
func mysqlProbe(conn *sql.Conn, key string, id int64, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var holder sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", key).Scan(&holder); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("the server did not answer within %s: %w", timeout, err)
		}
		return fmt.Errorf("the connection holding it broke: %w", err)
	}
	if !holder.Valid || holder.Int64 != id {
		return fmt.Errorf("the server says connection %d no longer holds it", id)
	}
	return nil
}

// terminateMySQL KILLs connection id while it holds cond.Key (asked with
// IS_USED_LOCK just before: MySQL has no KILL that checks first, so a
// holder that releases in between is still ended).
func terminateMySQL(ctx context.Context, c *Client, id int64, cond TerminateIf) (bool, error) {
	var holder sql.NullInt64
	if err := c.sqlDB.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", cond.Key).Scan(&holder); err != nil {
		return false, fmt.Errorf("IS_USED_LOCK(%q): %w", cond.Key, err)
	}
	if !holder.Valid || holder.Int64 != id {
		return false, nil
	}
	if _, err := c.sqlDB.ExecContext(ctx, "KILL CONNECTION "+strconv.FormatInt(id, 10)); err != nil {
		return false, fmt.Errorf("KILL CONNECTION %d: %w", id, err)
	}
	return true, nil
}
