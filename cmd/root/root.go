// Package root assembles zkscope's command tree: the global flags bound
// into the [cmdutil.Factory], every noun's commands, the completion of the
// global flags, and exit statuses (usage errors, cobra's included, exit
// 2). The root command's own run is the terminal UI (cmd/tui).
package root

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkscope/zkscope/cmd/cluster"
	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/cmd/config"
	"github.com/zkscope/zkscope/cmd/demo"
	"github.com/zkscope/zkscope/cmd/exporter"
	"github.com/zkscope/zkscope/cmd/history"
	"github.com/zkscope/zkscope/cmd/lock"
	"github.com/zkscope/zkscope/cmd/locks"
	"github.com/zkscope/zkscope/cmd/node"
	"github.com/zkscope/zkscope/cmd/tui"
	"github.com/zkscope/zkscope/cmd/version"
	"github.com/zkscope/zkscope/lockops/lockrun"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
)

// Main runs zkscope with the process's arguments and returns its exit
// status; built is the version set at build time ("" when none).
func Main(built string) int {
	lockrun.WatchdogMain() // `zkscope lock -- CMD` re-executes zkscope as its watchdog
	root := NewCmdRoot(cmdutil.NewFactory(built))
	cmd, err := root.ExecuteC()
	if err != nil {
		var ee cmdutil.ExitError
		if !errors.As(err, &ee) { // an ExitError's message was printed already
			fmt.Fprintln(os.Stderr, "zkscope:", printable.String(err.Error()))
		}
	}
	return ExitStatus(cmd, err)
}

const rootLong = `zkscope explores ZooKeeper znodes and decodes distributed locks (Curator, kazoo,
go-zookeeper, ZooKeeper recipes): who holds each lock, who waits in what order,
which node each waiter watches, and what is wrong.

With no subcommand it opens the terminal UI.`

const rootExample = `  zkscope demo                              # local ZooKeeper with live lock contenders
  zkscope -s zk1:2181,zk2:2181,zk3:2181      # open the TUI
  zkscope --context prod --read-only         # a context from ~/.config/zkscope/config.toml
  zkscope -s postgres://app@db1/orders       # the TUI on a database's locks (read-only)
  zkscope locks /app/locks --json            # every lock below /app/locks, as JSON
  zkscope doctor /app                        # exit non-zero when a lock has a problem
  zkscope lock /app/locks/deploy -- ./deploy.sh`

// NewCmdRoot is the zkscope command with every subcommand, its flags
// bound into f.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	var tuiOpts tui.Options
	root := &cobra.Command{
		Use:               "zkscope",
		Short:             "Terminal UI explorer and lock debugger for Apache ZooKeeper",
		Long:              rootLong,
		Example:           rootExample,
		SilenceUsage:      true,
		SilenceErrors:     true,
		Args:              cobra.NoArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return checkGlobalFlags(cmd, f) },
		RunE: func(cmd *cobra.Command, _ []string) error {
			return tui.Run(f, tuiOpts)
		},
	}
	bindGlobalFlags(root.PersistentFlags(), f)
	root.Flags().StringVar(&tuiOpts.Txnlog, "txnlog", "", "TUI: a server's data directory whose transaction log the lock pane's timeline (T, [ ]) replays")
	root.AddCommand(
		demo.NewCmdDemo(f),
		locks.NewCmdLocks(f), locks.NewCmdDoctor(f), exporter.NewCmdExporter(f),
		cluster.NewCmdEnsemble(f), cluster.NewCmdSessions(f),
		history.NewCmdHistory(),
		lock.NewCmdLock(f), lock.NewCmdEvict(f), lock.NewCmdRevoke(f),
		node.NewCmdTree(f), node.NewCmdGet(f),
		node.NewCmdCreate(f), node.NewCmdSet(f), node.NewCmdDelete(f), node.NewCmdGetACL(f), node.NewCmdSetACL(f),
		config.NewCmdConfig(f),
		version.NewCmdVersion(f), version.NewCmdMan(f),
	)
	root.RegisterFlagCompletionFunc("context", func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return f.CompleteContexts(cmd, nil, "")
	})
	root.RegisterFlagCompletionFunc("theme", cmdutil.Fixed(themes.Names()...))
	markUsageErrors(root)
	return root
}

// bindGlobalFlags binds the flags every command takes into f.
func bindGlobalFlags(pf *pflag.FlagSet, f *cmdutil.Factory) {
	c := &f.Flags
	pf.StringVarP(&c.Server, "server", "s", "", "ZooKeeper connect string, e.g. zk1:2181,zk2:2181/chroot (env ZKSCOPE_SERVER; default 127.0.0.1:2181)")
	pf.StringVar(&c.Context, "context", "", "named context from the config file (env ZKSCOPE_CONTEXT)")
	pf.StringVar(&c.ConfigFile, "config", "", "config file (default $XDG_CONFIG_HOME/zkscope/config.toml)")
	pf.StringVar(&c.AuthFile, "auth-file", "", "file (mode 0600) holding digest credentials user:password (or env ZKSCOPE_AUTH=user:password)")
	pf.StringVar(&c.SASLMechanism, "sasl-mechanism", "", "SASL mechanism: DIGEST-MD5 or GSSAPI (Kerberos); implied by --sasl-user or --principal/--keytab")
	pf.StringVar(&c.SASLUser, "sasl-user", "", "SASL DIGEST-MD5 user (a user_NAME of the servers' JAAS Server section)")
	pf.StringVar(&c.SASLPasswordFile, "sasl-password-file", "", "file (mode 0600) holding the SASL DIGEST-MD5 password (or env ZKSCOPE_SASL_PASSWORD)")
	pf.StringVar(&c.SASLService, "sasl-service", "", "SASL service name (default zookeeper: Kerberos principal zookeeper/<host>); SERVICE/HOST fixes the host")
	pf.StringVar(&c.Principal, "principal", "", "Kerberos client principal for SASL GSSAPI (user or user@REALM)")
	pf.StringVar(&c.Keytab, "keytab", "", "keytab holding --principal's key (default: the credential cache of kinit, KRB5CCNAME)")
	pf.BoolVar(&c.TLS, "tls", false, "connect with TLS (implied by --tls-ca/--tls-cert)")
	pf.StringVar(&c.TLSCA, "tls-ca", "", "PEM CA bundle that signed the servers' certificates")
	pf.StringVar(&c.TLSCert, "tls-cert", "", "PEM client certificate")
	pf.StringVar(&c.TLSKey, "tls-key", "", "PEM client key")
	pf.StringVar(&c.TLSServerName, "tls-server-name", "", "name to verify in the servers' certificates (default: each server's host)")
	pf.BoolVar(&c.ReadOnly, "read-only", false, "refuse every change (create, edit, delete, lock operations)")
	pf.StringVar(&f.Theme, "theme", "", "colour theme: auto, dark, light, high-contrast, none (default: the config's theme, else from the terminal background; NO_COLOR disables colour)")
	pf.DurationVar(&c.SessionTimeout, "session-timeout", 0, "session timeout to request (default: the context's session_timeout, else 10s)")
	pf.DurationVar(&c.ConnectTimeout, "connect-timeout", 0, "give up connecting after this long (default: the session timeout)")
}

// checkGlobalFlags refuses connection flags that cannot work before
// anything is tried.
func checkGlobalFlags(cmd *cobra.Command, f *cmdutil.Factory) error {
	fl := cmd.Flags()
	c := f.Flags
	if fl.Changed("server") && strings.TrimSpace(c.Server) == "" {
		return cmdutil.Usagef("--server is empty: give host:port[,host:port...][/chroot], or leave it out for 127.0.0.1:2181")
	}
	if fl.Changed("session-timeout") && c.SessionTimeout <= 0 {
		return cmdutil.Usagef("--session-timeout %s: must be positive (e.g. 10s)", c.SessionTimeout)
	}
	if c.ConnectTimeout < 0 {
		return cmdutil.Usagef("--connect-timeout %s: must be positive (e.g. 5s)", c.ConnectTimeout)
	}
	if f.Theme != "" {
		if err := themes.Valid(f.Theme); err != nil {
			return cmdutil.Usagef("--theme: %w", err)
		}
	}
	return nil
}
