package main

// The locks and doctor subcommands: wiring only; decoding, verification
// and diagnostics live in lockops.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/history"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// lockScanFlags are the flags locks and doctor share.
type lockScanFlags struct {
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
func (f *lockScanFlags) check() error {
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

func (f *lockScanFlags) register(cmd *cobra.Command, heldDefault time.Duration) {
	fl := cmd.Flags()
	fl.IntVar(&f.maxLeases, "max-leases", 0, "a semaphore's lease count (Curator does not store it; default: inferred)")
	fl.IntVar(&f.depth, "depth", 0, "levels below PATH to search for locks (0: all)")
	fl.DurationVar(&f.heldLimit, "held-longer-than", heldDefault, "flag holders whose node is older than this, or (locks --watch) seen holding longer (0: never)")
	fl.BoolVar(&f.noVerify, "no-verify", false, "do not ask the servers who is connected and watching (faster; client and watch_observed unknown)")
}

// scanLocks reads, verifies and diagnoses every lock at or below p. The
// verification says what the servers could not confirm (clients, watches)
// and why.
//
// Subtrees the session may not read, or that vanished meanwhile, are left
// out and come back as [lockops.ProblemUnreadable] problems.
//
// prog, when not nil, shows how far the scan got.
func scanLocks(ctx context.Context, c *zkview.Client, p string, f lockScanFlags, prog *progressLine) ([]lockops.Queue, diagnose.Verification, []lockops.Problem, error) {
	r, err := scanLocksEnsemble(ctx, c, p, f, prog)
	return r.queues, r.v, r.unreadable, err
}

// scanLocksEnsemble is [scanLocks] with what the servers said (r.ens; nil
// with --no-verify).
func scanLocksEnsemble(ctx context.Context, c *zkview.Client, p string, f lockScanFlags, prog *progressLine) (r scanReport, err error) {
	c.PrepareBulk() // the bulk-read session's handshake overlaps the first listing
	var first *zkview.Ensemble
	if f.hungAfter > 0 {
		first = c.Introspect(ctx) // the first of the two samples
	}
	var unreadable []lockops.Problem
	skipped := func(p string, err error) { unreadable = append(unreadable, scan.Unreadable(p, err)) }
	o := scan.Options{MaxLeases: f.maxLeases, Depth: f.depth, Skipped: skipped}
	if prog != nil {
		o.Progress = prog.update
	}
	queues, err := scan.Scan(ctx, c, p, o)
	prog.done()
	if err != nil && !errors.Is(err, scan.ErrTruncated) {
		return r, scanError(p, err)
	}
	sort.Slice(unreadable, func(i, j int) bool { return unreadable[i].Node < unreadable[j].Node })
	var e *zkview.Ensemble
	if first != nil && !waitUntil(ctx, first.End.Add(f.hungAfter)) {
		return r, ctx.Err()
	}
	if !f.noVerify {
		e = c.Introspect(ctx)
	}
	// Plain ephemeral locks: p itself, and the ephemeral nodes the servers
	// list sessions watching.
	queues, ferr := scan.FindEphemeralLocks(ctx, c, p, e, queues)
	if ferr != nil {
		return r, scanError(p, ferr)
	}
	// A watch the servers do not list is missing only when a second
	// sample, taken a moment later, misses it too (ConfirmWatches asks
	// only when the first misses one it may judge).
	var prev, cur *zkview.Ensemble
	if e != nil {
		var cerr error
		if prev, cur, cerr = diagnose.ConfirmWatches(ctx, c, e, queues, f.maxLeases); cerr != nil {
			return r, cerr
		}
	}
	diagnose.ApplySamples(queues, prev, cur)
	o2 := diagnose.Options{HeldLongerThan: f.heldLimit, Ensemble: cur}
	if first != nil {
		o2.PingOnlySince, o2.HungAfter = diagnose.PingOnlySince(first, e), f.hungAfter
		o2.SilentSince = diagnose.SilentSince(first, e)
	}
	diagnose.Diagnose(queues, o2)
	v := diagnose.Verified(cur, c.Config().AdminPort)
	if len(queues) == 0 {
		v = diagnose.Verification{Asked: !f.noVerify, ClientsKnown: true, WatchesKnown: true}
	}
	return scanReport{queues: queues, v: v, unreadable: unreadable, ens: cur}, err
}

// waitUntil waits until t or ctx's end, reporting whether t came.
func waitUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}

// scanError turns a scan's failure into one line: a missing PATH says so
// plainly.
func scanError(p string, err error) error {
	if errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("%s does not exist", p)
	}
	return err
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

func newLocksCmd() *cobra.Command {
	var (
		f               lockScanFlags
		asJSON, watchIt bool
		interval        time.Duration
		record          string // --record FILE (main_locks_watch.go)
	)
	cmd := &cobra.Command{
		Use:   "locks [PATH]",
		Short: "Print every lock's holders and wait queue at or below PATH",
		Long: `Decode the lock at PATH, or every lock below PATH (default /), exactly as its
client library sees it (Curator, kazoo, go-zookeeper, ZooKeeper's recipes):
who holds it, who waits in what order, which node each waiter watches, and
whether the servers confirm that watch (✓ yes; ✗ no: missing from two samples
a second apart, both begun after the wait was read; ? unknown: not yet judged,
or the servers' four-letter words srvr/cons/wchp are not whitelisted, see
4lw.commands.whitelist). AGE is the node's age, not how long a holder has
held (one read cannot know that); --watch adds HELD, from when it saw each
holder begin.

--json prints the machine-readable report (schema 1), --watch redraws as the
queues change until Ctrl-C.`,
		Example: `  zkscope locks /app/locks
  zkscope locks /app/locks/orders --json | jq '.locks[].participants[] | select(.state=="waiting")'
  zkscope locks /app --watch
  zkscope locks /app/locks --watch --record locks.jsonl   # then: zkscope history /app/locks --recording locks.jsonl
  zkscope locks /app/semaphores/batch --max-leases 3`,
		Args:              cobra.MatchAll(cobra.MaximumNArgs(1), lockPathArgs),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			if handled, err := runRedisLocks(cmd, args, asJSON); handled {
				return err
			}
			p := "/"
			if len(args) == 1 {
				p = args[0]
			}
			if err := f.check(); err != nil {
				return usage(err)
			}
			if record != "" && !watchIt {
				return usagef("--record records the changes --watch sees: add --watch")
			}
			if cmd.Flags().Changed("interval") && !watchIt {
				fmt.Fprintln(cmd.ErrOrStderr(), "zkscope: --interval is how often --watch rescans: add --watch, or leave --interval out (locks reads once)")
				return exitError{lockops.ExitRefused}
			}
			if watchIt && interval <= 0 {
				return usagef("--interval %s: must be positive", interval)
			}
			if err := newRecordFile(record); err != nil {
				return err // main_locks_watch.go
			}
			if watchIt && interval < minWatchInterval {
				fmt.Fprintf(cmd.ErrOrStderr(), "zkscope: --interval %s raised to %s (every interval is a full scan; changes are drawn as they happen)\n", interval, minWatchInterval)
				interval = minWatchInterval
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
			tty := writerIsTerminal(out)
			render := func(out io.Writer, r scanReport) error {
				if asJSON {
					return report.WriteJSONReport(printable.JSON(out), c.Servers(), r.queues, &r.v, r.unreadable)
				}
				err := report.WriteTableWith(out, r.queues, time.Now(), report.TableOptions{FullNames: !tty, Footnote: footnote(r.queues, r.v), Held: watchIt})
				for _, u := range r.unreadable {
					fmt.Fprintf(out, "unreadable %s: %s\n", printable.String(u.Node), printable.String(u.Detail))
				}
				return err
			}
			if !watchIt {
				prog := newProgressLine(cmd.ErrOrStderr(), !asJSON, true)
				queues, v, unreadable, err := scanLocks(ctx, c, p, f, prog)
				if err != nil && !errors.Is(err, scan.ErrTruncated) {
					return err
				}
				if rerr := render(out, scanReport{queues: queues, v: v, unreadable: unreadable}); rerr != nil {
					return rerr
				}
				return err
			}
			w := watchOutput{out: out, errOut: cmd.ErrOrStderr(), path: p, json: asJSON, tty: tty}
			if record != "" {
				closeRec, err := w.startRecording(record, p, c.Servers())
				if err != nil {
					return err
				}
				defer closeRec()
			}
			return watchLocks(ctx, c, w, p, f, interval, render)
		},
	}
	f.register(cmd, time.Hour)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the JSON report (schema 1)")
	cmd.Flags().BoolVarP(&watchIt, "watch", "w", false, "redraw whenever a queue changes (and every --interval), until Ctrl-C")
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "with --watch: rescan and redraw at least this often (held/waiting times tick; at least 1s)")
	cmd.Flags().StringVar(&record, "record", "", "with --watch: record every change seen to FILE (a new file), for zkscope history --recording FILE")
	return cmd
}

// scanReport is what one scan found, as the locks command draws it.
type scanReport struct {
	queues     []lockops.Queue
	v          diagnose.Verification
	unreadable []lockops.Problem
	ens        *zkview.Ensemble // what the servers said (nil: not asked)
}

// watchOutput is where and how `locks --watch` draws its frames: on a
// terminal each frame clears the screen under a header; into a pipe the
// table frames follow each other under a header line; with --json each
// frame is one JSON document on one line (NDJSON), nothing else.
type watchOutput struct {
	out, errOut io.Writer
	path        string
	json, tty   bool
	rec         *history.Recorder // --record, nil without
}

// frame writes one frame drawn by draw.
func (w watchOutput) frame(draw func(io.Writer) error) error {
	if w.json {
		if err := draw(oneLine{w.out}); err != nil {
			return err
		}
		_, err := io.WriteString(w.out, "\n")
		return err
	}
	if w.tty {
		fmt.Fprint(w.out, "\x1b[H\x1b[2J")
	}
	fmt.Fprintf(w.out, "zkscope locks %s — %s — every change, Ctrl-C quits\n\n", w.path, time.Now().Format("15:04:05"))
	if err := draw(w.out); err != nil {
		return err
	}
	if !w.tty {
		_, err := fmt.Fprintln(w.out)
		return err
	}
	return nil
}

// problem reports a failed scan: on the screen in place of a frame, else
// on stderr (a pipe of frames must stay parseable).
func (w watchOutput) problem(err error) {
	if w.tty && !w.json {
		fmt.Fprintf(w.out, "\x1b[H\x1b[2J%s  (retrying)\n", printable.String(zkview.Explain(err).Error()))
		return
	}
	fmt.Fprintf(w.errOut, "zkscope: %s (retrying)\n", printable.String(zkview.Explain(err).Error()))
}

// oneLine drops the newlines of a JSON document written through it: JSON
// strings hold none unescaped, so what remains is the same document on
// one line.
type oneLine struct{ w io.Writer }

func (o oneLine) Write(b []byte) (int, error) {
	if bytes.IndexByte(b, '\n') < 0 {
		return o.w.Write(b)
	}
	if _, err := o.w.Write(bytes.ReplaceAll(b, []byte("\n"), nil)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// writerIsTerminal reports whether w is a terminal.
func writerIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}

func newDoctorCmd() *cobra.Command {
	var (
		f      lockScanFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "doctor [PATH]",
		Short: "Report lock problems at or below PATH; exit 1 when any is found",
		Long: `Check every lock at or below PATH (default /) and print one line per problem:
persistent lock nodes, waiters whose watch no server reports (stuck: missing
from two samples a second apart), holders older than --held-longer-than (by
node age: when a holder began to hold is not known from one read; the line
says so), holders whose client answered only pings, or sent nothing at all,
for --hung-after (two samples of the members' connections that far apart:
doctor takes that long), several nodes of one session (orphans), wait-for cycles
across lock directories (session-deadlock),
orphaned semaphore leases, read→write upgrade deadlocks, herds, sequence ties
and overflow, stray children that block a queue, mixed libraries.

A session that owns ephemeral nodes but is connected to no member is reported
once (owner-disconnected), by its session id, with all its nodes. --json
prints the same problems as one document (schema 1).

A subtree the session may not read (NoAuth), or that vanished during the
scan, is reported as an unreadable problem and the scan goes on.

Exit status: 0 no problem, 1 problems found (unreadable subtrees too), 2
nothing could be checked (unreachable server, PATH missing or unreadable):
fit for cron and alerting, also as doctor / with ACL-protected subtrees.`,
		Example: `  zkscope doctor /app
  zkscope doctor /app/locks --held-longer-than 15m || page-oncall
  zkscope doctor /app --json | jq '.problems[] | select(.kind=="owner-disconnected") | .session'
  zkscope doctor /app --hung-after 2m    # also holders whose client only pings`,
		Args:              cobra.MatchAll(cobra.MaximumNArgs(1), lockPathArgs),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, redis, _ := redisServer(os.Getenv); redis && asJSON {
				fmt.Fprintln(cmd.ErrOrStderr(), "zkscope doctor: --json reports ZooKeeper locks; for Redis locks use zkscope locks --json")
				return exitError{2}
			}
			if handled, err := runRedisDoctor(cmd, args); handled {
				return err
			}
			p := "/"
			if len(args) == 1 {
				p = args[0]
			}
			if err := f.check(); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "zkscope doctor:", err)
				return exitError{2}
			}
			ctx := cmd.Context()
			tuneForBigRead(cmd.OutOrStdout())
			c, err := connectWith(ctx, func(cfg *zkview.Config) { cfg.BulkSoon = true })
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "zkscope doctor:", printable.String(err.Error()))
				return exitError{2}
			}
			defer c.Close()
			prog := newProgressLine(cmd.ErrOrStderr(), !asJSON, true)
			r, err := scanLocksEnsemble(ctx, c, p, f, prog)
			if err != nil && !errors.Is(err, scan.ErrTruncated) {
				fmt.Fprintln(cmd.ErrOrStderr(), "zkscope doctor:", printable.String(err.Error()))
				return exitError{2}
			}
			if note := footnote(r.queues, r.v); note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "zkscope doctor: note:", printable.String(note))
			}
			return reportDoctor(cmd, c, p, r, err, asJSON)
		},
	}
	f.register(cmd, time.Hour)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the problems as one JSON document (schema 1); the exit status is the same")
	cmd.Flags().DurationVar(&f.hungAfter, "hung-after", 0, "flag holders whose client answered only pings for this long (sampled twice, this far apart; 0: off)")
	return cmd
}

// reportDoctor prints what a doctor scan found (lines, or --json) and
// turns it into doctor's exit status: owner-disconnected once per session
// ([diagnose.OwnersDisconnected]), every other problem once per node.
func reportDoctor(cmd *cobra.Command, c *zkview.Client, p string, r scanReport, scanErr error, asJSON bool) error {
	fs := diagnose.DoctorFindings(r.queues, r.unreadable, diagnose.OwnersDisconnected(r.queues, r.ens, p))
	out := cmd.OutOrStdout()
	var err error
	if asJSON {
		err = report.WriteDoctorJSON(printable.JSON(out), c.Servers(), p, len(r.queues), fs)
	} else {
		err = report.WriteDoctorLines(out, fs)
	}
	if err != nil {
		return err
	}
	if scanErr != nil {
		fmt.Fprintln(cmd.ErrOrStderr(), "zkscope doctor: warning:", printable.String(scanErr.Error()))
	}
	if len(fs) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "%d problem(s) in %d lock(s) at or below %s\n", len(fs), len(r.queues), p)
		return exitError{1}
	}
	if !asJSON {
		fmt.Fprintf(out, "no problems found in %d lock(s) at or below %s\n", len(r.queues), p)
	}
	return nil
}
