package dbview

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

type ctxwatchHandler = ctxwatch.Handler

// switchHandler ends a query whose context ends by a cancel request
// (the server stops waiting, the connection stays usable), except while
// a held lock's connection is only listened to (deadline set): then the
// read stops at once and nothing is sent.
type switchHandler struct {
	cancel   *pgconn.CancelRequestContextWatcherHandler
	deadline *pgconn.DeadlineContextWatcherHandler
	listen   atomic.Bool
	active   ctxwatch.Handler
}

func newSwitchHandler(c *pgconn.PgConn) *switchHandler {
	return &switchHandler{
		cancel:   &pgconn.CancelRequestContextWatcherHandler{Conn: c, CancelRequestDelay: 0, DeadlineDelay: 5 * time.Second},
		deadline: &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()},
	}
}

func (h *switchHandler) HandleCancel(ctx context.Context) {
	h.active = h.cancel
	if h.listen.Load() {
		h.active = h.deadline
	}
	h.active.HandleCancel(ctx)
}

func (h *switchHandler) HandleUnwatchAfterCancel() { h.active.HandleUnwatchAfterCancel() }

// pgLockCalls are the functions taking and releasing an advisory lock:
// [shared][try] and the release of each mode.
var pgLockCalls = map[[2]bool]string{
	{false, false}: "pg_advisory_lock", {false, true}: "pg_try_advisory_lock",
	{true, false}: "pg_advisory_lock_shared", {true, true}: "pg_try_advisory_lock_shared",
}

// pgArgs is the SQL argument list and values of key.
func pgArgs(key string) (string, []any, error) {
	k1, k2, single, err := ParsePGKey(key)
	if err != nil {
		return "", nil, err
	}
	if single {
		return "$1::int8", []any{k1}, nil
	}
	return "$1::int4, $2::int4", []any{k1, k2}, nil
}

func holdPostgres(ctx context.Context, c *Client, key string, o HoldOptions) (*Session, error) {
	args, vals, err := pgArgs(key)
	if err != nil {
		return nil, err
	}
	pc, err := pgConfig(c.cfg, "zkscope lock")
	if err != nil {
		return nil, err
	}
	var h *switchHandler
	pc.BuildContextWatcherHandler = func(pg *pgconn.PgConn) ctxwatch.Handler { h = newSwitchHandler(pg); return h }
	conn, err := pgx.ConnectConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("connect to postgres://%s: %w", c.cfg.Addr(), err)
	}
	s := newSession()
	s.Key = key
	err = conn.QueryRow(ctx, `SELECT pg_backend_pid(), current_database(), backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()`).
		Scan(&s.ID, &s.Database, &s.BackendStart)
	if err == nil {
		err = pgTake(ctx, conn, pgLockCalls[[2]bool{o.Shared, o.Try}]+"("+args+")", o.Try, vals)
	}
	if err != nil {
		closeCtx, cancel := context.WithTimeout(context.Background(), c.cfg.DialTimeout)
		defer cancel()
		_ = conn.Close(closeCtx)
		return nil, err
	}
	listenCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	h.listen.Store(true)
	if o.PingEvery <= 0 {
		o.PingEvery = 2 * time.Second
	}
	if o.PingTimeout <= 0 {
		o.PingTimeout = 5 * time.Second
	}
	go pgListen(listenCtx, conn, s, o, done)
	unlock := "pg_advisory_unlock"
	if o.Shared {
		unlock = "pg_advisory_unlock_shared"
	}
	s.release = func(ctx context.Context) error {
		stop()
		<-done
		h.listen.Store(false)
		defer conn.Close(context.WithoutCancel(ctx))
		if err := s.Err(); err != nil {
			return fmt.Errorf("advisory lock %s was lost: %w", key, err)
		}
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT "+unlock+"("+args+")", vals...).Scan(&ok); err != nil {
			return fmt.Errorf("release advisory lock %s: %w", key, err)
		}
		if !ok {
			return fmt.Errorf("release advisory lock %s: the server says this session did not hold it", key)
		}
		return nil
	}
	return s, nil
}

// pgTake runs the taking call; a try that failed is ErrBusy.
func pgTake(ctx context.Context, conn *pgx.Conn, call string, try bool, vals []any) error {
	if !try {
		_, err := conn.Exec(ctx, "SELECT "+call, vals...)
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("waiting for the advisory lock: %w", ctx.Err())
		}
		return err
	}
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT "+call, vals...).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return ErrBusy
	}
	return nil
}

// pgListen reads the held lock's connection until ctx ends (Release) or
// the connection breaks (the lock is lost: the server ends a session's
// locks with it), asking it to answer every o.PingEvery.
func pgListen(ctx context.Context, conn *pgx.Conn, s *Session, o HoldOptions, done chan<- struct{}) {
	defer close(done)
	for {
		wctx, cancel := context.WithTimeout(ctx, o.PingEvery)
		err := conn.PgConn().WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) && !errors.Is(err, context.DeadlineExceeded) || conn.IsClosed() {
			s.markLost(lostReason(err))
			return
		}
		// Not derived from ctx: a Release during the ping waits for it
		// rather than cutting the connection.
		pctx, cancel := context.WithTimeout(context.Background(), o.PingTimeout)
		err = conn.Ping(pctx)
		cancel()
		if err != nil {
			conn.Close(context.Background())
			s.markLost(fmt.Errorf("the server did not answer within %s: %w", o.PingTimeout, err))
			return
		}
		if o.OnContact != nil {
			o.OnContact(time.Now())
		}
	}
}

func lostReason(err error) error {
	if err == nil {
		return errors.New("connection closed")
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Errorf("the server ended the session: %s (%s)", pe.Message, pe.Code)
	}
	return fmt.Errorf("connection broken: %w", err)
}
