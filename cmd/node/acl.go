package node

// getacl and setacl.

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

const getACLLong = `Print a znode's ACL as setacl takes it: one scheme:id:perms entry per line
(world:anyone:cdrwa, digest:user:hash:r, ip:10.0.0.0/8:cdrwa), and its ACL
version. -o json or -o yaml for scripts.`

// getACLOptions are `zkscope getacl`'s.
type getACLOptions struct {
	Path        string
	Output      string
	Out, ErrOut io.Writer
}

// NewCmdGetACL is `zkscope getacl`.
func NewCmdGetACL(f *cmdutil.Factory) *cobra.Command {
	var o getACLOptions
	cmd := &cobra.Command{
		Use:   "getacl PATH",
		Short: "Print a znode's ACL, one scheme:id:perms entry per line",
		Long:  getACLLong,
		Example: `  zkscope getacl /app/config
  zkscope getacl /app/config -o json`,
		Args:              cobra.MatchAll(cobra.ExactArgs(1), cmdutil.ZnodeArgs(1)),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Path, o.Out, o.ErrOut = args[0], cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runGetACL(cmd.Context(), f, o)
		},
	}
	cmdutil.OutputFlag(cmd, &o.Output)
	return cmd
}

// runGetACL prints o.Path's ACL.
func runGetACL(ctx context.Context, f *cmdutil.Factory, o getACLOptions) error {
	if err := cmdutil.CheckOutput(o.Output); err != nil {
		return err
	}
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	acl, st, err := c.GetACL(o.Path)
	if err != nil {
		return err
	}
	if o.Output != "" {
		doc := aclDoc{Path: o.Path, ACLVersion: st.Aversion}
		for _, a := range acl {
			doc.ACL = append(doc.ACL, aclEntry{Scheme: a.Scheme, ID: a.ID, Perms: zkview.FormatPerms(a.Perms)})
		}
		return cmdutil.WriteDoc(o.Out, o.Output, doc)
	}
	for _, a := range acl {
		fmt.Fprintln(o.Out, printable.String(zkview.FormatACL(a)))
	}
	if cmdutil.IsTerminal(os.Stdout) {
		fmt.Fprintf(o.ErrOut, "(ACL version %d)\n", st.Aversion)
	}
	return nil
}

const setACLLong = `Replace a znode's ACL with ACL: comma-separated scheme:id:perms entries as
zkCli's setAcl takes them (perms: some of c d r w a). The change is
conditioned on the node's ACL version (--version, else the one read just
before). Refused in read-only mode; recorded in the audit log.

Careful: an ACL without your own credentials' admin (a) permission locks you
out of changing it again.`

// NewCmdSetACL is `zkscope setacl`.
func NewCmdSetACL(f *cmdutil.Factory) *cobra.Command {
	var version int32
	cmd := &cobra.Command{
		Use:   "setacl PATH ACL",
		Short: "Replace a znode's ACL (scheme:id:perms[,...]; version-checked)",
		Long:  setACLLong,
		Example: `  zkscope setacl /app/config world:anyone:r,digest:admin:xyz=:cdrwa
  zkscope setacl /app/config ip:10.0.0.0/8:cdrwa --version 2`,
		Args:              cobra.MatchAll(cobra.ExactArgs(2), cmdutil.ZnodeArgs(1)),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer cmdutil.ReportAuditErrors()
			return runSetACL(cmd.Context(), f, cmd.OutOrStdout(), args[0], args[1], version)
		},
	}
	versionFlag(cmd, &version, "ACL version")
	return cmd
}

// runSetACL replaces p's ACL with the one aclText spells.
func runSetACL(ctx context.Context, f *cmdutil.Factory, out io.Writer, p, aclText string, version int32) error {
	acl, err := zkview.ParseACL(aclText)
	if err != nil {
		return cmdutil.Usage(err)
	}
	if err := checkVersion(version); err != nil {
		return err
	}
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, st, err := c.GetACL(p)
	if err != nil {
		return err
	}
	nst, err := audit.Mutations{Client: c}.SetACL(ctx, p, acl, expectVersion(version, st.Aversion))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: ACL version %d\n", p, nst.Aversion)
	return nil
}
