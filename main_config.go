package main

// The config subcommands: list, show and switch the config file's
// contexts, as kubectl config does.

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/config"
)

func newConfigCmd() *cobra.Command {
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
	cmd.AddCommand(newGetContextsCmd(), newUseContextCmd(), newCurrentContextCmd())
	return cmd
}

// loadConfig reads the config file the flags select (a missing default
// file is an empty config).
func loadConfig() (*config.File, string, error) {
	path, explicit := config.FilePath(conn, os.Getenv)
	fc, err := config.LoadFile(path, explicit)
	return fc, path, err
}

// currentContext is the context in use: --context, else ZKSCOPE_CONTEXT,
// else the file's current_context.
func currentContext(fc *config.File) string {
	switch {
	case conn.Context != "":
		return conn.Context
	case os.Getenv("ZKSCOPE_CONTEXT") != "":
		return os.Getenv("ZKSCOPE_CONTEXT")
	}
	return fc.CurrentContext
}

func newGetContextsCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "get-contexts",
		Short: "List the contexts (* marks the current one)",
		Example: `  zkscope config get-contexts
  zkscope config get-contexts -o name`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "" && output != "name" {
				return usagef("--output %q: want name", output)
			}
			fc, path, err := loadConfig()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if output == "name" {
				for _, n := range fc.ContextNames() {
					fmt.Fprintln(w, n)
				}
				return nil
			}
			if len(fc.Contexts) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "no contexts in %s\n", path)
				return nil
			}
			cur := currentContext(fc)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
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
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "name: print the names only")
	return cmd
}

func newUseContextCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "use-context NAME",
		Short:             "Make NAME the config file's current_context",
		Example:           `  zkscope config use-context prod`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeContexts,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, _ := config.FilePath(conn, os.Getenv)
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("no config file %s: write one with a [contexts.%s] table first (see the README)", path, args[0])
			}
			if err := knownContext(path, args[0]); err != nil {
				return err
			}
			if err := config.SetCurrentContext(path, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Switched to context %q.\n", args[0])
			return nil
		},
	}
}

func newCurrentContextCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "current-context",
		Short: "Print the context in use (--context, ZKSCOPE_CONTEXT or the file's current_context)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fc, path, err := loadConfig()
			if err != nil {
				return err
			}
			cur := currentContext(fc)
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
	return usagef("no context %q in %s (known: %s)", name, path, known)
}
