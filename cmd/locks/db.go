package locks

// locks and doctor against a database server (the target's postgres:// or
// mysql:// URL): reading is dbview's, decoding and diagnostics
// lockops/dblock's.

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/dblock"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
)

// dbFlags are the bounds of the database problems, on locks and doctor.
type dbFlags struct{ o dblock.DiagnoseOptions }

func (d *dbFlags) register(cmd *cobra.Command) {
	cmd.Flags().DurationVar(&d.o.IdleLongerThan, "idle-longer-than", dblock.DefaultIdleLongerThan, "database locks: a holder idle in a transaction this long is a problem")
	cmd.Flags().DurationVar(&d.o.WaitLongerThan, "wait-longer-than", dblock.DefaultWaitLongerThan, "database locks: a waiter waiting this long is a problem")
	cmd.Flags().DurationVar(&d.o.TxLongerThan, "transaction-longer-than", dblock.DefaultTxLongerThan, "database locks: a holder whose transaction is open this long is a problem")
}

// refuseForZooKeeper refuses the database bounds given for other servers.
func (d *dbFlags) refuseForZooKeeper(cmd *cobra.Command) error {
	for _, n := range []string{"idle-longer-than", "wait-longer-than", "transaction-longer-than"} {
		if cmd.Flags().Changed(n) {
			return cmdutil.Usagef("--%s applies to database locks only (--server postgres://… or mysql://…)", n)
		}
	}
	return nil
}

// refuseZooKeeperFlags refuses the first ZooKeeper-only flag of locks
// and doctor cmd was given on a database server; watching is allowed when
// the command is locks --watch (dbwatch.go).
func refuseZooKeeperFlags(cmd *cobra.Command, watching bool) error {
	for _, name := range redisIgnores {
		fl := cmd.Flags().Lookup(name)
		if fl == nil || !fl.Changed || name == "record" || watching && (name == "watch" || name == "interval") {
			continue // (--record: locks checks it goes with --watch)
		}
		next := "leave it out"
		switch {
		case name == "watch" || name == "interval":
			next = "to follow database locks, use locks --watch"
		}
		return cmdutil.Usagef("--%s works on ZooKeeper only, not on database servers: %s", name, next)
	}
	return nil
}

// readDBLocks reads the target's database locks whose key or path is
// filter ("" for all), decoded and diagnosed.
func readDBLocks(cmd *cobra.Command, f *cmdutil.Factory, filter string, o dblock.DiagnoseOptions) ([]lockops.Queue, string, error) {
	if err := refuseZooKeeperFlags(cmd, false); err != nil {
		return nil, "", err
	}
	_, c, _, err := f.OpenDB(cmd.Context())
	if err != nil {
		return nil, "", err
	}
	defer c.Close()
	queues, err := readDBQueues(cmd.Context(), cmd.ErrOrStderr(), c, filter, o)
	return queues, c.Server(), err
}

// readDBQueues is one read of c's locks (one SQL statement), decoded,
// diagnosed and filtered as readDBLocks says.
func readDBQueues(ctx context.Context, errOut io.Writer, c *dbview.Client, filter string, o dblock.DiagnoseOptions) ([]lockops.Queue, error) {
	snap, err := c.Locks(ctx)
	if err != nil {
		return nil, err
	}
	queues := dblock.Locks(snap, o)
	if ids := dblock.UnknownWaiters(snap); len(ids) > 0 {
		fmt.Fprintf(errOut, "zkscope: connections %s wait in GET_LOCK for a lock whose name the server does not say (its statement does not name it as a literal; performance_schema's instrument would)\n", strings.Trim(fmt.Sprint(ids), "[]"))
	}
	if filter != "" {
		kept := queues[:0]
		for _, q := range queues {
			if q.Path == filter || strings.HasSuffix(q.Path, "/"+filter) || q.Participants[0].Node == filter {
				kept = append(kept, q)
			}
		}
		queues = kept
	}
	return queues, nil
}

// runDBLocks is `zkscope locks [KEY]` on a database server.
func runDBLocks(cmd *cobra.Command, f *cmdutil.Factory, args []string, asJSON bool, o dblock.DiagnoseOptions) error {
	out := cmd.OutOrStdout()
	f.TuneOneShot(out)
	queues, server, err := readDBLocks(cmd, f, dbFilter(args), o)
	if err != nil {
		return err
	}
	if asJSON {
		return report.WriteJSON(printable.JSON(out), []string{server}, queues)
	}
	if len(queues) == 0 {
		fmt.Fprintf(out, "no advisory or user-level locks held or awaited on %s\n", printable.String(server))
		return nil
	}
	return report.WriteTableWith(out, queues, time.Now(), report.TableOptions{FullNames: true})
}

// runDBDoctor is `zkscope doctor [KEY]` on a database server: the
// problems, and exit status 1 when any is not info.
func runDBDoctor(cmd *cobra.Command, f *cmdutil.Factory, args []string, o dblock.DiagnoseOptions) error {
	out := cmd.OutOrStdout()
	queues, _, err := readDBLocks(cmd, f, dbFilter(args), o)
	if cmdutil.IsUsage(err) {
		return err
	}
	if err != nil { // nothing could be checked
		fmt.Fprintln(cmd.ErrOrStderr(), "zkscope doctor:", printable.String(err.Error()))
		return cmdutil.ExitError{Code: 2}
	}
	// A database lock's problem names its lock (the key), else the session.
	return printProblems(out, queues, func(q *lockops.Queue, pr *lockops.Problem) string { return cmp.Or(q.Path, pr.Node) })
}

func dbFilter(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return ""
}
