// Package cluster is `zkscope ensemble` (every member's role and numbers)
// and `zkscope sessions` (every session, with the locks it holds and
// waits on). Wiring only: asking the members is zkview's, joining
// sessions and locks lockops/diagnose's, the reports lockops/report's.
package cluster

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
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

const ensembleLong = `Ask every member of the connect string (and every member the ensemble's
configuration lists with a client address) with four-letter words, or the
AdminServer for words a member refuses: role (leader, follower, observer,
standalone, or down), version, zxid and epoch, latency, outstanding requests,
connections, watches, znodes and data size. It needs no session, so it works
while the ensemble has no quorum.

A member that refuses words is shown with the zoo.cfg line that allows them.
--interval D asks twice, D apart, and reports the second answer with what
changed in between (a member going down or coming back, a new leader).
--json prints the machine-readable report (schema 1).`

// ensembleOptions are `zkscope ensemble`'s.
type ensembleOptions struct {
	JSON        bool
	Interval    time.Duration
	Out, ErrOut io.Writer
}

// NewCmdEnsemble is `zkscope ensemble`: every member's role and numbers.
func NewCmdEnsemble(f *cmdutil.Factory) *cobra.Command {
	var o ensembleOptions
	cmd := &cobra.Command{
		Use:   "ensemble",
		Short: "Print every member's role, version, zxid, latency, connections and watches",
		Long:  ensembleLong,
		Example: `  zkscope ensemble -s zk1:2181,zk2:2181,zk3:2181
  zkscope ensemble --json | jq -r '.members[] | select(.role=="down") | .addr'
  zkscope ensemble --interval 10s --json | jq '.changes'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out, o.ErrOut = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runEnsemble(cmd.Context(), f, o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the JSON report (schema 1)")
	cmd.Flags().DurationVar(&o.Interval, "interval", 0, "ask twice, this far apart, and report what changed in between (0: ask once)")
	return cmd
}

// runEnsemble asks the members (twice with --interval) and reports.
func runEnsemble(ctx context.Context, f *cmdutil.Factory, o ensembleOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := f.ZooKeeper()
	if err != nil {
		return err
	}
	if err := zkview.CheckConfig(cfg); err != nil {
		return cmdutil.Usage(err)
	}
	if o.Interval < 0 {
		return cmdutil.Usagef("--interval %s: must be positive (e.g. 10s; leave it out to ask once)", o.Interval)
	}
	e := zkview.IntrospectConfig(ctx, cfg, zkview.IntrospectOptions{Detail: true})
	var prev *zkview.Ensemble
	if o.Interval > 0 {
		fmt.Fprintf(o.ErrOut, "asked %d member(s) at %s; asking again in %s\n", len(e.Members), e.At.Format("15:04:05"), o.Interval)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(o.Interval):
		}
		prev, e = e, zkview.IntrospectConfig(ctx, cfg, zkview.IntrospectOptions{Detail: true})
	}
	r := report.NewEnsembleReport(e, prev)
	if o.JSON {
		return report.WriteEnsembleJSON(printable.JSON(o.Out), r)
	}
	return report.WriteEnsembleTable(o.Out, r)
}

const sessionsLong = `List every session the members report (cons on each member, dump on the
leader): session id, client address, the member it is connected to, timeout,
connection age, last operation, packets received and sent, its ephemeral
nodes, and the locks below PATH (default /) it holds and waits on, with how
long. Needs the four-letter words cons and dump (see 4lw.commands.whitelist)
or the AdminServer.

--locks keeps only sessions in a lock; --json prints the machine-readable
report (schema 1).`

// sessionsOptions are `zkscope sessions`'.
type sessionsOptions struct {
	Path        string
	JSON, Locks bool
	Out, ErrOut io.Writer
}

// NewCmdSessions is `zkscope sessions`: every session the members report,
// with the locks it holds and waits on below PATH.
func NewCmdSessions(f *cmdutil.Factory) *cobra.Command {
	var o sessionsOptions
	cmd := &cobra.Command{
		Use:   "sessions [PATH]",
		Short: "Print every session the members report, with the locks it holds and waits on below PATH",
		Long:  sessionsLong,
		Example: `  zkscope sessions /app/locks
  zkscope sessions --locks --json | jq '.sessions[] | select(.waits_on != [])'`,
		Args:              cobra.MatchAll(cobra.MaximumNArgs(1), cmdutil.ZnodeArgs(1)),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Path = cmdutil.PathArg(args)
			o.Out, o.ErrOut = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runSessions(cmd.Context(), f, o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the JSON report (schema 1)")
	cmd.Flags().BoolVar(&o.Locks, "locks", false, "only sessions that hold or wait on a lock")
	return cmd
}

// runSessions lists the sessions with their locks below o.Path.
func runSessions(ctx context.Context, f *cmdutil.Factory, o sessionsOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	ss, e, _, err := diagnose.ScanSessions(ctx, c, o.Path)
	if err != nil && !errors.Is(err, scan.ErrTruncated) {
		return scan.PathError(o.Path, err)
	}
	if o.Locks {
		ss = diagnose.SessionsOwningLocks(ss)
	}
	now := time.Now()
	if o.JSON {
		return report.WriteSessionsJSON(printable.JSON(o.Out), c.Servers(), o.Path, ss, now)
	}
	v := diagnose.Verified(e, c.Config().AdminPort)
	if len(ss) == 0 && v.Note != "" {
		fmt.Fprintln(o.Out, "no sessions listed: the members did not say (see the note below)")
	} else if werr := report.WriteSessionsTable(o.Out, ss, now); werr != nil {
		return werr
	}
	if v.Note != "" {
		fmt.Fprintln(o.ErrOut, "note:", printable.String(v.Note))
	}
	return err
}
