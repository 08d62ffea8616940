// Package config is `zkscope config`: list, show and switch the config
// file's contexts, as kubectl config does. Reading and writing the file
// is the config package's (this package's namesake at the top).
package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/config"
)

// NewCmdConfig is `zkscope config` and its subcommands.
func NewCmdConfig(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "List, show and switch contexts of the config file",
		Long: `Work with the contexts of the config file ($XDG_CONFIG_HOME/zkscope/config.toml,
or --config FILE).`,
		Example: `  zkscope config get-contexts
  zkscope config use-context prod
  zkscope config current-context`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCmdGetContexts(f), newCmdUseContext(f), newCmdCurrentContext(f))
	return cmd
}

// getContextsOptions are get-contexts'.
type getContextsOptions struct {
	Output      string // -o: "" or name
	Out, ErrOut io.Writer
}

func newCmdGetContexts(f *cmdutil.Factory) *cobra.Command {
	var o getContextsOptions
	cmd := &cobra.Command{
		Use:   "get-contexts",
		Short: "List the contexts (* marks the current one)",
		Example: `  zkscope config get-contexts
  zkscope config get-contexts -o name`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out, o.ErrOut = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runGetContexts(f, o)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "name: print the names only")
	cmd.RegisterFlagCompletionFunc("output", cmdutil.Fixed("name"))
	return cmd
}

// runGetContexts lists the contexts, the current one marked.
func runGetContexts(f *cmdutil.Factory, o getContextsOptions) error {
	if o.Output != "" && o.Output != "name" {
		return cmdutil.Usagef("--output %q: want name", o.Output)
	}
	fc, path, err := f.ConfigFile()
	if err != nil {
		return err
	}
	if o.Output == "name" {
		for _, n := range fc.ContextNames() {
			fmt.Fprintln(o.Out, n)
		}
		return nil
	}
	if len(fc.Contexts) == 0 {
		fmt.Fprintf(o.ErrOut, "no contexts in %s\n", path)
		return nil
	}
	cur := f.ContextName(fc)
	tw := tabwriter.NewWriter(o.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CURRENT\tNAME\tSERVERS\tREAD-ONLY")
	for _, n := range fc.ContextNames() {
		mark := ""
		if n == cur {
			mark = "*"
		}
		ctx := fc.Contexts[n]
		ro := ""
		if ctx.ReadOnly {
			ro = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", mark, n, ctx.Servers, ro)
	}
	return tw.Flush()
}

func newCmdUseContext(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "use-context NAME",
		Short:             "Make NAME the config file's current_context",
		Example:           `  zkscope config use-context prod`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: f.CompleteContexts,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUseContext(f, cmd.OutOrStdout(), args[0])
		},
	}
}

// runUseContext makes name the file's current context.
func runUseContext(f *cmdutil.Factory, out io.Writer, name string) error {
	path, _ := config.FilePath(f.Flags, f.Getenv)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no config file %s: write one with a [contexts.%s] table first (see the README)", path, name)
	}
	if err := knownContext(path, name); err != nil {
		return err
	}
	if err := config.SetCurrentContext(path, name); err != nil {
		return err
	}
	fmt.Fprintf(out, "Switched to context %q.\n", name)
	return nil
}

func newCmdCurrentContext(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "current-context",
		Short: "Print the context in use (--context, ZKSCOPE_CONTEXT or the file's current_context)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fc, path, err := f.ConfigFile()
			if err != nil {
				return err
			}
			cur := f.ContextName(fc)
			if cur == "" {
				return fmt.Errorf("no current context in %s (set one with: zkscope config use-context NAME)", path)
			}
			fmt.Fprintln(cmd.OutOrStdout(), cur)
			return nil
		},
	}
}

// knownContext refuses, as a usage error, a context name the config file
// at path does not define.
func knownContext(path, name string) error {
	fc, err := config.LoadFile(path, true)
	if err != nil {
		return err
	}
	if _, ok := fc.Contexts[name]; ok {
		return nil
	}
	known := "none"
	if names := fc.ContextNames(); len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	return cmdutil.Usagef("no context %q in %s (known: %s)", name, path, known)
}
