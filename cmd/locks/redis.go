package locks

// locks and doctor against Redis servers (the target's redis:// URLs,
// several for the masters of a Redlock): reading is redisview's, decoding
// and diagnostics lockops/redislock's.

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/redisview"
)

// readRedisLocks reads and decodes the locks matching pattern
// ([redislock.Locks], as the terminal UI does). A single server that
// fails is an error; of a Redlock's masters, only all failing is (the
// others' reads are decoded, the failing ones named as problems).
func readRedisLocks(ctx context.Context, cfg redisview.Config, pattern string) ([]lockops.Queue, []string, error) {
	c, err := cmdutil.OpenRedis(cfg)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	reads := c.ReadLocks(ctx, pattern)
	var errs []error
	for _, r := range reads {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	if len(errs) == len(reads) {
		return nil, nil, errors.Join(errs...)
	}
	return redislock.Locks(reads, time.Now()), c.Servers(), nil
}

// runRedisLocks is `zkscope locks PATTERN` on Redis servers (default
// pattern *).
func runRedisLocks(cmd *cobra.Command, f *cmdutil.Factory, r config.Redis, args []string, asJSON bool) error {
	if err := zooKeeperFlags(cmd); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	f.TuneOneShot(out) // one-shot: see cmdutil.TuneForBigRead
	queues, servers, err := readRedisLocks(cmd.Context(), r.Config, redisPattern(args))
	if err != nil {
		return err
	}
	if asJSON {
		return report.WriteJSON(printable.JSON(out), servers, queues)
	}
	return report.WriteTableWith(out, queues, time.Now(), report.TableOptions{FullNames: true})
}

// runRedisDoctor is `zkscope doctor PATTERN` on Redis servers: the
// problems, and exit status 1 when any is not info.
func runRedisDoctor(cmd *cobra.Command, f *cmdutil.Factory, r config.Redis, args []string) error {
	if err := zooKeeperFlags(cmd); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	f.TuneOneShot(out)
	queues, _, err := readRedisLocks(cmd.Context(), r.Config, redisPattern(args))
	if err != nil {
		return err
	}
	// A Redis lock's problem names its node (a Redlock member's key), else the lock.
	return printProblems(out, queues, func(q *lockops.Queue, pr *lockops.Problem) string { return cmp.Or(pr.Node, q.Path) })
}

// redisIgnores are the flags of locks and doctor that mean something on
// ZooKeeper only: given against Redis servers they are refused, not
// silently ignored.
var redisIgnores = []string{"watch", "interval", "record", "max-leases", "depth", "held-longer-than", "no-verify", "hung-after"}

// zooKeeperFlags refuses the first of redisIgnores cmd was given.
func zooKeeperFlags(cmd *cobra.Command) error {
	for _, name := range redisIgnores {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			next := "leave it out"
			if name == "watch" || name == "interval" || name == "record" {
				next = "to follow Redis locks, open the terminal UI (zkscope -s redis://…), which reads a lock again every second"
			}
			return cmdutil.Usagef("--%s works on ZooKeeper only, not on Redis servers: %s", name, next)
		}
	}
	return nil
}

// redisPattern is the key pattern of locks' and doctor's argument (*
// when none).
func redisPattern(args []string) string {
	if len(args) > 0 && args[0] != "" {
		return args[0]
	}
	return "*"
}
