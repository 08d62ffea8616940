package main

// The locks and doctor subcommands: wiring only; decoding, verification
// and diagnostics live in lockops.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// lockScanFlags are the flags locks and doctor share.
type lockScanFlags struct {
	maxLeases int
	depth     int
	heldLimit time.Duration
	noVerify  bool
}

func (f *lockScanFlags) register(cmd *cobra.Command, heldDefault time.Duration) {
	fl := cmd.Flags()
	fl.IntVar(&f.maxLeases, "max-leases", 0, "a semaphore's lease count (Curator does not store it; default: inferred)")
	fl.IntVar(&f.depth, "depth", 0, "levels below PATH to search for locks (0: all)")
	fl.DurationVar(&f.heldLimit, "held-longer-than", heldDefault, "flag holders older than this (0: never)")
	fl.BoolVar(&f.noVerify, "no-verify", false, "do not ask the servers who is connected and watching (faster; client and watch_observed unknown)")
}

// scanLocks reads, verifies and diagnoses every lock at or below p.
func scanLocks(ctx context.Context, c *zkview.Client, p string, f lockScanFlags) ([]lockops.Queue, error) {
	c.PrepareBulk() // the bulk-read session's handshake overlaps the first listing
	queues, err := lockops.Scan(ctx, c, p, lockops.ScanOptions{MaxLeases: f.maxLeases, Depth: f.depth})
	if err != nil && !errors.Is(err, lockops.ErrScanTruncated) {
		return nil, err
	}
	var e *zkview.Ensemble
	if !f.noVerify && len(queues) > 0 {
		e = lockops.Verify(ctx, c, queues)
	}
	lockops.Diagnose(queues, lockops.DiagnoseOptions{HeldLongerThan: f.heldLimit, Ensemble: e})
	return queues, err
}

func newLocksCmd() *cobra.Command {
	var (
		f               lockScanFlags
		asJSON, watchIt bool
		interval        time.Duration
	)
	cmd := &cobra.Command{
		Use:   "locks [PATH]",
		Short: "Print every lock's holders and wait queue at or below PATH",
		Long: `Decode the lock at PATH, or every lock below PATH (default /), exactly as its
client library sees it (Curator, kazoo, go-zookeeper, ZooKeeper's recipes):
who holds it, who waits in what order, which node each waiter watches, and
whether the servers confirm that watch (✓ yes, ✗ no, ? unknown: the servers'
four-letter words cons/wchp are needed, see 4lw.commands.whitelist).

--json prints the machine-readable report (schema 1), --watch redraws as the
queues change until Ctrl-C.`,
		Example: `  zkscope locks /app/locks
  zkscope locks /app/locks/orders --json | jq '.locks[].participants[] | select(.state=="waiting")'
  zkscope locks /app --watch
  zkscope locks /app/semaphores/batch --max-leases 3`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := "/"
			if len(args) == 1 {
				p = args[0]
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			out := cmd.OutOrStdout()
			if !watchIt {
				tuneForBigRead(out) // before connecting: see tuneForBigRead
			}
			c, err := connectWith(ctx, func(cfg *zkview.Config) { cfg.BulkSoon = true })
			if err != nil {
				return err
			}
			defer c.Close()
			render := func(queues []lockops.Queue) error {
				if asJSON {
					return lockops.WriteJSON(out, c.Servers(), queues)
				}
				return lockops.WriteTable(out, queues, time.Now())
			}
			if !watchIt {
				queues, err := scanLocks(ctx, c, p, f)
				if err != nil && !errors.Is(err, lockops.ErrScanTruncated) {
					return err
				}
				if rerr := render(queues); rerr != nil {
					return rerr
				}
				return err
			}
			return watchLocks(ctx, c, out, p, f, interval, render)
		},
	}
	f.register(cmd, time.Hour)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the JSON report (schema 1)")
	cmd.Flags().BoolVarP(&watchIt, "watch", "w", false, "redraw whenever a queue changes (and every --interval), until Ctrl-C")
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "with --watch: redraw at least this often (held/waiting times tick)")
	return cmd
}

// watchLocks redraws on every change of a lock directory's children (one
// children watch per lock found) and at least every interval.
func watchLocks(ctx context.Context, c *zkview.Client, out io.Writer, p string, f lockScanFlags, interval time.Duration, render func([]lockops.Queue) error) error {
	const maxWatched = 200
	// One children watch per directory at a time: a quiet lock is redrawn
	// every interval without piling up watches (go-zookeeper keeps every
	// channel of a path until its event fires).
	changed := make(chan struct{}, 1)
	var mu sync.Mutex
	armed := map[string]bool{}
	arm := func(dir string) {
		mu.Lock()
		if armed[dir] {
			mu.Unlock()
			return
		}
		armed[dir] = true
		mu.Unlock()
		_, _, ch, err := c.Conn().ChildrenW(c.Abs(dir))
		if err != nil {
			mu.Lock()
			delete(armed, dir)
			mu.Unlock()
			return
		}
		go func() {
			select {
			case <-ch:
			case <-ctx.Done():
				return
			}
			mu.Lock()
			delete(armed, dir)
			mu.Unlock()
			select {
			case changed <- struct{}{}:
			default:
			}
		}()
	}
	for {
		queues, err := scanLocks(ctx, c, p, f)
		if err != nil && !errors.Is(err, lockops.ErrScanTruncated) {
			if ctx.Err() != nil {
				return nil
			}
			fmt.Fprintf(out, "\x1b[H\x1b[2J%s  (retrying)\n", zkview.Explain(err))
		} else {
			fmt.Fprint(out, "\x1b[H\x1b[2J")
			fmt.Fprintf(out, "zkscope locks %s — %s — every change, Ctrl-C quits\n\n", p, time.Now().Format("15:04:05"))
			if err := render(queues); err != nil {
				return err
			}
		}
		for i, q := range queues {
			if i == maxWatched {
				break
			}
			for _, dir := range watchDirs(q) {
				arm(dir)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
			// Let a burst (a release and the next acquire) settle.
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				return nil
			}
		case <-time.After(interval):
		}
	}
}

// watchDirs are the directories whose children make up q.
func watchDirs(q lockops.Queue) []string {
	switch q.Kind {
	case lockops.KindCuratorSemaphoreV2:
		return []string{zkview.Join(q.Path, "leases"), zkview.Join(q.Path, "locks")}
	case lockops.KindKazooSemaphore:
		return []string{q.Path, q.Path + "-__lock__"}
	}
	return []string{q.Path}
}

func newDoctorCmd() *cobra.Command {
	var f lockScanFlags
	cmd := &cobra.Command{
		Use:   "doctor [PATH]",
		Short: "Report lock problems at or below PATH; exit 1 when any is found",
		Long: `Check every lock at or below PATH (default /) and print one line per problem:
persistent lock nodes, waiters whose watch no server reports (stuck), holders
older than --held-longer-than, several nodes of one session (orphans),
orphaned semaphore leases, read→write upgrade deadlocks, herds, sequence ties
and overflow, stray children that block a queue, mixed libraries.

Exit status: 0 no problem, 1 problems found, 2 the check itself failed
(unreachable server, no such path): fit for cron and alerting.`,
		Example: `  zkscope doctor /app
  zkscope doctor /app/locks --held-longer-than 15m || page-oncall`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := "/"
			if len(args) == 1 {
				p = args[0]
			}
			ctx := cmd.Context()
			tuneForBigRead(cmd.OutOrStdout())
			c, err := connectWith(ctx, func(cfg *zkview.Config) { cfg.BulkSoon = true })
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "zkscope doctor:", err)
				return exitError{2}
			}
			defer c.Close()
			queues, err := scanLocks(ctx, c, p, f)
			if err != nil && !errors.Is(err, lockops.ErrScanTruncated) {
				if errors.Is(err, zk.ErrNoNode) {
					err = fmt.Errorf("%s does not exist", p)
				}
				fmt.Fprintln(cmd.ErrOrStderr(), "zkscope doctor:", err)
				return exitError{2}
			}
			out := cmd.OutOrStdout()
			n := lockops.CountProblems(queues)
			for _, q := range queues {
				for _, pr := range q.Problems {
					if pr.Severity() == lockops.SeverityInfo {
						continue
					}
					where := q.Path
					if pr.Node != "" {
						where = pr.Node
					}
					fmt.Fprintf(out, "%s\t%s\t%s\n", pr.Kind, where, pr.Detail)
				}
			}
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "zkscope doctor: warning:", err)
			}
			if n > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "%d problem(s) in %d lock(s) at or below %s\n", n, len(queues), p)
				return exitError{1}
			}
			fmt.Fprintf(out, "no problems found in %d lock(s) at or below %s\n", len(queues), p)
			return nil
		},
	}
	f.register(cmd, time.Hour)
	return cmd
}
