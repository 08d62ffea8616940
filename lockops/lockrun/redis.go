package lockrun

// `zkscope lock KEY [-- CMD]` on Redis servers: the same run as on
// ZooKeeper (run.go: wait, hold until a signal or run CMD under the
// watchdog, release, exit 75 when lost), with a Redis lock.

import (
	"context"
	"fmt"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/redisview"
)

// RunRedis is [Run] on Redis servers: lc.Path is the
// key, o says how to take it (lc.Take is not used; its Revocable neither:
// Redis locks have no revocation). CMD gets --kill-signal KillGrace before
// the lock's deadline (the last extension a majority accepted plus the
// TTL, less drift and margin) and SIGKILL at it, from the watchdog; a
// --kill-grace longer than half the TTL is shortened. The exit statuses
// are [Run]'s: [ExitLost] (75) when the lock was lost while
// held, [ExitNotAcquired] when it was never taken, [lockops.ExitRefused] when
// refused.
func RunRedis(ctx context.Context, c *redisview.Client, lc LockCommand, o redislock.TakeOptions) (int, error) {
	lc, say := lc.prepare()
	if o.TTL <= 0 {
		o.TTL = redislock.DefaultTTL
	}
	if len(lc.Args) > 0 {
		lc.KillGrace = fitKillGrace(lc.KillGrace, o.TTL, "the TTL", say)
	}
	userProgress := o.Progress
	o.Progress = func(p redislock.Progress) {
		say("%s", waitingLine(p))
		if userProgress != nil {
			userProgress(p)
		}
	}
	hl, code, err := takeInterruptible(ctx, lc, say, "no key of ours was left behind", func(ctx context.Context) (heldLock, error) {
		h, err := redislock.Take(ctx, c, lc.Path, o)
		if err != nil {
			return nil, err
		}
		return h, nil
	})
	if err != nil {
		return code, err
	}
	h := hl.(*redislock.Held)
	if len(lc.Args) == 0 {
		say("holding %s (%s, token %q, TTL %s); Ctrl-C releases", h.Key, h.Recipe, h.Token, h.TTL)
		return holdUntilSignal(ctx, h, lc, say)
	}
	say("holding %s (%s, token %q, TTL %s)", h.Key, h.Recipe, h.Token, h.TTL)
	return runUnderLock(ctx, h, lc, say)
}

// waitingLine is what `zkscope lock` prints while it waits on Redis.
func waitingLine(p redislock.Progress) string {
	s := fmt.Sprintf("waiting for %s", p.Key)
	switch {
	case p.Holder != "" && p.TTL == lockops.NoExpiry:
		s += fmt.Sprintf(": held by %q, with no expiry (only its holder or `zkscope evict` frees it)", p.Holder)
	case p.Holder != "":
		s += fmt.Sprintf(": held by %q, expires in %s unless extended", p.Holder, lockops.FormatAge(p.TTL))
	}
	if p.Answering < p.Servers {
		s += fmt.Sprintf(" (%d of %d servers answering)", p.Answering, p.Servers)
	}
	return s
}
