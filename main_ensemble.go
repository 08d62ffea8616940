package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// newEnsembleCmd is `zkscope ensemble`: every member's role and numbers.
func newEnsembleCmd() *cobra.Command {
	var asJSON bool
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
--json prints the machine-readable report (schema 1).`,
		Example: `  zkscope ensemble -s zk1:2181,zk2:2181,zk3:2181
  zkscope ensemble --json | jq -r '.members[] | select(.role=="down") | .addr'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cfg, err := zkview.ResolveConfig(conn, os.Getenv)
			if err != nil {
				return err
			}
			if err := zkview.CheckConfig(cfg); err != nil {
				return err
			}
			e := zkview.IntrospectConfig(ctx, cfg, zkview.IntrospectOptions{Detail: true})
			r := lockops.NewEnsembleReport(e, nil)
			if asJSON {
				return lockops.WriteEnsembleJSON(cmd.OutOrStdout(), r)
			}
			return lockops.WriteEnsembleTable(cmd.OutOrStdout(), r)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the JSON report (schema 1)")
	return cmd
}
