package redislock

// A Redis lock zkscope holds: extended at a third of its TTL with a Lua
// compare-and-PEXPIRE, declared LOST when the key no longer holds our token
// or no extension reached a majority before the deadline, released with a
// Lua compare-and-delete. Lost stays lost: nothing extends it again, and
// the key is deleted wherever it still holds our token.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/redisview"
)

// Held is a Redis lock zkscope holds (from [Take]). All methods
// are safe for concurrent use; it offers what a take.Held does (State,
// Changes, Deadlines, Release), so the lock pane and `zkscope lock` treat
// both alike.
//
// Its deadline is the start of the latest extension a majority of the
// servers accepted plus the TTL, less the clock drift (Redlock's: 1% of the
// TTL plus 2 ms) and a margin (min(TTL/10, 500ms)): before it the key
// cannot have expired on a majority, whatever happened since. An extension
// that fails makes the lock SUSPENDED (tried again every TTL/10, 1 s at
// most); at the deadline it is LOST.
type Held struct {
	Key      string
	Token    string
	Recipe   lockops.Kind // KindRedisSetNX or KindRedlock
	Servers  []string     // host:port of each server (Redlock: each master)
	TTL      time.Duration
	Acquired time.Time

	t         *redisTaker
	audit     redisAudit
	releaseMu sync.Mutex

	mu          sync.Mutex
	state       hold.State
	reason      string
	lastContact time.Time // start of the latest extension a majority accepted
	hold.Subscribers
	lost     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

func newRedisHeld(c *redisview.Client, key, token string, ttl time.Duration, start time.Time, audit redisAudit) *Held {
	h := &Held{
		Key: key, Token: token, Recipe: Recipe(c), Servers: c.Servers(), TTL: ttl, Acquired: time.Now(),
		t: &redisTaker{c: c, key: key, token: token, ttl: ttl}, audit: audit,
		lastContact: start,
		lost:        make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go h.monitor()
	return h
}

// State is the lock's current state.
func (h *Held) State() hold.State {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state
}

// Reason explains the current state ("" while held).
func (h *Held) Reason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reason
}

// Deadline is the moment the lock must be treated as lost unless an
// extension reaches a majority before (see [Held]).
func (h *Held) Deadline() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.deadlineLocked()
}

func (h *Held) deadlineLocked() time.Time {
	return h.lastContact.Add(h.TTL - redlockDrift(h.TTL) - hold.LossMargin(h.TTL))
}

// Changes returns a new channel of state changes, as take.Held.Changes: closed
// after StateReleased or StateLost.
func (h *Held) Changes() <-chan hold.Change {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.SubscribeLocked(h.state, h.reason, false)
}

// Deadlines returns a new channel holding the latest [Held.Deadline],
// as take.Held.Deadlines: closed when the lock is lost or released.
func (h *Held) Deadlines() <-chan time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.DeadlinesLocked(h.state, h.deadlineLocked())
}

// LostCh is closed when the lock is lost (not when it is released).
func (h *Held) LostCh() <-chan struct{} { return h.lost }

// RevokeCh never delivers: Redis locks have no revocation protocol.
func (h *Held) RevokeCh() <-chan struct{} { return nil }

// String summarises the lock: "redlock lock:deploy (token …)".
func (h *Held) String() string {
	return fmt.Sprintf("%s %s (token %s)", h.Recipe, h.Key, h.Token)
}

// setStateLocked records a change and tells subscribers; lost and released
// are final. Caller holds h.mu.
func (h *Held) setStateLocked(s hold.State, reason string) {
	if h.state == hold.StateLost || h.state == hold.StateReleased || s == h.state {
		return
	}
	h.state, h.reason = s, reason
	ev := hold.Change{State: s, Reason: reason, Time: time.Now()}
	if s == hold.StateHeld || s == hold.StateSuspended {
		ev.Deadline = h.deadlineLocked()
	}
	h.NotifyLocked(ev)
	if s == hold.StateLost || s == hold.StateReleased {
		if s == hold.StateLost {
			close(h.lost)
		}
		h.CloseDeadlinesLocked()
		h.CloseSubsLocked()
	}
}

// monitor extends the key at a third of the TTL after the last accepted
// extension (sooner again after a failed one) until released or lost.
func (h *Held) monitor() {
	defer close(h.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-h.stop
		cancel()
	}()
	next := h.lastContact.Add(h.TTL / 3)
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-timer.C:
		}
		if time.Now().After(h.Deadline()) {
			h.lostBySilence()
			return
		}
		if !h.extend(ctx) {
			return
		}
		h.mu.Lock()
		next = h.lastContact.Add(h.TTL / 3)
		if h.state == hold.StateSuspended {
			next = time.Now().Add(min(max(h.TTL/10, 20*time.Millisecond), time.Second))
		}
		next = minTime(next, h.deadlineLocked())
		h.mu.Unlock()
		timer.Reset(time.Until(next))
	}
}

// extend runs one extension round, bounded by the deadline and the request
// timeout (a master that does not answer must not hold up the others' next
// round); false when the
// lock is over (lost, or released meanwhile).
func (h *Held) extend(ctx context.Context) bool {
	n := len(h.Servers)
	start := time.Now()
	ctx, cancel := context.WithDeadline(ctx, minTime(h.Deadline(), start.Add(redisRequestTimeout(h.TTL))))
	extended, answered, err := h.t.onEvery(func(i int) (bool, error) {
		return h.t.c.ExpireIfHolds(ctx, i, h.Key, h.Token, h.TTL)
	})
	cancel()
	refused := answered - extended
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.stop: // a release cut the round short: its outcome says nothing
		return false
	default:
	}
	if h.state == hold.StateReleased || h.state == hold.StateLost {
		return false
	}
	switch {
	case extended >= Quorum(n) && time.Since(start) < h.TTL-redlockDrift(h.TTL):
		h.lastContact = start
		h.SendDeadlineLocked(h.deadlineLocked())
		h.setStateLocked(hold.StateHeld, "")
	case refused > n-Quorum(n):
		h.setStateLocked(hold.StateLost, fmt.Sprintf("%s no longer holds our token on %s: it expired or someone deleted or overwrote it, and another client may hold the lock now",
			h.Key, h.whereRefused(refused, answered)))
		go h.deleteDeclaredLost()
		return false
	default:
		h.setStateLocked(hold.StateSuspended, fmt.Sprintf("extending %s failed: %s", h.Key, oneLine(err)))
	}
	return true
}

// whereRefused names the servers that answered without our token.
func (h *Held) whereRefused(refused, answered int) string {
	if len(h.Servers) == 1 {
		return h.Servers[0]
	}
	return fmt.Sprintf("%d of %d masters (%d answered)", refused, len(h.Servers), answered)
}

// lostBySilence declares the lock lost at its deadline.
func (h *Held) lostBySilence() {
	h.mu.Lock()
	last := h.lastContact
	h.setStateLocked(hold.StateLost, fmt.Sprintf("no extension of %s reached %s since %s (%s ago): the key may expire from %s on (TTL %s), so the lock is treated as lost and another client may hold it soon",
		h.Key, h.majorityName(), last.Format("15:04:05.000"), hold.RoundDuration(time.Since(last)), last.Add(h.TTL).Format("15:04:05.000"), h.TTL))
	h.mu.Unlock()
	go h.deleteDeclaredLost()
}

func (h *Held) majorityName() string {
	if len(h.Servers) == 1 {
		return "Redis"
	}
	return fmt.Sprintf("a majority of the %d masters", len(h.Servers))
}

// deleteDeclaredLost deletes the key wherever it still holds our token
// after the lock was declared lost, so that nothing holds a lock nobody
// knows it holds; audited when it deleted any.
func (h *Held) deleteDeclaredLost() {
	if n, _ := h.t.deleteEverywhere(); n > 0 {
		h.audit.record(hold.OpDeleteLost, h.Key, h.Token, nil)
	}
}

// Release stops extending and deletes the key wherever it still holds our
// token (a Lua compare-and-delete), within ctx. Releasing a released lock
// returns nil; a lost one, an error wrapping [hold.ErrLost]; a key that no
// longer held our token on a majority, too (it had expired: the lock was
// lost). A server that does not answer keeps its key until the TTL; that
// is no error when the key was deleted on a majority.
func (h *Held) Release(ctx context.Context) error {
	h.releaseMu.Lock() // one release at a time: a second one finds it released
	defer h.releaseMu.Unlock()
	h.stopOnce.Do(func() { close(h.stop) })
	<-h.done // the monitor has stopped: the state read below is the last it set
	h.mu.Lock()
	state, reason := h.state, h.reason
	h.mu.Unlock()
	switch state {
	case hold.StateReleased:
		return nil
	case hold.StateLost:
		err := fmt.Errorf("release %s: %w: %s", h.Key, hold.ErrLost, reason)
		h.audit.record(lockops.OpRelease, h.Key, h.Token, err)
		return err
	}
	deleted, answered, err := h.t.onEvery(func(i int) (bool, error) {
		return h.t.c.DeleteIfHolds(ctx, i, h.Key, h.Token)
	})
	h.mu.Lock()
	switch {
	case answered-deleted > len(h.Servers)-Quorum(len(h.Servers)):
		err = fmt.Errorf("release %s: %w: the key no longer held our token (it had expired; another client may have held the lock meanwhile)", h.Key, hold.ErrLost)
		h.setStateLocked(hold.StateLost, err.Error())
	case err != nil && deleted < Quorum(len(h.Servers)):
		err = fmt.Errorf("release %s: %w (where it was not deleted, the key expires within %s)", h.Key, err, h.TTL)
		h.setStateLocked(hold.StateReleased, "")
	case err != nil: // deleted on a majority: a master that did not answer lets its key expire
		err = nil
		h.setStateLocked(hold.StateReleased, "")
	default:
		h.setStateLocked(hold.StateReleased, "")
	}
	h.mu.Unlock()
	h.audit.record(lockops.OpRelease, h.Key, h.Token, err)
	return err
}

// LockNode, FenceEnv, ReleaseWithin and ServerName make a [*Held] a
// heldLock for `zkscope lock`.
func (h *Held) LockNode() string             { return h.Key }
func (h *Held) ReleaseWithin() time.Duration { return h.TTL }
func (h *Held) ServerName() string           { return "Redis" }

// DeadlineRule says what [Held.Deadline] is, naming the flag that
// moves it.
func (h *Held) DeadlineRule() string {
	return fmt.Sprintf("the last accepted extension's start + the TTL %s (--ttl) - %s", h.TTL, redlockDrift(h.TTL)+hold.LossMargin(h.TTL))
}

// FenceEnv is what CMD learns about the Redis lock it runs under. There is
// no ZKSCOPE_LOCK_FENCE: Redis has no counter that a later holder is sure
// to see larger, across a failover least of all.
func (h *Held) FenceEnv() []string {
	return []string{
		"ZKSCOPE_LOCK_PATH=" + h.Key,
		"ZKSCOPE_LOCK_NODE=" + h.Key,
		"ZKSCOPE_LOCK_TOKEN=" + h.Token,
		"ZKSCOPE_LOCK_SERVERS=" + strings.Join(h.Servers, ","),
	}
}

// redisAudit writes a Redis operation's audit line.
type redisAudit struct {
	servers []string
	context string
}

// record writes op on key with token and its outcome; a failure to write is
// reported through [audit.Errors].
func (a redisAudit) record(op, key, token string, err error) {
	e := audit.Entry{Operation: op, Path: key, Token: token, Servers: a.servers, Context: a.context}
	if e.Servers == nil {
		e.Servers = []string{}
	}
	audit.RecordEntry(nil, e, err)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// oneLine is err's text, or "no answer" without one.
func oneLine(err error) string {
	if err == nil {
		return "no answer"
	}
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
