package dblock

// Holding a database lock: dbview.HoldSession on a connection of its own
// (PostgreSQL pg_advisory_lock, waiting or trying once). The lock lasts as
// long as that connection: the server releases it when the connection
// ends, so a broken connection is a lost lock at once, and lost stays lost.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/zkview"
)

// The connection holding a lock is asked to answer every PingEvery; its
// deadline is its last answer plus DeadlineAfter (it is closed, and the
// lock lost, when an answer takes longer than PingTimeout).
const (
	PingEvery     = 2 * time.Second
	PingTimeout   = 5 * time.Second
	DeadlineAfter = PingEvery + PingTimeout + time.Second
)

// TakeOptions configure [Take].
type TakeOptions struct {
	Wait     hold.WaitPolicy // default WaitBlock
	Timeout  time.Duration   // for WaitTimeout
	Shared   bool            // a shared lock
	ReadOnly bool            // refuse (--read-only or the context's read_only)
	Context  string          // the context's name, for the audit log
}

// Held is a database lock zkscope holds.
type Held struct {
	Key    string
	Server string // host:port/database
	Recipe lockops.Kind
	s      *dbview.Session
	audit  dbAudit

	mu      sync.Mutex
	state   hold.State
	reason  string
	contact time.Time
	subs    hold.Subscribers
	lost    chan struct{}
}

// Take takes key on c's server on a connection of its own, waiting while
// another session holds it as o says: [hold.ErrTimeout] after o.Timeout,
// [hold.ErrWouldBlock] with WaitNone, ctx's error when it ends; a wait
// given up is cancelled on the server (nothing stays queued). Taking, and
// refusing to, are audited.
func Take(ctx context.Context, c *dbview.Client, key string, o TakeOptions) (*Held, error) {
	a := dbAudit{server: c.Server(), context: o.Context, word: SessionWord(kindOf(c))}
	if o.ReadOnly {
		err := fmt.Errorf("take %s: %w", key, zkview.ErrReadOnly)
		a.record(lockops.OpTake, key, 0, err)
		return nil, err
	}
	h := &Held{Key: key, Server: c.Server(), Recipe: kindOf(c), audit: a, lost: make(chan struct{}), contact: time.Now()}
	ho := dbview.HoldOptions{Try: o.Wait == hold.WaitNone, Shared: o.Shared, PingEvery: PingEvery, PingTimeout: PingTimeout, OnContact: h.onContact}
	tctx := ctx
	if o.Wait == hold.WaitTimeout {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	s, err := c.HoldSession(tctx, key, ho)
	switch {
	case errors.Is(err, dbview.ErrBusy):
		err = hold.ErrWouldBlock
	case err != nil && ctx.Err() == nil && tctx.Err() != nil:
		err = hold.ErrTimeout
	case err != nil && ctx.Err() != nil:
		err = ctx.Err()
	}
	if err != nil {
		err = fmt.Errorf("take %s: %w", key, err)
		a.record(lockops.OpTake, key, 0, err)
		return nil, err
	}
	h.s, h.contact = s, time.Now()
	a.record(lockops.OpTake, key, s.ID, nil)
	go h.watch()
	return h, nil
}

func kindOf(c *dbview.Client) lockops.Kind {
	if c.Kind() == dbview.KindMySQL {
		return lockops.KindMySQLGetLock
	}
	return lockops.KindPostgresAdvisory
}

// Session is the server's id of the session holding the lock (a pid).
func (h *Held) Session() int64 { return h.s.ID }

func (h *Held) onContact(t time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state != hold.StateHeld {
		return
	}
	h.contact = t
	h.subs.SendDeadlineLocked(t.Add(DeadlineAfter))
}

// watch declares the lock lost when its connection breaks.
func (h *Held) watch() {
	<-h.s.Lost()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.setStateLocked(hold.StateLost, fmt.Sprintf("the connection holding it broke (%v); the server releases a session's locks with it", h.s.Err()))
}

// setStateLocked records a final change (lost or released) and tells
// subscribers. Caller holds h.mu.
func (h *Held) setStateLocked(s hold.State, reason string) {
	if h.state == hold.StateLost || h.state == hold.StateReleased {
		return
	}
	h.state, h.reason = s, reason
	if s == hold.StateLost {
		close(h.lost)
	}
	h.subs.NotifyLocked(hold.Change{State: s, Reason: reason, Time: time.Now()})
	h.subs.CloseSubsLocked()
	h.subs.CloseDeadlinesLocked()
}

// State is held, lost or released.
func (h *Held) State() hold.State {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state
}

// Reason says why the lock was lost ("" otherwise).
func (h *Held) Reason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reason
}

// Deadline is the connection's last answer plus [DeadlineAfter].
func (h *Held) Deadline() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.contact.Add(DeadlineAfter)
}

// Changes delivers the lock's changes (lost, released).
func (h *Held) Changes() <-chan hold.Change {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.subs.SubscribeLocked(h.state, h.reason, false)
}

// Deadlines delivers each new deadline (after every answer).
func (h *Held) Deadlines() <-chan time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.subs.DeadlinesLocked(h.state, h.contact.Add(DeadlineAfter))
}

// LostCh is closed when the lock is lost.
func (h *Held) LostCh() <-chan struct{} { return h.lost }

// RevokeCh never delivers: database locks have no revocation protocol.
func (h *Held) RevokeCh() <-chan struct{} { return nil }

// Release unlocks and closes the connection; [hold.ErrLost] when the lock
// had been lost before.
func (h *Held) Release(ctx context.Context) error {
	h.mu.Lock()
	if h.state == hold.StateLost {
		h.mu.Unlock()
		h.s.Release(ctx)
		err := fmt.Errorf("%w: %s", hold.ErrLost, h.Reason())
		h.audit.record(lockops.OpRelease, h.Key, h.s.ID, err)
		return err
	}
	h.mu.Unlock()
	err := h.s.Release(ctx)
	h.mu.Lock()
	if err != nil && h.state != hold.StateLost {
		h.setStateLocked(hold.StateLost, err.Error())
		err = fmt.Errorf("%w: %v", hold.ErrLost, err)
	} else if err == nil {
		h.setStateLocked(hold.StateReleased, "")
	}
	h.mu.Unlock()
	h.audit.record(lockops.OpRelease, h.Key, h.s.ID, err)
	return err
}

// String summarises the lock: "postgres.advisory 42 (pid 4242)".
func (h *Held) String() string {
	return fmt.Sprintf("%s %s (%s %d)", h.Recipe, h.Key, SessionWord(h.Recipe), h.s.ID)
}

// LockNode is the key, for messages.
func (h *Held) LockNode() string { return h.Key }

// ReleaseWithin bounds a release.
func (h *Held) ReleaseWithin() time.Duration { return PingTimeout + PingEvery }

// ServerName names the server in messages.
func (h *Held) ServerName() string {
	if h.Recipe == lockops.KindMySQLGetLock {
		return "MySQL"
	}
	return "PostgreSQL"
}

// DeadlineRule says what [Held.Deadline] is.
func (h *Held) DeadlineRule() string {
	return fmt.Sprintf("the last answer of the connection holding the lock (asked every %s) + %s", PingEvery, DeadlineAfter)
}

// FenceEnv is what CMD learns about the lock it runs under. There is no
// fencing token: the server keeps no counter a later holder sees larger.
func (h *Held) FenceEnv() []string {
	return []string{
		"ZKSCOPE_LOCK_PATH=" + h.Key,
		"ZKSCOPE_LOCK_NODE=" + h.Key,
		"ZKSCOPE_LOCK_SESSION=" + strconv.FormatInt(h.s.ID, 10),
		"ZKSCOPE_LOCK_SERVERS=" + h.Server,
	}
}

// dbAudit writes a database server's operations to the audit log.
type dbAudit struct{ server, context, word string } // word: SessionWord

func (a dbAudit) record(op, key string, pid int64, err error) {
	e := audit.Entry{Operation: op, Path: key, Servers: []string{a.server}, Context: a.context}
	if pid != 0 {
		e.Session = a.word + " " + strconv.FormatInt(pid, 10)
	}
	audit.RecordEntry(nil, e, err)
}

// Refuse records that op on key was refused for reason and returns the
// [*lockops.Refusal] (exit 2).
func Refuse(c *dbview.Client, contextName, op, key, reason string) error {
	err := &lockops.Refusal{Op: op, Path: key, Reason: reason}
	dbAudit{server: c.Server(), context: contextName, word: SessionWord(kindOf(c))}.record(op, key, 0, err)
	return err
}
