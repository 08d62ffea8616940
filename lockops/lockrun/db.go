package lockrun

// `zkscope lock KEY [-- CMD]` on a database server: the same run as on
// ZooKeeper (run.go), with a lock held on a connection of its own; CMD is
// stopped when that connection breaks (the server has released the lock).

import (
	"context"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops/dblock"
	"github.com/zkscope/zkscope/lockops/hold"
)

var _ heldLock = (*dblock.Held)(nil)

// RunDB is [Run] on a database server: lc.Path is the key, o says how to
// take it. CMD gets --kill-signal when the connection holding the lock
// breaks, and from the watchdog KillGrace before the deadline (the
// connection's last answer + [dblock.DeadlineAfter]) should zkscope itself
// stop answering. The exit statuses are [Run]'s.
func RunDB(ctx context.Context, c *dbview.Client, lc LockCommand, o dblock.TakeOptions) (int, error) {
	lc, say := lc.prepare()
	if len(lc.Args) > 0 {
		lc.KillGrace = fitKillGrace(lc.KillGrace, dblock.DeadlineAfter, "the deadline after the connection's last answer of", say)
	}
	if o.Wait != hold.WaitNone {
		say("taking %s on %s (waiting while another session holds it)", lc.Path, c.Server())
	}
	hl, code, err := takeInterruptible(ctx, lc, say, "nothing of ours stays queued on the server", func(ctx context.Context) (heldLock, error) {
		h, err := dblock.Take(ctx, c, lc.Path, o)
		if err != nil {
			return nil, err
		}
		return h, nil
	})
	if err != nil {
		return code, err
	}
	h := hl.(*dblock.Held)
	if len(lc.Args) == 0 {
		say("holding %s; Ctrl-C releases", h)
		return holdUntilSignal(ctx, h, lc, say)
	}
	say("holding %s", h)
	return runUnderLock(ctx, h, lc, say)
}
