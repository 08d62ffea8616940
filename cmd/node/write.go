package node

// create and set: a node's data written through audit.Mutations.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// dataFlag is the DATA argument or --data-file of create and set.
type dataFlag struct{ file string }

func (d *dataFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&d.file, "data-file", "f", "", "read the data from this file (- for stdin) instead of the DATA argument")
}

// read returns the data: args[i] if given, else the file's contents
// (stdin for -).
func (d *dataFlag) read(stdin io.Reader, args []string, i int) ([]byte, error) {
	switch {
	case len(args) > i && d.file != "":
		return nil, cmdutil.Usagef("give the data either as DATA or with --data-file, not both")
	case len(args) > i:
		return []byte(args[i]), nil
	case d.file == "-":
		return io.ReadAll(stdin)
	case d.file != "":
		b, err := os.ReadFile(d.file)
		if err != nil {
			return nil, cmdutil.Usagef("--data-file: %w", err)
		}
		return b, nil
	}
	return nil, nil
}

const createLong = `Create a znode with DATA (or --data-file), world-readable and writable as zkCli
does. Prints the path created (with its sequence number for sequential modes).
Refused in read-only mode; recorded in the audit log.

Ephemeral nodes are not offered: they would vanish as zkscope exits (take a
lock with 'zkscope lock', or create them in the TUI).`

// createOptions are `zkscope create`'s.
type createOptions struct {
	Mode    string
	TTL     time.Duration
	Parents bool
	Data    dataFlag
}

// NewCmdCreate is `zkscope create`.
func NewCmdCreate(f *cmdutil.Factory) *cobra.Command {
	var o createOptions
	cmd := &cobra.Command{
		Use:   "create PATH [DATA]",
		Short: "Create a znode",
		Long:  createLong,
		Example: `  zkscope create /app/config '{"replicas":3}'
  zkscope create /app/jobs/job- --mode sequential
  zkscope create /app/a/b/c --parents
  zkscope create /app/tmp --mode ttl --ttl 1h
  zkscope create /app/blob --data-file blob.bin`,
		Args:              cobra.MatchAll(cobra.RangeArgs(1, 2), cmdutil.ZnodeArgs(1)),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer cmdutil.ReportAuditErrors()
			return runCreate(cmd, f, o, args)
		},
	}
	cmd.Flags().StringVar(&o.Mode, "mode", "persistent", strings.Join(zkview.CreateModeNames()[:4], ", ")+" or "+zkview.CreateModeNames()[4])
	cmd.RegisterFlagCompletionFunc("mode", cmdutil.Fixed(zkview.CreateModeNames()...))
	cmd.Flags().DurationVar(&o.TTL, "ttl", 0, "with --mode ttl: delete the node after this long without a change or a child (the servers need zookeeper.extendedTypesEnabled=true)")
	cmd.Flags().BoolVarP(&o.Parents, "parents", "p", false, "create missing parents (persistent, open ACL)")
	o.Data.register(cmd)
	return cmd
}

// runCreate creates args[0] with the data given.
func runCreate(cmd *cobra.Command, f *cmdutil.Factory, o createOptions, args []string) error {
	m, ok := zkview.ParseCreateMode(o.Mode)
	if !ok {
		return cmdutil.Usagef("--mode %q: want one of %s", o.Mode, strings.Join(zkview.CreateModeNames(), ", "))
	}
	opts := zkview.CreateOptions{Mode: m, TTL: o.TTL, MakeParents: o.Parents}
	if cmd.Flags().Changed("ttl") && m != zkview.ModeTTL && m != zkview.ModePersistentSequentialTTL {
		return cmdutil.Usagef("create %s: --ttl applies to the ttl modes only (--mode ttl or persistent-sequential-ttl), not %s", args[0], m)
	}
	if err := zkview.CheckCreate(args[0], opts); err != nil {
		return cmdutil.Usage(err)
	}
	b, err := o.Data.read(cmd.InOrStdin(), args, 1)
	if err != nil {
		return err
	}
	c, err := f.Connect(cmd.Context())
	if err != nil {
		return err
	}
	defer c.Close()
	created, err := audit.Mutations{Client: c}.CreateWith(cmd.Context(), args[0], b, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), printable.String(created))
	return nil
}

// versionFlag is --version of set, delete and setacl: the version the node
// must have; by default the one read just before the change.
func versionFlag(cmd *cobra.Command, v *int32, what string) {
	cmd.Flags().Int32Var(v, "version", -1, "change only if the node's "+what+" is this (default: the one read just before; the change is refused if it moved meanwhile)")
}

// checkVersion refuses a --version no node can have (-1, the default,
// means the one read just before the change).
func checkVersion(v int32) error {
	if v < -1 {
		return cmdutil.Usagef("--version %d: must be 0 or more", v)
	}
	return nil
}

// expectVersion is v, or (v < 0) the version read from st.
func expectVersion(v, current int32) int32 {
	if v >= 0 {
		return v
	}
	return current
}

const setLong = `Replace a znode's data with DATA (or --data-file; nothing: empty data). The
write is conditioned on the node's version: the one given with --version, else
the one read just before, so a change made meanwhile is never overwritten.
Refused in read-only mode; recorded in the audit log.`

// setOptions are `zkscope set`'s.
type setOptions struct {
	Version int32
	Data    dataFlag
}

// NewCmdSet is `zkscope set`.
func NewCmdSet(f *cmdutil.Factory) *cobra.Command {
	var o setOptions
	cmd := &cobra.Command{
		Use:   "set PATH [DATA]",
		Short: "Write a znode's data (version-checked)",
		Long:  setLong,
		Example: `  zkscope set /app/config '{"replicas":4}'
  zkscope set /app/config --data-file config.json --version 7
  generate-config | zkscope set /app/config -f -`,
		Args:              cobra.MatchAll(cobra.RangeArgs(1, 2), cmdutil.ZnodeArgs(1)),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer cmdutil.ReportAuditErrors()
			return runSet(cmd, f, o, args)
		},
	}
	versionFlag(cmd, &o.Version, "data version")
	o.Data.register(cmd)
	return cmd
}

// runSet writes args[0]'s data, conditioned on its version.
func runSet(cmd *cobra.Command, f *cmdutil.Factory, o setOptions, args []string) error {
	if err := checkVersion(o.Version); err != nil {
		return err
	}
	b, err := o.Data.read(cmd.InOrStdin(), args, 1)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	p := args[0]
	n, err := c.Get(p)
	if err != nil {
		return err
	}
	want := expectVersion(o.Version, n.Stat.Version)
	st, err := audit.Mutations{Client: c}.Set(ctx, p, b, want)
	if errors.Is(err, zk.ErrBadVersion) {
		return audit.VersionConflict(c, "set", p, want)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: version %d\n", p, st.Version)
	return nil
}
