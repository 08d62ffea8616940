package node

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/zkview"
)

const deleteLong = `Delete a znode, conditioned on its version (--version, else the one read just
before). A node with children needs --recursive, which deletes the subtree
bottom-up in atomic batches and stops if PATH itself changes.

On a terminal zkscope asks first (--yes skips the question); without one a
single node is deleted as asked, but --recursive needs --yes. Refused in
read-only mode; recorded in the audit log.`

// deleteOptions are `zkscope delete`'s.
type deleteOptions struct {
	Path           string
	Version        int32
	Recursive, Yes bool
	In             io.Reader
	Out, ErrOut    io.Writer
}

// NewCmdDelete is `zkscope delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	var o deleteOptions
	cmd := &cobra.Command{
		Use:   "delete PATH",
		Short: "Delete a znode (--recursive: and everything below it)",
		Long:  deleteLong,
		Example: `  zkscope delete /app/old-flag
  zkscope delete /app/jobs --recursive
  zkscope delete /app/jobs --recursive --yes   # from a script`,
		Aliases:           []string{"rm"},
		Args:              cobra.MatchAll(cobra.ExactArgs(1), cmdutil.ZnodeArgs(1)),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer cmdutil.ReportAuditErrors()
			o.Path, o.In, o.Out, o.ErrOut = args[0], cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runDelete(cmd.Context(), f, o)
		},
	}
	versionFlag(cmd, &o.Version, "data version")
	cmd.Flags().BoolVarP(&o.Recursive, "recursive", "r", false, "delete everything below PATH too")
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "do not ask (needed for --recursive without a terminal)")
	return cmd
}

// runDelete deletes o.Path (and with --recursive the tree below it).
func runDelete(ctx context.Context, f *cmdutil.Factory, o deleteOptions) error {
	if err := checkVersion(o.Version); err != nil {
		return err
	}
	if err := refuseServerNodes(f, o.Path); err != nil {
		return err
	}
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	p := o.Path
	if err := c.RefuseReadOnly("delete", p); err != nil {
		return audit.Mutations{Client: c}.Delete(ctx, p, o.Version) // refused and audited
	}
	n, err := c.Get(p)
	if err != nil {
		return err
	}
	v := expectVersion(o.Version, n.Stat.Version)
	if n.Stat.NumChildren > 0 && !o.Recursive {
		return fmt.Errorf("delete %s: it has %d children (add --recursive to delete them too)", p, n.Stat.NumChildren)
	}
	if !o.Yes {
		if err := confirmDelete(o, c, n.Stat); err != nil {
			return err
		}
	}
	mut := audit.Mutations{Client: c}
	if o.Recursive {
		deleted := 0
		if err := mut.DeleteTree(ctx, p, v, func(n int) { deleted = n }); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "deleted %s (%d nodes)\n", p, deleted)
		return nil
	}
	if err := mut.Delete(ctx, p, v); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "deleted %s\n", p)
	return nil
}

// confirmDelete asks at the terminal. Without one, a single node goes as
// asked; a subtree is refused (a script passes --yes).
func confirmDelete(o deleteOptions, c *zkview.Client, st zk.Stat) error {
	p := o.Path
	in, ok := cmdutil.ReaderIsTerminal(o.In)
	if !ok {
		if o.Recursive {
			return audit.Refuse(c, lockops.OpDelete, p, 0, "stdin is not a terminal, so nobody can confirm deleting a subtree; pass --yes")
		}
		return nil
	}
	name := path.Base(p)
	if o.Recursive && st.NumChildren > 0 {
		fmt.Fprintf(o.ErrOut, "Delete %s, its %d children and everything below them? Type %q to confirm: ", p, st.NumChildren, name)
	} else {
		fmt.Fprintf(o.ErrOut, "Delete %s (version %d, %d bytes)? [y/N] ", p, st.Version, st.DataLength)
		name = "y"
	}
	line, _ := bufio.NewReader(in).ReadString('\n')
	if typed := strings.TrimSpace(line); typed != name && !(name == "y" && strings.EqualFold(typed, "yes")) {
		return audit.Refuse(c, lockops.OpDelete, p, 0, "not confirmed: nothing deleted")
	}
	return nil
}

// refuseServerNodes refuses, before connecting, to delete the root or the
// server's own /zookeeper tree (its quotas and configuration), which no
// server lets a client delete; under a chroot "/" is the application's
// root, and is the servers' to judge.
func refuseServerNodes(f *cmdutil.Factory, p string) error {
	cfg, err := f.ZooKeeper()
	if err != nil || cfg.Chroot != "" {
		return err
	}
	if p == "/" || p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/") {
		return cmdutil.Usagef("delete %s: the root and the server's own /zookeeper tree cannot be deleted", p)
	}
	return nil
}
