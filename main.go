// Command zkscope is a terminal UI explorer and lock debugger for Apache
// ZooKeeper. main.go only parses flags and subcommands and wires packages
// together; the logic lives in zkview, lockops, ui and themes.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// exitError carries a process exit status through cobra.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

var conn zkview.Flags

func main() {
	lockops.WatchdogMain() // `zkscope lock -- CMD` re-executes zkscope as its watchdog
	root := newRoot()
	if err := root.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "zkscope:", err)
		if lockops.IsRefusal(err) {
			os.Exit(lockops.ExitRefused)
		}
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "zkscope",
		Short: "Terminal UI explorer and lock debugger for Apache ZooKeeper",
		Long: `zkscope explores ZooKeeper znodes and decodes distributed locks (Curator, kazoo,
go-zookeeper, ZooKeeper recipes): who holds each lock, who waits in what order,
which node each waiter watches, and what is wrong.

With no subcommand it opens the terminal UI.`,
		Example: `  zkscope demo                              # local ZooKeeper with live lock contenders
  zkscope -s zk1:2181,zk2:2181,zk3:2181      # open the TUI
  zkscope --context prod --read-only         # a context from ~/.config/zkscope/config.toml
  zkscope locks /app/locks --json            # every lock below /app/locks, as JSON
  zkscope doctor /app                        # exit non-zero when a lock has a problem
  zkscope lock /app/locks/deploy -- ./deploy.sh`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTUI(cmd.Context()) // main_tui.go
		},
	}
	pf := root.PersistentFlags()
	pf.StringVarP(&conn.Server, "server", "s", "", "ZooKeeper connect string, e.g. zk1:2181,zk2:2181/chroot (env ZKSCOPE_SERVER; default 127.0.0.1:2181)")
	pf.StringVar(&conn.Context, "context", "", "named context from the config file (env ZKSCOPE_CONTEXT)")
	pf.StringVar(&conn.ConfigFile, "config", "", "config file (default $XDG_CONFIG_HOME/zkscope/config.toml)")
	pf.StringVar(&conn.AuthFile, "auth-file", "", "file (mode 0600) holding digest credentials user:password (or env ZKSCOPE_AUTH=user:password)")
	pf.BoolVar(&conn.TLS, "tls", false, "connect with TLS (implied by --tls-ca/--tls-cert)")
	pf.StringVar(&conn.TLSCA, "tls-ca", "", "PEM CA bundle that signed the servers' certificates")
	pf.StringVar(&conn.TLSCert, "tls-cert", "", "PEM client certificate")
	pf.StringVar(&conn.TLSKey, "tls-key", "", "PEM client key")
	pf.StringVar(&conn.TLSServerName, "tls-server-name", "", "name to verify in the servers' certificates (default: each server's host)")
	pf.BoolVar(&conn.ReadOnly, "read-only", false, "refuse every change (create, edit, delete, lock operations)")
	pf.StringVar(&themeName, "theme", "", "colour theme: auto, dark, light, high-contrast, none (default: the config's theme, else from the terminal background; NO_COLOR disables colour)")
	pf.DurationVar(&conn.SessionTimeout, "session-timeout", 0, "session timeout to request (default: the context's session_timeout, else 10s)")

	root.AddCommand(
		&cobra.Command{
			Use:   "demo",
			Short: "Start a local ZooKeeper with live lock contenders and open the TUI on it",
			Args:  cobra.NoArgs,
			RunE:  demoRunE, // main_demo.go
		},
		newLocksCmd(), // main_locks.go
		newDoctorCmd(),
		newLockCmd(), // main_lock.go
		newEvictCmd(),
		newRevokeCmd(),
		newTreeCmd(), // main_tree.go
		newGetCmd(),
		&cobra.Command{
			Use:   "version",
			Short: "Print zkscope's version",
			Args:  cobra.NoArgs,
			Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprintln(cmd.OutOrStdout(), "zkscope", version) },
		},
	)
	return root
}

// connect resolves the connection settings and opens a client, bounded by
// the session timeout so an unreachable ensemble fails fast with one line.
func connect(ctx context.Context) (*zkview.Client, error) {
	return connectWith(ctx, func(*zkview.Config) {})
}

// connectWith is connect with the resolved configuration adjusted first.
func connectWith(ctx context.Context, adjust func(*zkview.Config)) (*zkview.Client, error) {
	cfg, err := zkview.ResolveConfig(conn, os.Getenv)
	if err != nil {
		return nil, err
	}
	adjust(&cfg)
	return connectConfig(ctx, cfg)
}

// connectConfig opens a client for cfg, bounded by its session timeout.
func connectConfig(ctx context.Context, cfg zkview.Config) (*zkview.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.SessionTimeout)
	defer cancel()
	return zkview.Connect(ctx, cfg)
}
