package version

// The hidden man command: the man pages, generated from the commands.

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/zkscope/zkscope/cmd/cmdutil"
)

// NewCmdMan is the hidden `zkscope man DIR`.
func NewCmdMan(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write zkscope's man pages (section 1), generated from the commands, into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			hdr := &doc.GenManHeader{Title: "ZKSCOPE", Section: "1", Source: "zkscope " + Build(f.Version).Version, Manual: "zkscope manual"}
			if err := doc.GenManTree(root, hdr, args[0]); err != nil {
				return fmt.Errorf("write man pages: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "man pages written to %s (try: man %s/zkscope.1)\n", args[0], args[0])
			return nil
		},
	}
}
