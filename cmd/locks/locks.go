// Package locks is `zkscope locks` (every lock's holders and wait queue
// at or below a path, once or as they change) and `zkscope doctor` (the
// problems, as an exit status), on ZooKeeper or Redis servers as the
// target says. Wiring only: reading, verifying and following the locks
// is lockops/follow's, the tables and JSON lockops/report's.
package locks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// scanFlags are the flags locks and doctor share.
type scanFlags struct {
	maxLeases int
	depth     int
	heldLimit time.Duration
	// hungAfter (doctor): sample the members' connections twice this far
	// apart; a holder that answered only pings between them is
	// session-hung (0: off).
	hungAfter time.Duration
	noVerify  bool
}

// check refuses values that mean nothing.
func (f *scanFlags) check() error {
	switch {
	case f.maxLeases < 0:
		return fmt.Errorf("--max-leases %d: must be 1 or more (0: inferred)", f.maxLeases)
	case f.depth < 0:
		return fmt.Errorf("--depth %d: must be 0 (all levels) or more", f.depth)
	case f.heldLimit < 0:
		return fmt.Errorf("--held-longer-than %s: must be 0 (never) or more", f.heldLimit)
	case f.hungAfter < 0 || f.hungAfter > 10*time.Minute:
		return fmt.Errorf("--hung-after %s: must be between 0 (off) and 10m", f.hungAfter)
	case f.hungAfter > 0 && f.noVerify:
		return fmt.Errorf("--hung-after asks the servers twice: it does not go with --no-verify")
	}
	return nil
}

func (f *scanFlags) register(cmd *cobra.Command, heldDefault time.Duration) {
	fl := cmd.Flags()
	fl.IntVar(&f.maxLeases, "max-leases", 0, "a semaphore's lease count (Curator does not store it; default: inferred)")
	fl.IntVar(&f.depth, "depth", 0, "levels below PATH to search for locks (0: all)")
	fl.DurationVar(&f.heldLimit, "held-longer-than", heldDefault, "flag holders whose node is older than this, or (locks --watch) seen holding longer (0: never)")
	fl.BoolVar(&f.noVerify, "no-verify", false, "do not ask the servers who is connected and watching (faster; client and watch_observed unknown)")
}

// options are what follow reads the locks with; prog, when not nil,
// shows how far a scan got.
func (f *scanFlags) options(prog *cmdutil.ProgressLine) follow.Options {
	o := follow.Options{MaxLeases: f.maxLeases, Depth: f.depth, HeldLongerThan: f.heldLimit, NoVerify: f.noVerify, HungAfter: f.hungAfter}
	if prog != nil {
		o.Progress = prog
	}
	return o
}

// connect opens a client on the target's ZooKeeper servers, the bulk-read
// session asked for at once.
func connect(ctx context.Context, f *cmdutil.Factory) (*zkview.Client, error) {
	return f.ConnectWith(ctx, func(cfg *zkview.Config) { cfg.BulkSoon = true })
}

// footnote is the table's note on unknown clients and watches: only when
// some participant shows them.
func footnote(queues []lockops.Queue, v diagnose.Verification) string {
	for _, q := range queues {
		if len(q.Participants) > 0 {
			return v.Note
		}
	}
	return ""
}

const locksLong = `Decode the lock at PATH, or every lock below PATH (default /), exactly as its
client library sees it (Curator, kazoo, go-zookeeper, ZooKeeper's recipes):
who holds it, who waits in what order, which node each waiter watches, and
whether the servers confirm that watch (✓ yes; ✗ no: missing from two samples
a second apart, both begun after the wait was read; ? unknown: not yet judged,
or the servers' four-letter words srvr/cons/wchp are not whitelisted, see
4lw.commands.whitelist). AGE is the node's age, not how long a holder has
held (one read cannot know that); --watch adds HELD, from when it saw each
holder begin.

--json prints the machine-readable report (schema 1), --watch redraws as the
queues change until Ctrl-C (on ZooKeeper 3.6+ following one persistent
recursive watch: the path is scanned again every ten --interval; each
judges again the locks held past --held-longer-than). --watch --json --changes prints the whole
report once, then one line per change holding only the locks that changed
("changes": true) and "gone", the paths of those that went away. On a
database server (docs/databases.md) --watch reads the locks again every
--interval (one SQL statement each), and --record records what each read
changed (who arrived waiting, was granted, went) for history --recording.`

const locksExample = `  zkscope locks /app/locks
  zkscope locks /app/locks/orders --json | jq '.locks[].participants[] | select(.state=="waiting")'
  zkscope locks /app --watch
  zkscope locks /app --watch --json --changes | jq -c '.locks[].path'
  zkscope locks /app/locks --watch --record locks.jsonl   # then: zkscope history /app/locks --recording locks.jsonl
  zkscope locks /app/semaphores/batch --max-leases 3
  zkscope -s postgres://app@db1/orders locks          # PostgreSQL advisory locks (docs/databases.md)
  zkscope -s postgres://app@db1/orders locks 42 --json
  zkscope -s postgres://app@db1/orders locks --watch --json --changes
  zkscope -s postgres://app@db1/orders locks 42 --watch --record pg.jsonl   # then: zkscope history --recording pg.jsonl
  zkscope -s mysql://app@db1:3306/ locks --json       # MySQL/MariaDB GET_LOCK (docs/databases-mysql.md)`

// locksOptions are `zkscope locks`'.
type locksOptions struct {
	Path        string
	Scan        scanFlags
	JSON, Watch bool
	Changes     bool // --changes (watch.go)
	Interval    time.Duration
	IntervalSet bool   // --interval was given
	Record      string // --record FILE (watch.go)
	Out, ErrOut io.Writer
}

// NewCmdLocks is `zkscope locks`.
func NewCmdLocks(f *cmdutil.Factory) *cobra.Command {
	var o locksOptions
	var db dbFlags
	cmd := &cobra.Command{
		Use:               "locks [PATH]",
		Short:             "Print every lock's holders and wait queue at or below PATH",
		Long:              locksLong,
		Example:           locksExample,
		Args:              cobra.MatchAll(cobra.MaximumNArgs(1), f.LockPathArgs),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Out, o.ErrOut, o.IntervalSet = cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.Flags().Changed("interval")
			if _, isDB, err := f.DB(); isDB {
				if err != nil {
					return err
				}
				if o.Watch {
					return runDBWatch(cmd, f, args, o, db.o)
				}
				if o.Changes {
					return cmdutil.Usagef("--changes prints the changes --watch --json sees: add --watch --json")
				}
				if o.Record != "" {
					return cmdutil.Usagef("--record records the changes --watch sees: add --watch")
				}
				return runDBLocks(cmd, f, args, o.JSON, db.o)
			}
			if err := db.refuseForZooKeeper(cmd); err != nil {
				return err
			}
			r, isRedis, err := f.Redis()
			switch {
			case isRedis && err != nil:
				return err
			case isRedis:
				return runRedisLocks(cmd, f, r, args, o.JSON)
			}
			o.Path = cmdutil.PathArg(args)
			return runLocks(cmd.Context(), f, o)
		},
	}
	o.Scan.register(cmd, time.Hour)
	db.register(cmd)
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the JSON report (schema 1)")
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "redraw whenever a queue changes (and every --interval), until Ctrl-C")
	cmd.Flags().DurationVar(&o.Interval, "interval", 2*time.Second, "with --watch: redraw at least this often and rescan (following events: every tenth) (held/waiting times tick; at least 1s)")
	cmd.Flags().BoolVar(&o.Changes, "changes", false, "with --watch --json: after the first report, print only the locks that changed (and \"gone\": those that went away)")
	cmd.Flags().StringVar(&o.Record, "record", "", "with --watch: record every change seen to FILE (a new file), for zkscope history --recording FILE")
	return cmd
}

// check refuses flags that mean nothing together, before connecting;
// an --interval below the floor is raised to it, and said so.
func (o *locksOptions) check() error {
	if err := o.Scan.check(); err != nil {
		return cmdutil.Usage(err)
	}
	if o.Changes && (!o.Watch || !o.JSON) {
		return cmdutil.Usagef("--changes prints the changes --watch --json sees: add --watch --json")
	}
	if o.Record != "" && !o.Watch {
		return cmdutil.Usagef("--record records the changes --watch sees: add --watch")
	}
	if o.IntervalSet && !o.Watch {
		fmt.Fprintln(o.ErrOut, "zkscope: --interval is how often --watch rescans: add --watch, or leave --interval out (locks reads once)")
		return cmdutil.ExitError{Code: lockops.ExitRefused}
	}
	if o.Watch && o.Interval <= 0 {
		return cmdutil.Usagef("--interval %s: must be positive", o.Interval)
	}
	if err := newRecordFile(o.Record); err != nil {
		return err // watch.go
	}
	if o.Watch && o.Interval < follow.MinInterval {
		fmt.Fprintf(o.ErrOut, "zkscope: --interval %s raised to %s (every interval is a full scan; changes are drawn as they happen)\n", o.Interval, follow.MinInterval)
		o.Interval = follow.MinInterval
	}
	return nil
}

// runLocks prints the locks at or below o.Path, once or (--watch) as
// they change.
func runLocks(ctx context.Context, f *cmdutil.Factory, o locksOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !o.Watch {
		f.TuneOneShot(o.Out) // before connecting: see cmdutil.TuneForBigRead
	}
	c, err := connect(ctx, f)
	if err != nil {
		return err
	}
	defer c.Close()
	r := renderer{servers: c.Servers(), json: o.JSON, tty: cmdutil.WriterIsTerminal(o.Out), held: o.Watch}
	if o.Watch {
		return watchLocks(ctx, c, o, r)
	}
	prog := cmdutil.NewProgressLine(o.ErrOut, !o.JSON, true)
	opts := o.Scan.options(prog)
	readied := false
	opts.Reading = func(_ string, n int) { // a lock of thousands: see cmdutil.ReadyHeapForChildren
		if !readied {
			readied = true
			f.ReadyHeapFor(n)
		}
	}
	s, err := follow.Read(ctx, c, o.Path, opts)
	if err != nil && !errors.Is(err, scan.ErrTruncated) {
		return err
	}
	if rerr := r.render(o.Out, s); rerr != nil {
		return rerr
	}
	return err
}

// renderer draws a snapshot as locks prints it: the table (on a terminal
// with short names) and the unreadable subtrees, or the JSON report.
type renderer struct {
	servers         []string
	json, tty, held bool
}

func (r renderer) render(out io.Writer, s follow.Snapshot) error {
	if r.json {
		return report.WriteJSONReport(printable.JSON(out), r.servers, s.Queues, &s.Verification, s.Unreadable)
	}
	err := report.WriteTableWith(out, s.Queues, time.Now(), report.TableOptions{FullNames: !r.tty, Footnote: footnote(s.Queues, s.Verification), Held: r.held})
	for _, u := range s.Unreadable {
		fmt.Fprintf(out, "unreadable %s: %s\n", printable.String(u.Node), printable.String(u.Detail))
	}
	return err
}
