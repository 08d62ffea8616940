// Command zkscope is a terminal UI explorer and lock debugger for Apache
// ZooKeeper. main.go only parses flags and subcommands and wires packages
// together; the logic lives in zkview, lockops, ui and themes.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/lockops/lockrun"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/zkview"
)

// version, when set at build time with -ldflags "-X main.version=...",
// overrides the module version from the build info.
var version = ""

var conn config.Flags

// connectTimeout is --connect-timeout (0: the session timeout).
var connectTimeout time.Duration

func main() {
	lockrun.WatchdogMain() // `zkscope lock -- CMD` re-executes zkscope as its watchdog
	root := newRoot()
	cmd, err := root.ExecuteC()
	if err != nil {
		var ee exitError
		if !errors.As(err, &ee) { // an exitError's message was printed already
			fmt.Fprintln(os.Stderr, "zkscope:", printable.String(err.Error()))
		}
	}
	os.Exit(exitStatus(cmd, err)) // main_exit.go
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
		SilenceUsage:      true,
		SilenceErrors:     true,
		Args:              cobra.NoArgs,
		PersistentPreRunE: checkGlobalFlags,
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
	pf.DurationVar(&connectTimeout, "connect-timeout", 0, "give up connecting after this long (default: the session timeout)")
	root.Flags().StringVar(&tuiTxnlog, "txnlog", "", "TUI: a server's data directory whose transaction log the lock pane's timeline (T, [ ]) replays")

	root.AddCommand(
		&cobra.Command{
			Use:   "demo",
			Short: "Start a local ZooKeeper with live lock contenders and open the TUI on it",
			Args:  cobra.NoArgs,
			RunE:  demoRunE, // main_demo.go
		},
		newLocksCmd(),    // main_locks.go
		newEnsembleCmd(), // main_ensemble.go
		newSessionsCmd(),
		newDoctorCmd(),
		newHistoryCmd(),
		newLockCmd(), // main_lock.go
		newEvictCmd(),
		newRevokeCmd(),
		newTreeCmd(), // main_tree.go
		newGetCmd(),
		newVersionCmd(),
		newCreateCmd(), // main_write.go
		newSetCmd(),
		newDeleteCmd(),
		newGetACLCmd(),
		newSetACLCmd(),
		newConfigCmd(), // main_config.go
		newManCmd(),    // main_man.go
	)
	registerCompletions(root) // main_complete.go
	markUsageErrors(root)     // main_exit.go
	return root
}

// connect resolves the connection settings and opens a client, bounded by
// the session timeout so an unreachable ensemble fails fast with one line.
func connect(ctx context.Context) (*zkview.Client, error) {
	return connectWith(ctx, func(*zkview.Config) {})
}

// connectWith is connect with the resolved configuration adjusted first.
func connectWith(ctx context.Context, adjust func(*zkview.Config)) (*zkview.Client, error) {
	if err := redisForZooKeeper(); err != nil { // main_redis.go
		return nil, usage(err)
	}
	cfg, err := config.ResolveZooKeeper(conn, os.Getenv)
	if err != nil {
		return nil, usage(err) // the connect string, context, credentials file: input
	}
	adjust(&cfg)
	return connectConfig(ctx, cfg)
}

// connectConfig opens a client for cfg, bounded by --connect-timeout
// (default: its session timeout), and checks that its chroot exists. On a
// terminal it says whom it is connecting to when that takes a while.
func connectConfig(ctx context.Context, cfg zkview.Config) (*zkview.Client, error) {
	return dialConfig(ctx, cfg, nil)
}

// dialConfig is connectConfig telling report (when not nil) each failed
// attempt instead of writing to the terminal (the TUI shows them).
func dialConfig(ctx context.Context, cfg zkview.Config, report func(string)) (*zkview.Client, error) {
	if err := zkview.CheckConfig(cfg); err != nil {
		return nil, usage(err)
	}
	timeout := connectTimeout
	if timeout == 0 {
		timeout = cfg.SessionTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := func() {}
	if report == nil {
		stop = sayWhenSlow(os.Stderr, time.Second, fmt.Sprintf("connecting to %s… (Ctrl-C gives up)", strings.Join(cfg.Servers, ",")))
	}
	c, err := zkview.ConnectReporting(ctx, cfg, report)
	stop()
	if err != nil {
		return nil, err
	}
	if err := c.CheckChroot(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// sayWhenSlow prints line on w (a terminal only) if stop is not called
// within after; stop erases it again.
func sayWhenSlow(w *os.File, after time.Duration, line string) (stop func()) {
	if !isTerminal(w) {
		return func() {}
	}
	var mu sync.Mutex
	said := false
	t := time.AfterFunc(after, func() {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprint(w, "zkscope: "+line)
		said = true
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		if said {
			fmt.Fprint(w, "\r\x1b[K")
			said = false
		}
	}
}

// checkGlobalFlags refuses connection flags that cannot work before
// anything is tried.
func checkGlobalFlags(cmd *cobra.Command, _ []string) error {
	fl := cmd.Flags()
	if fl.Changed("server") && strings.TrimSpace(conn.Server) == "" {
		return usagef("--server is empty: give host:port[,host:port...][/chroot], or leave it out for 127.0.0.1:2181")
	}
	if fl.Changed("session-timeout") && conn.SessionTimeout <= 0 {
		return usagef("--session-timeout %s: must be positive (e.g. 10s)", conn.SessionTimeout)
	}
	if connectTimeout < 0 {
		return usagef("--connect-timeout %s: must be positive (e.g. 5s)", connectTimeout)
	}
	if themeName != "" {
		if err := themes.Valid(themeName); err != nil {
			return usagef("--theme: %w", err)
		}
	}
	return nil
}
