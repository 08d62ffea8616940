package main

// Redis servers (--server redis://… or rediss://…, several for the masters
// of a Redlock): locks and doctor read and decode Redis locks. Wiring only:
// reading is redisview's, decoding and diagnostics lockops'.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/redisview"
)

// redisTarget is what a command against Redis servers needs.
type redisTarget = config.Redis

// redisServer is the --server value (else ZKSCOPE_SERVER, else the
// context's servers) when it names Redis servers, with the credentials;
// ok false when the servers are ZooKeeper's.
func redisServer(getenv func(string) string) (cfg redisview.Config, ok bool, err error) {
	t, ok, err := resolveRedis(getenv)
	return t.Config, ok, err
}

// resolveRedis is [redisServer] with the context's name and read-only
// setting.
func resolveRedis(getenv func(string) string) (t redisTarget, ok bool, err error) {
	conn.ConnectTimeout = connectTimeout
	t, ok, err = config.ResolveRedis(conn, getenv)
	return t, ok, usage(err)
}

// go-redis writes its own log lines (reconnects, pool errors) on stderr,
// over the TUI and scripts' output: silenced; every error still reaches
// zkscope through the return values.
func init() { redis.SetLogger(&logging.VoidLogger{}) }

// readRedisLocks reads and decodes the locks matching pattern
// ([redislock.Locks], as the terminal UI does). A single
// server that fails is an error; of a Redlock's masters, only all failing
// is (the others' reads are decoded, the failing ones named as problems).
func readRedisLocks(ctx context.Context, cfg redisview.Config, pattern string) ([]lockops.Queue, []string, error) {
	c, err := redisview.Open(cfg)
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

// redisOneShot: locks and doctor on Redis tune the process as one-shot
// reads (tuneForBigRead); tests that call them in-process turn it off.
var redisOneShot = true

// runRedisLocks is `zkscope locks PATTERN` on Redis servers (default
// pattern *); handled is false when the servers are ZooKeeper's.
func runRedisLocks(cmd *cobra.Command, args []string, asJSON bool) (handled bool, err error) {
	cfg, ok, err := redisServer(os.Getenv)
	if !ok || err != nil {
		return ok, err
	}
	if err := zooKeeperFlags(cmd); err != nil {
		return true, err
	}
	if redisOneShot {
		tuneForBigRead(cmd.OutOrStdout()) // one-shot: see tuneForBigRead
	}
	queues, servers, err := readRedisLocks(cmd.Context(), cfg, redisPattern(args))
	if err != nil {
		return true, err
	}
	out := cmd.OutOrStdout()
	if asJSON {
		return true, report.WriteJSON(printable.JSON(out), servers, queues)
	}
	return true, report.WriteTableWith(out, queues, time.Now(), report.TableOptions{FullNames: true})
}

// runRedisDoctor is `zkscope doctor PATTERN` on Redis servers: the
// problems, and exitProblems when any is not info.
func runRedisDoctor(cmd *cobra.Command, args []string) (handled bool, err error) {
	cfg, ok, err := redisServer(os.Getenv)
	if !ok || err != nil {
		return ok, err
	}
	if err := zooKeeperFlags(cmd); err != nil {
		return true, err
	}
	if redisOneShot {
		tuneForBigRead(cmd.OutOrStdout())
	}
	queues, _, err := readRedisLocks(cmd.Context(), cfg, redisPattern(args))
	if err != nil {
		return true, err
	}
	out := cmd.OutOrStdout()
	n := 0
	for _, q := range queues {
		for _, pr := range q.Problems {
			if pr.Severity() == lockops.SeverityInfo {
				continue
			}
			n++
			fmt.Fprintf(out, "%s %s %s: %s\n", pr.Severity(), pr.Kind, printable.String(cmp.Or(pr.Node, q.Path)), printable.String(pr.Detail))
		}
	}
	if n == 0 {
		fmt.Fprintf(out, "no problems in %d locks\n", len(queues))
		return true, nil
	}
	return true, exitError{code: 1}
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
			return usagef("--%s works on ZooKeeper only, not on Redis servers: %s", name, next)
		}
	}
	return nil
}

// redisForZooKeeper is the error of a ZooKeeper command given Redis
// servers (nil when the servers are ZooKeeper's), instead of a parse error
// of the URL as a ZooKeeper server list.
func redisForZooKeeper() error {
	if _, isRedis, _ := redisServer(os.Getenv); !isRedis {
		return nil
	}
	return errors.New("this command reads ZooKeeper; against Redis servers (redis://…) zkscope runs locks, doctor, lock, evict, revoke and the terminal UI")
}

func redisPattern(args []string) string {
	if len(args) > 0 && args[0] != "" {
		return args[0]
	}
	return "*"
}

// lockPathArgs checks locks' and doctor's argument: a znode path, or
// against a redis:// server a key pattern ("lock:*").
func lockPathArgs(cmd *cobra.Command, args []string) error {
	if _, isRedis, _ := redisServer(os.Getenv); isRedis {
		return nil
	}
	return znodeArgs(1)(cmd, args)
}
