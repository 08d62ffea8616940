// Package lock is `zkscope lock` (take a lock by hand, or run a command
// while holding it), `zkscope evict` (force-delete a lock node) and
// `zkscope revoke` (ask a holder to let go), on ZooKeeper or Redis
// servers as the target says. Wiring only: taking, holding, evicting and
// revoking are lockops/take, lockrun, evict and redislock's.
package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/lockrun"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

const lockLong = `Take the lock at PATH in a real library's znode format (Curator, kazoo or
go-zookeeper) and wait in its queue exactly as that library would.

zkscope never guesses the library. The contenders already in PATH decide;
with none, the locks next to PATH (its siblings' contenders) decide when they
all use one library; else the context's default_recipe; else zkscope refuses
(exit 2) and asks for --recipe. A --recipe or --mode that contradicts the
contenders already there is refused (exit 2) unless --force-recipe is given:
a node in another library's format does not exclude them.

--recipe ephemeral takes a plain ephemeral lock: PATH itself is created as an
ephemeral node; while another session holds it, zkscope watches it with
exists and tries again once it is deleted, as hand-written locks do. An
ephemeral node already at PATH means that recipe (another --recipe is
refused); a persistent PATH is refused.

Without CMD, zkscope holds the lock until Ctrl-C (or SIGTERM) and then
releases it. With CMD, it runs CMD once the lock is held (stdin, stdout and
stderr passed through, in its own process group), releases the lock when CMD
exits and exits with CMD's status.

CMD has stopped before the servers could expire the session: zkscope tracks
the last moment the servers answered it, and without an answer CMD gets
--kill-signal at (last answer + session timeout - margin - --kill-grace) and
SIGKILL at (last answer + session timeout - margin), from a watchdog process
that acts even if zkscope itself is frozen. A --kill-grace longer than half
the session timeout (less the margin) is shortened, and zkscope says so. A
failover to another member within that time does not stop CMD.

CMD's environment tells it the lock it runs under, to fence its writes:
ZKSCOPE_LOCK_PATH, ZKSCOPE_LOCK_NODE, ZKSCOPE_LOCK_SESSION (0x...) and
ZKSCOPE_LOCK_FENCE (our node's creation zxid: a later holder of any lock in
the ensemble gets a larger one).

If the lock is LOST while held (session expired, no answer until the
deadline, or the node force-deleted), CMD is stopped the same way and zkscope
exits 75. When the lock cannot be taken (--timeout expired, --no-wait and
busy) it exits 1 and leaves no node; when it refuses to (unclear library,
contradicting contenders) it exits 2 and creates nothing.

On Redis servers (--server redis://…, several for a Redlock) PATH is a key:
zkscope sets it with SET NX PX and a random token, extends it at a third of
--ttl while held and treats a failed extension as LOST (see README, "Redis
locks", for what Redis locks cannot promise).

On a PostgreSQL server (--server postgres://…) PATH is an advisory lock's key
(42, or 1/2 for two int4): zkscope holds pg_advisory_lock (--mode shared:
the shared one) on a connection of its own; if that connection breaks, the
lock is LOST and CMD stopped (docs/databases.md).

On a MySQL or MariaDB server (--server mysql://…) PATH is a GET_LOCK name:
zkscope holds GET_LOCK(PATH) on a connection of its own and asks it
IS_USED_LOCK(PATH) every 2s; a broken connection or another answer is LOST
(docs/databases-mysql.md). GET_LOCK is exclusive only.`

const lockExample = `  zkscope lock /app/locks/deploy -- ./deploy.sh
  zkscope lock /app/locks/orders --mode write --timeout 30s -- ./migrate.sh
  zkscope lock /app/locks/batch --no-wait --note "manual run by $USER"
  zkscope lock /app/locks/new-job --recipe kazoo -- ./job.sh   # a lock nobody has taken yet
  zkscope lock /app/maintenance --recipe ephemeral -- ./upgrade.sh   # a hand-written create-or-watch lock
  zkscope -s postgres://app@db1/orders lock 42 -- ./migrate.sh      # pg_advisory_lock(42) on a connection of its own
  zkscope -s mysql://app@db1:3306/ lock nightly-report -- ./report.sh   # GET_LOCK('nightly-report') likewise`

// lockOptions are `zkscope lock`'s.
type lockOptions struct {
	Path    string
	Command []string // CMD ARGS after --

	Recipe, Mode, Note, KillSignal string
	Timeout, KillGrace             time.Duration
	NoWait, Revocable, ForceRecipe bool
	TTL                            time.Duration // Redis only

	flags *pflag.FlagSet // which were given
}

// NewCmdLock is `zkscope lock`.
func NewCmdLock(f *cmdutil.Factory) *cobra.Command {
	var o lockOptions
	cmd := &cobra.Command{
		Use:               "lock PATH [-- CMD ARGS...]",
		Short:             "Take a lock by hand, or run a command while holding it",
		Long:              lockLong,
		Example:           lockExample,
		Args:              cobra.MatchAll(cobra.MinimumNArgs(1), f.LockPathArgs),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer cmdutil.ReportAuditErrors()
			o.Path, o.Command, o.flags = args[0], args[1:], cmd.Flags()
			if err := o.check(cmd.ArgsLenAtDash(), args); err != nil {
				return err
			}
			if d, isDB, err := f.DB(); isDB {
				if err != nil {
					return err
				}
				return runDBLock(f, d, o)
			}
			r, isRedis, err := f.Redis()
			switch {
			case isRedis && err != nil:
				return err
			case isRedis:
				return runRedisLock(r, o)
			case o.flags.Changed("ttl"):
				return onlyRedisFlag("ttl")
			}
			return runLock(f, o)
		},
	}
	bindLockFlags(cmd, &o)
	return cmd
}

// bindLockFlags binds lock's flags into o and completes their values.
func bindLockFlags(cmd *cobra.Command, o *lockOptions) {
	f := cmd.Flags()
	f.StringVar(&o.Recipe, "recipe", "", "lock library format: curator, kazoo, go-zk or ephemeral (a plain ephemeral node at PATH; default: the contenders there, else the locks next to it, else the context's default_recipe)")
	f.BoolVar(&o.ForceRecipe, "force-recipe", false, "take in --recipe/--mode even when the contenders already there use another library or lock type (breaks exclusion with them)")
	f.StringVar(&o.Mode, "mode", "exclusive", "exclusive, read or write (read/write locks: Curator InterProcessReadWriteLock, kazoo ReadLock/WriteLock)")
	f.DurationVar(&o.Timeout, "timeout", 0, "give up waiting after this long (0: wait forever)")
	f.BoolVar(&o.NoWait, "no-wait", false, "fail at once when someone else holds the lock")
	f.StringVar(&o.Note, "note", "", "text stored in the lock node with user@host, shown to other operators")
	f.StringVar(&o.KillSignal, "kill-signal", "TERM", "signal sent to CMD's process group when the lock is lost")
	f.DurationVar(&o.KillGrace, "kill-grace", 0, "time CMD gets after --kill-signal before SIGKILL (default: a fifth of the session timeout, at most 10s; at most half the session timeout)")
	f.BoolVar(&o.Revocable, "revocable", false, "honour Curator revocation requests (`zkscope revoke`): stop CMD and release")
	f.DurationVar(&o.TTL, "ttl", redislock.DefaultTTL, "Redis only: the key's expiry, extended at a third of it while held")
	cmd.RegisterFlagCompletionFunc("recipe", cmdutil.Fixed(lockops.RecipeNames()...))
	cmd.RegisterFlagCompletionFunc("mode", cmdutil.Fixed(lockops.ModeNames()...))
	cmd.RegisterFlagCompletionFunc("kill-signal", cmdutil.Fixed(lockrun.KillSignalNames()...))
}

// check refuses, before anything is resolved, durations and a command
// line that mean nothing.
func (o *lockOptions) check(dash int, args []string) error {
	if o.Timeout < 0 {
		return cmdutil.Usagef("--timeout %s: must be positive (0: wait forever)", o.Timeout)
	}
	if o.KillGrace < 0 {
		return cmdutil.Usagef("--kill-grace %s: must be positive", o.KillGrace)
	}
	if dash >= 0 && dash != 1 {
		return cmdutil.Usagef("usage: zkscope lock PATH [-- CMD ARGS...] (one PATH before --)")
	} else if dash < 0 && len(args) > 1 {
		return cmdutil.Usagef("put the command after --: zkscope lock %s -- %s", o.Path, args[1])
	}
	return nil
}

// wait is the wait policy --no-wait and --timeout ask for.
func (o *lockOptions) wait() (hold.WaitPolicy, time.Duration, error) {
	switch {
	case o.NoWait && o.flags.Changed("timeout"):
		return 0, 0, cmdutil.Usagef("--no-wait and --timeout exclude each other")
	case o.NoWait:
		return hold.WaitNone, 0, nil
	case o.Timeout > 0:
		return hold.WaitTimeout, o.Timeout, nil
	}
	return 0, 0, nil
}

// takeOptions are the take.Options the flags ask for, refused when they
// contradict each other.
func (o *lockOptions) takeOptions() (take.Options, error) {
	var lib *lockops.Library
	if o.Recipe != "" && o.Recipe != "auto" {
		l, err := lockops.ParseLibrary(o.Recipe)
		if err != nil {
			return take.Options{}, cmdutil.Usage(err)
		}
		lib = l
	}
	m, err := lockops.ParseMode(o.Mode)
	if err != nil {
		return take.Options{}, cmdutil.Usage(err)
	}
	if _, err := lockrun.ParseSignal(o.KillSignal); err != nil {
		return take.Options{}, cmdutil.Usage(err)
	}
	switch {
	case lib.Takes() && !lib.TakesMode(m):
		return take.Options{}, cmdutil.Usagef("%s locks are exclusive only (asked for --mode %s): pass --mode exclusive", lib, m)
	case o.ForceRecipe && lib == nil:
		return take.Options{}, cmdutil.Usagef("--force-recipe needs --recipe (the library to take the lock in)")
	case o.Revocable && lib != nil && lib != lockops.Curator:
		return take.Options{}, cmdutil.Usagef("--revocable honours Curator's revocation requests: it does not go with --recipe %s", lib.Name)
	}
	opts := take.Options{Library: lib, Mode: m, ForceRecipe: o.ForceRecipe, Note: o.Note}
	opts.Wait, opts.Timeout, err = o.wait()
	return opts, err
}

// runLock takes the ZooKeeper lock at o.Path and holds it (until a signal,
// or while CMD runs).
func runLock(f *cmdutil.Factory, o lockOptions) error {
	opts, err := o.takeOptions()
	if err != nil {
		return err
	}
	sig, _ := lockrun.ParseSignal(o.KillSignal) // checked by takeOptions
	lc, stop := lockCommand(o, sig)
	defer stop()
	lc.Take, lc.Revocable = opts, o.Revocable
	ctx := context.Background()
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	code, err := lockrun.Run(ctx, c, lc)
	return lockExit(code, err)
}

// lockCommand is CMD as o gives it, run on this process's terminal with
// the signals zkscope receives passed on (stop ends that). ZooKeeper,
// Redis and database locks run it the same way.
func lockCommand(o lockOptions, sig syscall.Signal) (lc lockrun.LockCommand, stop func()) {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	return lockrun.LockCommand{
		Path: o.Path, Args: o.Command, KillSignal: sig, KillGrace: o.KillGrace,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Messages: os.Stderr, Signals: signals,
	}, func() { signal.Stop(signals) }
}

// lockExit is the error lock returns after holding: a refusal as it is
// (one line, exit 2); else a failure said on stderr, and CMD's (or the
// lock's) exit status.
func lockExit(code int, err error) error {
	if errors.Is(err, zkview.ErrReadOnly) {
		return err // refused: one line, exit 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "zkscope:", printable.String(err.Error()))
	}
	if code != 0 {
		return cmdutil.ExitError{Code: code}
	}
	return nil
}
