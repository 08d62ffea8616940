package locks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/printable"
)

const doctorLong = `Check every lock at or below PATH (default /) and print one line per problem:
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
fit for cron and alerting, also as doctor / with ACL-protected subtrees.`

const doctorExample = `  zkscope doctor /app
  zkscope doctor /app/locks --held-longer-than 15m || page-oncall
  zkscope doctor /app --json | jq '.problems[] | select(.kind=="owner-disconnected") | .session'
  zkscope doctor /app --hung-after 2m    # also holders whose client only pings
  zkscope -s postgres://app@db1/orders doctor --idle-longer-than 1m   # advisory locks' holders idle in a transaction
  zkscope -s mysql://app@db1:3306/ doctor --idle-longer-than 5m       # GET_LOCK holders whose connection sleeps`

// doctorOptions are `zkscope doctor`'s.
type doctorOptions struct {
	Path        string
	Scan        scanFlags
	JSON        bool
	Out, ErrOut io.Writer
}

// NewCmdDoctor is `zkscope doctor`.
func NewCmdDoctor(f *cmdutil.Factory) *cobra.Command {
	var o doctorOptions
	var db dbFlags
	cmd := &cobra.Command{
		Use:               "doctor [PATH]",
		Short:             "Report lock problems at or below PATH; exit 1 when any is found",
		Long:              doctorLong,
		Example:           doctorExample,
		Args:              cobra.MatchAll(cobra.MaximumNArgs(1), f.LockPathArgs),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Out, o.ErrOut = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if _, isDB, err := f.DB(); isDB {
				if err != nil {
					return err
				}
				if o.JSON {
					fmt.Fprintln(o.ErrOut, "zkscope doctor: --json reports ZooKeeper locks; for database locks use zkscope locks --json (each lock's problems are in it)")
					return cmdutil.ExitError{Code: 2}
				}
				return runDBDoctor(cmd, f, args, db.o)
			}
			if err := db.refuseForZooKeeper(cmd); err != nil {
				return err
			}
			r, isRedis, err := f.Redis()
			switch {
			case isRedis && o.JSON:
				fmt.Fprintln(o.ErrOut, "zkscope doctor: --json reports ZooKeeper locks; for Redis locks use zkscope locks --json")
				return cmdutil.ExitError{Code: 2}
			case isRedis && err != nil:
				return err
			case isRedis:
				return runRedisDoctor(cmd, f, r, args)
			}
			o.Path = cmdutil.PathArg(args)
			return runDoctor(cmd.Context(), f, o)
		},
	}
	o.Scan.register(cmd, time.Hour)
	db.register(cmd)
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the problems as one JSON document (schema 1); the exit status is the same")
	cmd.Flags().DurationVar(&o.Scan.hungAfter, "hung-after", 0, "flag holders whose client answered only pings for this long (sampled twice, this far apart; 0: off)")
	return cmd
}

// runDoctor checks the locks at or below o.Path; nothing checked exits 2.
func runDoctor(ctx context.Context, f *cmdutil.Factory, o doctorOptions) error {
	if err := o.Scan.check(); err != nil {
		fmt.Fprintln(o.ErrOut, "zkscope doctor:", err)
		return cmdutil.ExitError{Code: 2}
	}
	f.TuneOneShot(o.Out)
	c, err := connect(ctx, f)
	if err != nil {
		fmt.Fprintln(o.ErrOut, "zkscope doctor:", printable.String(err.Error()))
		return cmdutil.ExitError{Code: 2}
	}
	defer c.Close()
	prog := cmdutil.NewProgressLine(o.ErrOut, !o.JSON, true)
	s, err := follow.Read(ctx, c, o.Path, o.Scan.options(prog))
	if err != nil && !errors.Is(err, scan.ErrTruncated) {
		fmt.Fprintln(o.ErrOut, "zkscope doctor:", printable.String(err.Error()))
		return cmdutil.ExitError{Code: 2}
	}
	if note := footnote(s.Queues, s.Verification); note != "" {
		fmt.Fprintln(o.ErrOut, "zkscope doctor: note:", printable.String(note))
	}
	return reportDoctor(o, c.Servers(), s, err)
}

// reportDoctor prints what a doctor scan found (lines, or --json) and
// turns it into doctor's exit status: owner-disconnected once per session
// ([diagnose.OwnersDisconnected]), every other problem once per node.
func reportDoctor(o doctorOptions, servers []string, s follow.Snapshot, scanErr error) error {
	fs := diagnose.DoctorFindings(s.Queues, s.Unreadable, diagnose.OwnersDisconnected(s.Queues, s.Ensemble, o.Path))
	var err error
	if o.JSON {
		err = report.WriteDoctorJSON(printable.JSON(o.Out), servers, o.Path, len(s.Queues), fs)
	} else {
		err = report.WriteDoctorLines(o.Out, fs)
	}
	if err != nil {
		return err
	}
	if scanErr != nil {
		fmt.Fprintln(o.ErrOut, "zkscope doctor: warning:", printable.String(scanErr.Error()))
	}
	if len(fs) > 0 {
		fmt.Fprintf(o.ErrOut, "%d problem(s) in %d lock(s) at or below %s\n", len(fs), len(s.Queues), o.Path)
		return cmdutil.ExitError{Code: 1}
	}
	if !o.JSON {
		fmt.Fprintf(o.Out, "no problems found in %d lock(s) at or below %s\n", len(s.Queues), o.Path)
	}
	return nil
}

// printProblems prints doctor's lines for the queues' problems that are
// not info, where naming each problem's place: "no problems in N locks",
// or exit status 1 when any was printed.
func printProblems(out io.Writer, queues []lockops.Queue, where func(q *lockops.Queue, pr *lockops.Problem) string) error {
	n := 0
	for i := range queues {
		q := &queues[i]
		for j := range q.Problems {
			pr := &q.Problems[j]
			if pr.Severity() == lockops.SeverityInfo {
				continue
			}
			n++
			fmt.Fprintf(out, "%s %s %s: %s\n", pr.Severity(), pr.Kind, printable.String(where(q, pr)), printable.String(pr.Detail))
		}
	}
	if n == 0 {
		fmt.Fprintf(out, "no problems in %d locks\n", len(queues))
		return nil
	}
	return cmdutil.ExitError{Code: 1}
}
