package main

// The create, set, delete, getacl and setacl subcommands: plain znode
// changes through audit.Mutations, so each is version-checked, refused in
// read-only mode and audited exactly as the TUI's.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// createModes are the --mode values of create, by name.
var createModes = map[string]zkview.CreateMode{
	"persistent":                zkview.ModePersistent,
	"sequential":                zkview.ModeSequential,
	"persistent-sequential":     zkview.ModeSequential,
	"container":                 zkview.ModeContainer,
	"ttl":                       zkview.ModeTTL,
	"persistent-sequential-ttl": zkview.ModePersistentSequentialTTL,
}

// createModeNames are the documented --mode values (completion, help).
var createModeNames = []string{"persistent", "sequential", "container", "ttl", "persistent-sequential-ttl"}

// dataFlag is the DATA argument or --data-file of create and set.
type dataFlag struct{ file string }

func (d *dataFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&d.file, "data-file", "f", "", "read the data from this file (- for stdin) instead of the DATA argument")
}

// read returns the data: args[i] if given, else the file's contents.
func (d *dataFlag) read(cmd *cobra.Command, args []string, i int) ([]byte, error) {
	switch {
	case len(args) > i && d.file != "":
		return nil, usagef("give the data either as DATA or with --data-file, not both")
	case len(args) > i:
		return []byte(args[i]), nil
	case d.file == "-":
		return io.ReadAll(cmd.InOrStdin())
	case d.file != "":
		b, err := os.ReadFile(d.file)
		if err != nil {
			return nil, usagef("--data-file: %w", err)
		}
		return b, nil
	}
	return nil, nil
}

func newCreateCmd() *cobra.Command {
	var (
		mode    string
		ttl     time.Duration
		parents bool
		data    dataFlag
	)
	cmd := &cobra.Command{
		Use:   "create PATH [DATA]",
		Short: "Create a znode",
		Long: `Create a znode with DATA (or --data-file), world-readable and writable as zkCli
does. Prints the path created (with its sequence number for sequential modes).
Refused in read-only mode; recorded in the audit log.

Ephemeral nodes are not offered: they would vanish as zkscope exits (take a
lock with 'zkscope lock', or create them in the TUI).`,
		Example: `  zkscope create /app/config '{"replicas":3}'
  zkscope create /app/jobs/job- --mode sequential
  zkscope create /app/a/b/c --parents
  zkscope create /app/tmp --mode ttl --ttl 1h
  zkscope create /app/blob --data-file blob.bin`,
		Args:              cobra.MatchAll(cobra.RangeArgs(1, 2), znodeArgs(1)),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer reportAuditErrors()
			m, ok := createModes[mode]
			if !ok {
				return usagef("--mode %q: want one of %s", mode, strings.Join(createModeNames, ", "))
			}
			opts := zkview.CreateOptions{Mode: m, TTL: ttl, MakeParents: parents}
			if err := zkview.CheckCreate(args[0], opts); err != nil {
				return usage(err)
			}
			b, err := data.read(cmd, args, 1)
			if err != nil {
				return err
			}
			c, err := connect(cmd.Context())
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
		},
	}
	cmd.Flags().StringVar(&mode, "mode", "persistent", "persistent, sequential, container, ttl or persistent-sequential-ttl")
	cmd.Flags().DurationVar(&ttl, "ttl", 0, "with --mode ttl: delete the node after this long without a change or a child (the servers need zookeeper.extendedTypesEnabled=true)")
	cmd.Flags().BoolVarP(&parents, "parents", "p", false, "create missing parents (persistent, open ACL)")
	data.register(cmd)
	return cmd
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
		return usagef("--version %d: must be 0 or more", v)
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

func newSetCmd() *cobra.Command {
	var (
		version int32
		data    dataFlag
	)
	cmd := &cobra.Command{
		Use:   "set PATH [DATA]",
		Short: "Write a znode's data (version-checked)",
		Long: `Replace a znode's data with DATA (or --data-file; nothing: empty data). The
write is conditioned on the node's version: the one given with --version, else
the one read just before, so a change made meanwhile is never overwritten.
Refused in read-only mode; recorded in the audit log.`,
		Example: `  zkscope set /app/config '{"replicas":4}'
  zkscope set /app/config --data-file config.json --version 7
  generate-config | zkscope set /app/config -f -`,
		Args:              cobra.MatchAll(cobra.RangeArgs(1, 2), znodeArgs(1)),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer reportAuditErrors()
			if err := checkVersion(version); err != nil {
				return err
			}
			b, err := data.read(cmd, args, 1)
			if err != nil {
				return err
			}
			c, err := connect(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			p := args[0]
			n, err := c.Get(p)
			if err != nil {
				return err
			}
			want := expectVersion(version, n.Stat.Version)
			st, err := audit.Mutations{Client: c}.Set(cmd.Context(), p, b, want)
			if errors.Is(err, zk.ErrBadVersion) {
				return audit.VersionConflict(c, "set", p, want)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: version %d\n", p, st.Version)
			return nil
		},
	}
	versionFlag(cmd, &version, "data version")
	data.register(cmd)
	return cmd
}

func newDeleteCmd() *cobra.Command {
	var (
		version        int32
		recursive, yes bool
	)
	cmd := &cobra.Command{
		Use:   "delete PATH",
		Short: "Delete a znode (--recursive: and everything below it)",
		Long: `Delete a znode, conditioned on its version (--version, else the one read just
before). A node with children needs --recursive, which deletes the subtree
bottom-up in atomic batches and stops if PATH itself changes.

On a terminal zkscope asks first (--yes skips the question); without one a
single node is deleted as asked, but --recursive needs --yes. Refused in
read-only mode; recorded in the audit log.`,
		Example: `  zkscope delete /app/old-flag
  zkscope delete /app/jobs --recursive
  zkscope delete /app/jobs --recursive --yes   # from a script`,
		Aliases:           []string{"rm"},
		Args:              cobra.MatchAll(cobra.ExactArgs(1), znodeArgs(1)),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer reportAuditErrors()
			if err := checkVersion(version); err != nil {
				return err
			}
			c, err := connect(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			p := args[0]
			if err := c.RefuseReadOnly("delete", p); err != nil {
				return audit.Mutations{Client: c}.Delete(cmd.Context(), p, version) // refused and audited
			}
			n, err := c.Get(p)
			if err != nil {
				return err
			}
			v := expectVersion(version, n.Stat.Version)
			if n.Stat.NumChildren > 0 && !recursive {
				return fmt.Errorf("delete %s: it has %d children (add --recursive to delete them too)", p, n.Stat.NumChildren)
			}
			if !yes {
				if err := confirmDelete(cmd, c, p, n.Stat, recursive); err != nil {
					return err
				}
			}
			mut := audit.Mutations{Client: c}
			if recursive {
				deleted := 0
				if err := mut.DeleteTree(cmd.Context(), p, v, func(n int) { deleted = n }); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "deleted %s (%d nodes)\n", p, deleted)
				return nil
			}
			if err := mut.Delete(cmd.Context(), p, v); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", p)
			return nil
		},
	}
	versionFlag(cmd, &version, "data version")
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "delete everything below PATH too")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask (needed for --recursive without a terminal)")
	return cmd
}

// confirmDelete asks at the terminal. Without one, a single node goes as
// asked; a subtree is refused (a script passes --yes).
func confirmDelete(cmd *cobra.Command, c *zkview.Client, p string, st zk.Stat, recursive bool) error {
	in, ok := cmd.InOrStdin().(*os.File)
	if !ok || !isTerminal(in) {
		if recursive {
			return audit.Refuse(c, lockops.OpDelete, p, 0, "stdin is not a terminal, so nobody can confirm deleting a subtree; pass --yes")
		}
		return nil
	}
	out := cmd.ErrOrStderr()
	name := path.Base(p)
	if recursive && st.NumChildren > 0 {
		fmt.Fprintf(out, "Delete %s, its %d children and everything below them? Type %q to confirm: ", p, st.NumChildren, name)
	} else {
		fmt.Fprintf(out, "Delete %s (version %d, %d bytes)? [y/N] ", p, st.Version, st.DataLength)
		name = "y"
	}
	line, _ := bufio.NewReader(in).ReadString('\n')
	if typed := strings.TrimSpace(line); typed != name && !(name == "y" && strings.EqualFold(typed, "yes")) {
		return audit.Refuse(c, lockops.OpDelete, p, 0, "not confirmed: nothing deleted")
	}
	return nil
}

func newGetACLCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "getacl PATH",
		Short: "Print a znode's ACL, one scheme:id:perms entry per line",
		Long: `Print a znode's ACL as setacl takes it: one scheme:id:perms entry per line
(world:anyone:cdrwa, digest:user:hash:r, ip:10.0.0.0/8:cdrwa), and its ACL
version. -o json or -o yaml for scripts.`,
		Example: `  zkscope getacl /app/config
  zkscope getacl /app/config -o json`,
		Args:              cobra.MatchAll(cobra.ExactArgs(1), znodeArgs(1)),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			c, err := connect(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			acl, st, err := c.GetACL(args[0])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if output != "" {
				doc := aclDoc{Path: args[0], ACLVersion: st.Aversion}
				for _, a := range acl {
					doc.ACL = append(doc.ACL, aclEntry{Scheme: a.Scheme, ID: a.ID, Perms: zkview.FormatPerms(a.Perms)})
				}
				return writeDoc(w, output, doc)
			}
			for _, a := range acl {
				fmt.Fprintln(w, printable.String(zkview.FormatACL(a)))
			}
			if isTerminal(os.Stdout) {
				fmt.Fprintf(cmd.ErrOrStderr(), "(ACL version %d)\n", st.Aversion)
			}
			return nil
		},
	}
	outputFlag(cmd, &output)
	return cmd
}

// aclDoc is getacl's -o json|yaml document.
type aclDoc struct {
	Path       string     `json:"path" yaml:"path"`
	ACLVersion int32      `json:"acl_version" yaml:"acl_version"`
	ACL        []aclEntry `json:"acl" yaml:"acl"`
}

type aclEntry struct {
	Scheme string `json:"scheme" yaml:"scheme"`
	ID     string `json:"id" yaml:"id"`
	Perms  string `json:"perms" yaml:"perms"`
}

func newSetACLCmd() *cobra.Command {
	var version int32
	cmd := &cobra.Command{
		Use:   "setacl PATH ACL",
		Short: "Replace a znode's ACL (scheme:id:perms[,...]; version-checked)",
		Long: `Replace a znode's ACL with ACL: comma-separated scheme:id:perms entries as
zkCli's setAcl takes them (perms: some of c d r w a). The change is
conditioned on the node's ACL version (--version, else the one read just
before). Refused in read-only mode; recorded in the audit log.

Careful: an ACL without your own credentials' admin (a) permission locks you
out of changing it again.`,
		Example: `  zkscope setacl /app/config world:anyone:r,digest:admin:xyz=:cdrwa
  zkscope setacl /app/config ip:10.0.0.0/8:cdrwa --version 2`,
		Args:              cobra.MatchAll(cobra.ExactArgs(2), znodeArgs(1)),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer reportAuditErrors()
			acl, err := zkview.ParseACL(args[1])
			if err != nil {
				return usage(err)
			}
			if err := checkVersion(version); err != nil {
				return err
			}
			c, err := connect(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			p := args[0]
			_, st, err := c.GetACL(p)
			if err != nil {
				return err
			}
			nst, err := audit.Mutations{Client: c}.SetACL(cmd.Context(), p, acl, expectVersion(version, st.Aversion))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ACL version %d\n", p, nst.Aversion)
			return nil
		},
	}
	versionFlag(cmd, &version, "ACL version")
	return cmd
}
