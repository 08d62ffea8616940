package redislock

// Taking a Redis lock: SET key token NX PX ttl with a random token on one
// server (redis.setnx, as redis-py's Lock and redsync take it), or on
// several masters as a Redlock: held when a majority was set within the
// validity (the TTL less the time taken and the clock drift), released
// everywhere otherwise. While someone else holds it, Take waits and tries
// again. The held lock is a [*Held] (held.go).

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/zkview"
)

// DefaultTTL is a Redis lock's expiry when none is given.
const DefaultTTL = 30 * time.Second

// TakeOptions configure [Take].
type TakeOptions struct {
	// TTL is the key's expiry, renewed at a third of it while held
	// (default [DefaultTTL]).
	TTL     time.Duration
	Wait    hold.WaitPolicy // default WaitBlock
	Timeout time.Duration   // for WaitTimeout
	// Note is appended to the owner written into the token ("user@host
	// zkscope pid N: note #<random>").
	Note string
	// ReadOnly refuses the take (--read-only or the context's read_only).
	ReadOnly bool
	// Context is the context name written to the audit log.
	Context string
	// Progress, when set, is called (from [Take]'s goroutine) when the
	// holder we wait behind changes, or the masters stop answering.
	Progress func(Progress)
}

// Progress reports what a waiting [Take] waits behind.
type Progress struct {
	Key string
	// Holder is the token that holds the key ("" when none could be read:
	// on a Redlock, a minority's partial take, or no master answering).
	Holder string
	TTL    time.Duration // the holder's remaining time (NoExpiry: none)
	// Answering is how many servers answered the last attempt, of Servers.
	Answering, Servers int
}

// Recipe is the recipe zkscope takes on c's servers: redis.setnx on
// one, redlock on several.
func Recipe(c *redisview.Client) lockops.Kind {
	if c.Len() > 1 {
		return lockops.KindRedlock
	}
	return lockops.KindRedisSetNX
}

// Quorum is how many of n masters must hold a Redlock's token.
func Quorum(n int) int { return n/2 + 1 }

// NewToken is a token for a Redis lock: who took it (as [hold.OwnerData])
// and 16 random bytes, so that no other client can hold the same.
func NewToken(note string) (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a random token: %w", err)
	}
	return string(hold.OwnerData(note)) + " #" + hex.EncodeToString(b), nil
}

// Take takes the lock key on c's servers with a new random token,
// waiting while another client holds it as o says: [hold.ErrTimeout] after
// o.Timeout, [hold.ErrWouldBlock] with WaitNone, ctx's error when it ends. A
// failed attempt leaves no key of ours behind (compare-and-delete on every
// server). The returned [*Held] extends the key until released or
// lost. Taking, and refusing to, are audited.
func Take(ctx context.Context, c *redisview.Client, key string, o TakeOptions) (*Held, error) {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	audit := redisAudit{servers: c.Servers(), context: o.Context}
	if o.ReadOnly {
		err := fmt.Errorf("take %s: %w", key, zkview.ErrReadOnly)
		audit.record(lockops.OpTake, key, "", err)
		return nil, err
	}
	token, err := NewToken(o.Note)
	if err != nil {
		return nil, err
	}
	t := &redisTaker{c: c, key: key, token: token, ttl: o.TTL}
	start, err := t.takeWaiting(ctx, o)
	if err != nil {
		err = fmt.Errorf("take %s: %w", key, err)
		audit.record(lockops.OpTake, key, token, err)
		return nil, err
	}
	audit.record(lockops.OpTake, key, token, nil)
	return newRedisHeld(c, key, token, o.TTL, start, audit), nil
}

// redisTaker is one take in progress.
type redisTaker struct {
	c          *redisview.Client
	key, token string
	ttl        time.Duration
}

// takeWaiting tries until the lock is ours, as o's wait policy allows; it
// returns the start of the attempt that took it.
func (t *redisTaker) takeWaiting(ctx context.Context, o TakeOptions) (time.Time, error) {
	if o.Wait == hold.WaitTimeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, o.Timeout, hold.ErrTimeout)
		defer cancel()
	}
	var last Progress
	for first := true; ; first = false {
		start, got, answered, err := t.attempt(ctx)
		n := t.c.Len()
		switch {
		case got:
			return start, nil
		case answered == 0 && first:
			return time.Time{}, fmt.Errorf("no server answered: %w", err)
		case o.Wait == hold.WaitNone && answered < Quorum(n):
			return time.Time{}, fmt.Errorf("only %d of %d servers answered, no majority: %w", answered, n, err)
		case o.Wait == hold.WaitNone:
			return time.Time{}, hold.ErrWouldBlock
		}
		if o.Progress != nil {
			p := t.progress(ctx, answered)
			if first || p.Holder != last.Holder || p.Answering != last.Answering {
				o.Progress(p)
				last = p
			}
		}
		if err := sleepCtx(ctx, retryDelay()); err != nil {
			if errors.Is(context.Cause(ctx), hold.ErrTimeout) {
				return time.Time{}, fmt.Errorf("%w (%s)", hold.ErrTimeout, o.Timeout)
			}
			return time.Time{}, err
		}
	}
}

// attempt is one round of SET NX PX on every server at once. got: a
// majority (all of one server) was set within the validity; otherwise
// every key set is deleted again. answered counts the servers that
// replied; err joins the others' errors.
func (t *redisTaker) attempt(ctx context.Context) (start time.Time, got bool, answered int, err error) {
	n := t.c.Len()
	start = time.Now()
	reqCtx, cancel := context.WithTimeout(ctx, redisRequestTimeout(t.ttl))
	set, answered, err := t.onEvery(func(i int) (bool, error) {
		return t.c.SetIfAbsent(reqCtx, i, t.key, t.token, t.ttl)
	})
	cancel()
	validity := t.ttl - time.Since(start) - redlockDrift(t.ttl)
	got = set >= Quorum(n) && validity > hold.LossMargin(t.ttl)
	if !got && set+(n-answered) > 0 { // a key set, or a reply lost: delete ours again
		t.deleteEverywhere()
	}
	return start, got, answered, err
}

// onEvery runs op on every server at once; yes counts the true results,
// answered the servers that replied; err joins the others' errors.
func (t *redisTaker) onEvery(op func(i int) (bool, error)) (yes, answered int, err error) {
	n := t.c.Len()
	oks := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			oks[i], errs[i] = op(i)
		}()
	}
	wg.Wait()
	var failed errorList
	for i := range n {
		if errs[i] != nil {
			failed = append(failed, errs[i])
			continue
		}
		answered++
		if oks[i] {
			yes++
		}
	}
	if failed == nil {
		return yes, answered, nil
	}
	return yes, answered, failed
}

// errorList is the errors of several servers as one line.
type errorList []error

func (l errorList) Error() string {
	s := make([]string, len(l))
	for i, err := range l {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (l errorList) Unwrap() []error { return l }

// deleteEverywhere deletes the key where it still holds our token (a
// failed attempt's, or a lost lock's); it counts the keys deleted.
func (t *redisTaker) deleteEverywhere() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), redisRequestTimeout(t.ttl))
	defer cancel()
	deleted, _, err := t.onEvery(func(i int) (bool, error) {
		return t.c.DeleteIfHolds(ctx, i, t.key, t.token)
	})
	return deleted, err
}

// progress reads who holds the key on the first server that has it.
func (t *redisTaker) progress(ctx context.Context, answered int) Progress {
	p := Progress{Key: t.key, Answering: answered, Servers: t.c.Len()}
	reqCtx, cancel := context.WithTimeout(ctx, redisRequestTimeout(t.ttl))
	defer cancel()
	for i := range t.c.Len() {
		if k, err := t.c.ReadKey(reqCtx, i, t.key); err == nil && k.Type != "none" {
			p.Holder, p.TTL = string(k.Value), k.TTL
			if k.Type != "string" {
				p.Holder = "(a " + k.Type + ", not a SET NX lock)"
			}
			break
		}
	}
	return p
}

// redisRequestTimeout bounds one request to the servers: small against the
// TTL, as the Redlock algorithm asks, so that a master that does not answer
// costs little of the validity.
func redisRequestTimeout(ttl time.Duration) time.Duration {
	return min(max(ttl/10, 50*time.Millisecond), 2*time.Second)
}

// retryDelay is the pause between two attempts: 50 to 150 ms, random, so
// that contenders do not keep colliding.
func retryDelay() time.Duration {
	n, err := rand.Int(rand.Reader, big.NewInt(100))
	if err != nil {
		return 100 * time.Millisecond
	}
	return 50*time.Millisecond + time.Duration(n.Int64())*time.Millisecond
}

// sleepCtx waits d or until ctx ends (its error then).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
