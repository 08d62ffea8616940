package node

// tree and get: plain, scriptable reads.

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/treeprint"
)

const treeLong = `Print the znodes below PATH (default /), one per line, indented. Listings and
stats are packed into bulk requests, read ahead in the order the tree is
printed, and printed as they come, so big trees and big child lists are
cheap and memory does not grow with the tree (-o json and -o yaml build the
whole document first). A node the session may not read (or that vanished
meanwhile) is marked "! reason" and the rest is printed.

Markers: [E 0x…] ephemeral with its owner session, (N) child count. (The
servers report container and TTL nodes to clients as plain persistent nodes,
so they cannot be marked.) -o json or -o yaml prints the tree as nested
documents (path, children; with --stat each node's stat).`

// treeOptions are `zkscope tree`'s.
type treeOptions struct {
	Path        string
	Depth       int
	Stats       bool
	Output      string
	Out, ErrOut io.Writer
}

// NewCmdTree is `zkscope tree`.
func NewCmdTree(f *cmdutil.Factory) *cobra.Command {
	var o treeOptions
	cmd := &cobra.Command{
		Use:   "tree [PATH]",
		Short: "Print the znode tree below PATH",
		Long:  treeLong,
		Example: `  zkscope tree /app
  zkscope tree /app/locks --depth 1 --stat
  zkscope tree /app -o json | jq -r '.. | .path? // empty'
  zkscope -s zk1:2181/chroot tree`,
		Args:              cobra.MatchAll(cobra.MaximumNArgs(1), cmdutil.ZnodeArgs(1)),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Path = cmdutil.PathArg(args)
			o.Out, o.ErrOut = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runTree(cmd.Context(), f, o)
		},
	}
	cmd.Flags().IntVarP(&o.Depth, "depth", "d", 0, "levels to print below PATH (0: all)")
	cmd.Flags().BoolVar(&o.Stats, "stat", false, "show data length, version and modification time")
	cmdutil.OutputFlag(cmd, &o.Output)
	return cmd
}

// runTree prints the tree below o.Path.
func runTree(ctx context.Context, f *cmdutil.Factory, o treeOptions) error {
	if o.Depth < 0 {
		return cmdutil.Usagef("--depth %d: must be 0 (all levels) or more", o.Depth)
	}
	if err := cmdutil.CheckOutput(o.Output); err != nil {
		return err
	}
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	top, err := c.Get(o.Path)
	if err != nil {
		return err // "read PATH: ..."
	}
	// On a terminal the lines themselves show the walk going.
	prog := cmdutil.NewProgressLine(o.ErrOut, o.Output == "" && !cmdutil.WriterIsTerminal(o.Out), false)
	if o.Output != "" {
		t, err := treeprint.Read(ctx, c, top, o.Depth, prog)
		if err != nil {
			return err
		}
		doc := nodeDocOf(top, false, o.Stats)
		treeDoc(t, doc, top, o.Stats)
		return cmdutil.WriteDoc(o.Out, o.Output, doc)
	}
	safe := func(s string) string { return s }
	if cmdutil.WriterIsTerminal(o.Out) {
		safe = printable.String
	}
	return treeprint.Print(ctx, c, o.Out, top, o.Path, treeprint.Format{Depth: o.Depth, Stats: o.Stats, Safe: safe}, prog)
}

const getLong = `Print a znode's data: text as stored, binary data (not valid UTF-8) as a hex
dump (--hex forces a dump), and with --stat the full stat in zkCli's layout.
On a terminal, control characters in the text (escape sequences) are shown
escaped (\x1b); --raw writes the data's exact bytes and nothing else.
-o json or -o yaml prints path, data (base64 when binary, with
"data_encoding") and stat.`

// getOptions are `zkscope get`'s.
type getOptions struct {
	Path           string
	Stat, Hex, Raw bool
	Output         string
	Out            io.Writer
}

// NewCmdGet is `zkscope get`.
func NewCmdGet(f *cmdutil.Factory) *cobra.Command {
	var o getOptions
	cmd := &cobra.Command{
		Use:   "get PATH",
		Short: "Print a znode's data and stat",
		Long:  getLong,
		Example: `  zkscope get /app/config
  zkscope get /app/locks/orders/_c_…-lock-0000000007 --stat
  zkscope get /app/config -o json | jq .stat.version
  zkscope get /blob --raw > blob.bin
  zkscope get /blob --hex | less`,
		Args:              cobra.MatchAll(cobra.ExactArgs(1), cmdutil.ZnodeArgs(1)),
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Path, o.Out = args[0], cmd.OutOrStdout()
			return runGet(cmd.Context(), f, o)
		},
	}
	cmd.Flags().BoolVar(&o.Stat, "stat", false, "print the stat after the data")
	cmd.Flags().BoolVar(&o.Hex, "hex", false, "print the data as a hex dump")
	cmd.Flags().BoolVar(&o.Raw, "raw", false, "write the data's exact bytes, nothing else (no newline, no escaping)")
	cmdutil.OutputFlag(cmd, &o.Output)
	return cmd
}

// runGet prints o.Path's data (and stat).
func runGet(ctx context.Context, f *cmdutil.Factory, o getOptions) error {
	if err := cmdutil.CheckOutput(o.Output); err != nil {
		return err
	}
	if o.Raw && (o.Output != "" || o.Hex || o.Stat) {
		return cmdutil.Usagef("--raw writes the data alone: it goes with neither --output, --hex nor --stat")
	}
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	n, err := c.Get(o.Path)
	if err != nil {
		return err // "read PATH: ..."
	}
	w := o.Out
	switch {
	case o.Raw:
		_, err := w.Write(n.Data)
		return err
	case o.Output != "":
		return cmdutil.WriteDoc(w, o.Output, nodeDocOf(n, true, true))
	case o.Hex || !utf8.Valid(n.Data):
		fmt.Fprint(w, hex.Dump(n.Data))
	case len(n.Data) > 0:
		text := string(n.Data)
		if cmdutil.WriterIsTerminal(w) {
			text = printable.Text(text)
		}
		fmt.Fprint(w, text)
		if n.Data[len(n.Data)-1] != '\n' {
			fmt.Fprintln(w)
		}
	}
	if o.Stat {
		printStat(w, n.Stat)
	}
	return nil
}

func printStat(w io.Writer, st zk.Stat) {
	fmt.Fprintf(w, "cZxid = 0x%x\nctime = %s\nmZxid = 0x%x\nmtime = %s\npZxid = 0x%x\n",
		st.Czxid, statTime(st.Ctime), st.Mzxid, statTime(st.Mtime), st.Pzxid)
	fmt.Fprintf(w, "cversion = %d\ndataVersion = %d\naclVersion = %d\nephemeralOwner = 0x%x\ndataLength = %d\nnumChildren = %d\n",
		st.Cversion, st.Version, st.Aversion, uint64(st.EphemeralOwner), st.DataLength, st.NumChildren)
}
