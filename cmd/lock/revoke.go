package lock

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/printable"
)

const revokeLong = `Ask the holder of a lock node to let go, the way Curator's Revoker does: write
"__REVOKE__" as the node's data and wait for the node to be deleted.

Only holders that made their lock revocable react (Curator's makeRevocable,
'zkscope lock --revocable'). Exits 0 when the node went away within --wait,
1 otherwise (the holder keeps the lock; 'zkscope evict' force-deletes).

zkscope writes only to the holding node of a Curator InterProcessMutex or
InterProcessReadWriteLock, the recipes that can be revoked, conditioned on the
version it read. Anything else (a plain node, a waiter, a persistent node, a
kazoo, go-zookeeper or ZooKeeper recipe lock, a Curator semaphore or leader
latch) is refused with exit status 2 and left unchanged.`

// NewCmdRevoke is `zkscope revoke`.
func NewCmdRevoke(f *cmdutil.Factory) *cobra.Command {
	var wait time.Duration
	cmd := &cobra.Command{
		Use:               "revoke NODE",
		Short:             "Ask a lock's holder to release it (Curator revocation: writes __REVOKE__)",
		Long:              revokeLong,
		Example:           `  zkscope revoke /app/locks/deploy/_c_0f3e…-lock-0000000007 --wait 30s`,
		Args:              cobra.MatchAll(cobra.ExactArgs(1), f.LockPathArgs),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer cmdutil.ReportAuditErrors()
			r, isRedis, err := f.Redis()
			switch {
			case isRedis && err != nil:
				return err
			case isRedis:
				return runRedisRevoke(r, args[0])
			}
			return runRevoke(f, cmd.OutOrStdout(), args[0], wait)
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", 10*time.Second, "how long to wait for the holder to let go")
	return cmd
}

// runRevoke asks the holder of node to let go and waits for it.
func runRevoke(f *cmdutil.Factory, out io.Writer, node string, wait time.Duration) error {
	if wait < 0 {
		return cmdutil.Usagef("--wait %s: must be positive", wait)
	}
	ctx := context.Background()
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := evict.Revoke(ctx, c, node, wait)
	if err != nil {
		return err
	}
	if !res.Released {
		return fmt.Errorf("asked session %s to release %s, but it still holds it after %s (is the lock revocable?)", lockops.FormatSession(res.Session), res.Node, wait)
	}
	fmt.Fprintf(out, "session %s released %s\n", lockops.FormatSession(res.Session), printable.String(res.Node))
	return nil
}
