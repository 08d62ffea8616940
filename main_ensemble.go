package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// newEnsembleCmd is `zkscope ensemble`: every member's role and numbers.
func newEnsembleCmd() *cobra.Command {
	var asJSON bool
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "ensemble",
		Short: "Print every member's role, version, zxid, latency, connections and watches",
		Long: `Ask every member of the connect string (and every member the ensemble's
configuration lists with a client address) with four-letter words, or the
AdminServer for words a member refuses: role (leader, follower, observer,
standalone, or down), version, zxid and epoch, latency, outstanding requests,
connections, watches, znodes and data size. It needs no session, so it works
while the ensemble has no quorum.

A member that refuses words is shown with the zoo.cfg line that allows them.
--interval D asks twice, D apart, and reports the second answer with what
changed in between (a member going down or coming back, a new leader).
--json prints the machine-readable report (schema 1).`,
		Example: `  zkscope ensemble -s zk1:2181,zk2:2181,zk3:2181
  zkscope ensemble --json | jq -r '.members[] | select(.role=="down") | .addr'
  zkscope ensemble --interval 10s --json | jq '.changes'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cfg, err := config.ResolveZooKeeper(conn, os.Getenv)
			if err != nil {
				return usage(err)
			}
			if err := zkview.CheckConfig(cfg); err != nil {
				return usage(err)
			}
			if interval < 0 {
				return usagef("--interval %s: must be positive (e.g. 10s; leave it out to ask once)", interval)
			}
			e := zkview.IntrospectConfig(ctx, cfg, zkview.IntrospectOptions{Detail: true})
			var prev *zkview.Ensemble
			if interval > 0 {
				cmd.PrintErrf("asked %d member(s) at %s; asking again in %s\n", len(e.Members), e.At.Format("15:04:05"), interval)
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(interval):
				}
				prev, e = e, zkview.IntrospectConfig(ctx, cfg, zkview.IntrospectOptions{Detail: true})
			}
			r := report.NewEnsembleReport(e, prev)
			if asJSON {
				return report.WriteEnsembleJSON(printable.JSON(cmd.OutOrStdout()), r)
			}
			return report.WriteEnsembleTable(cmd.OutOrStdout(), r)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the JSON report (schema 1)")
	cmd.Flags().DurationVar(&interval, "interval", 0, "ask twice, this far apart, and report what changed in between (0: ask once)")
	return cmd
}

// newSessionsCmd is `zkscope sessions`: every session the members report,
// with the locks it holds and waits on below PATH.
func newSessionsCmd() *cobra.Command {
	var asJSON, withLocks bool
	cmd := &cobra.Command{
		Use:   "sessions [PATH]",
		Short: "Print every session the members report, with the locks it holds and waits on below PATH",
		Long: `List every session the members report (cons on each member, dump on the
leader): session id, client address, the member it is connected to, timeout,
connection age, last operation, packets received and sent, its ephemeral
nodes, and the locks below PATH (default /) it holds and waits on, with how
long. Needs the four-letter words cons and dump (see 4lw.commands.whitelist)
or the AdminServer.

--locks keeps only sessions in a lock; --json prints the machine-readable
report (schema 1).`,
		Example: `  zkscope sessions /app/locks
  zkscope sessions --locks --json | jq '.sessions[] | select(.waits_on != [])'`,
		Args:              cobra.MatchAll(cobra.MaximumNArgs(1), znodeArgs(1)),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			p := "/"
			if len(args) == 1 {
				p = args[0]
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			c, err := connect(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			ss, e, _, err := diagnose.ScanSessions(ctx, c, p)
			if err != nil && !errors.Is(err, scan.ErrTruncated) {
				return scanError(p, err)
			}
			if withLocks {
				ss = diagnose.SessionsOwningLocks(ss)
			}
			now := time.Now()
			if asJSON {
				return report.WriteSessionsJSON(printable.JSON(cmd.OutOrStdout()), c.Servers(), p, ss, now)
			}
			v := diagnose.Verified(e, c.Config().AdminPort)
			if len(ss) == 0 && v.Note != "" {
				fmt.Fprintln(cmd.OutOrStdout(), "no sessions listed: the members did not say (see the note below)")
			} else if werr := report.WriteSessionsTable(cmd.OutOrStdout(), ss, now); werr != nil {
				return werr
			}
			if v.Note != "" {
				cmd.PrintErrln("note:", printable.String(v.Note))
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the JSON report (schema 1)")
	cmd.Flags().BoolVar(&withLocks, "locks", false, "only sessions that hold or wait on a lock")
	return cmd
}
