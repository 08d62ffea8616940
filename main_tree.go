package main

// The tree and get subcommands: plain, scriptable reads.

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

func newTreeCmd() *cobra.Command {
	var (
		depth  int
		stats  bool
		output string
	)
	cmd := &cobra.Command{
		Use:   "tree [PATH]",
		Short: "Print the znode tree below PATH",
		Long: `Print the znodes below PATH (default /), one per line, indented. Listings and
stats are packed into bulk requests, read ahead in the order the tree is
printed, and printed as they come, so big trees and big child lists are
cheap and memory does not grow with the tree (-o json and -o yaml build the
whole document first). A node the session may not read (or that vanished
meanwhile) is marked "! reason" and the rest is printed.

Markers: [E 0x…] ephemeral with its owner session, (N) child count. (The
servers report container and TTL nodes to clients as plain persistent nodes,
so they cannot be marked.) -o json or -o yaml prints the tree as nested
documents (path, children; with --stat each node's stat).`,
		Example: `  zkscope tree /app
  zkscope tree /app/locks --depth 1 --stat
  zkscope tree /app -o json | jq -r '.. | .path? // empty'
  zkscope -s zk1:2181/chroot tree`,
		Args:              cobra.MatchAll(cobra.MaximumNArgs(1), znodeArgs(1)),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			root := "/"
			if len(args) == 1 {
				root = args[0]
			}
			if depth < 0 {
				return usagef("--depth %d: must be 0 (all levels) or more", depth)
			}
			if err := checkOutput(output); err != nil {
				return err
			}
			c, err := connect(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			top, err := c.Get(root)
			if err != nil {
				return err // "read PATH: ..."
			}
			w := cmd.OutOrStdout()
			// On a terminal the lines themselves show the walk going.
			prog := newProgressLine(cmd.ErrOrStderr(), output == "" && !writerIsTerminal(w), false)
			if output != "" {
				t, err := readTree(cmd.Context(), c, top, depth, prog)
				if err != nil {
					return err
				}
				doc := nodeDocOf(top, false, stats)
				treeDoc(t, doc, top, stats)
				return writeDoc(w, output, doc)
			}
			safe := func(s string) string { return s }
			if writerIsTerminal(w) {
				safe = printable.String
			}
			return printTree(cmd.Context(), c, w, top, root, treeFormat{depth: depth, stats: stats, safe: safe}, prog)
		},
	}
	cmd.Flags().IntVarP(&depth, "depth", "d", 0, "levels to print below PATH (0: all)")
	cmd.Flags().BoolVar(&stats, "stat", false, "show data length, version and modification time")
	outputFlag(cmd, &output)
	return cmd
}

// treeRead is the tree below a node as one walk read it: each listed
// directory's children (sorted, data dropped) or why it could not be
// listed.
type treeRead struct {
	kids map[string][]zkview.Node
	errs map[string]error
}

// readTree walks the tree below top, depth levels deep (0: all), reading
// every node's stat in the walk's bulk requests.
//
// prog, when not nil, shows how far it got.
func readTree(ctx context.Context, c *zkview.Client, top zkview.Node, depth int, prog *progressLine) (treeRead, error) {
	t := treeRead{kids: map[string][]zkview.Node{}, errs: map[string]error{}}
	if top.Stat.NumChildren == 0 {
		return t, nil
	}
	defer prog.done()
	err := walkTree(ctx, c, top, depth, prog, func(p string, l treeListing) {
		if l.err != nil {
			t.errs[p] = l.err
		} else {
			t.kids[p] = l.nodes
		}
	})
	return t, err
}

// treeDoc fills doc's children below n, as printTree prints them.
func treeDoc(t treeRead, doc *nodeDoc, n zkview.Node, stats bool) {
	if err := t.errs[n.Path]; err != nil {
		doc.Error = err.Error()
		return
	}
	for _, k := range t.kids[n.Path] {
		kd := nodeDocOf(k, false, stats)
		doc.Children = append(doc.Children, kd)
		if k.Err == nil {
			treeDoc(t, kd, k, stats)
		}
	}
}

func treeLine(n zkview.Node, name string, level int, stats bool) string {
	var b strings.Builder
	b.WriteString(strings.Repeat("  ", level))
	b.WriteString(name)
	if owner := uint64(n.Stat.EphemeralOwner); owner != 0 {
		fmt.Fprintf(&b, " [E 0x%x]", owner)
	}
	if n.Stat.NumChildren > 0 {
		fmt.Fprintf(&b, " (%d)", n.Stat.NumChildren)
	}
	if stats {
		fmt.Fprintf(&b, "  %dB v%d %s", n.Stat.DataLength, n.Stat.Version,
			time.UnixMilli(n.Stat.Mtime).UTC().Format(time.RFC3339))
	}
	return b.String()
}

func newGetCmd() *cobra.Command {
	var (
		showStat, asHex, raw bool
		output               string
	)
	cmd := &cobra.Command{
		Use:   "get PATH",
		Short: "Print a znode's data and stat",
		Long: `Print a znode's data: text as stored, binary data (not valid UTF-8) as a hex
dump (--hex forces a dump), and with --stat the full stat in zkCli's layout.
On a terminal, control characters in the text (escape sequences) are shown
escaped (\x1b); --raw writes the data's exact bytes and nothing else.
-o json or -o yaml prints path, data (base64 when binary, with
"data_encoding") and stat.`,
		Example: `  zkscope get /app/config
  zkscope get /app/locks/orders/_c_…-lock-0000000007 --stat
  zkscope get /app/config -o json | jq .stat.version
  zkscope get /blob --raw > blob.bin
  zkscope get /blob --hex | less`,
		Args:              cobra.MatchAll(cobra.ExactArgs(1), znodeArgs(1)),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if raw && (output != "" || asHex || showStat) {
				return usagef("--raw writes the data alone: it goes with neither --output, --hex nor --stat")
			}
			c, err := connect(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			n, err := c.Get(args[0])
			if err != nil {
				return err // "read PATH: ..."
			}
			w := cmd.OutOrStdout()
			switch {
			case raw:
				_, err := w.Write(n.Data)
				return err
			case output != "":
				return writeDoc(w, output, nodeDocOf(n, true, true))
			case asHex || !utf8.Valid(n.Data):
				fmt.Fprint(w, hex.Dump(n.Data))
			case len(n.Data) > 0:
				text := string(n.Data)
				if writerIsTerminal(w) {
					text = printable.Text(text)
				}
				fmt.Fprint(w, text)
				if n.Data[len(n.Data)-1] != '\n' {
					fmt.Fprintln(w)
				}
			}
			if showStat {
				printStat(w, n.Stat)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&showStat, "stat", false, "print the stat after the data")
	cmd.Flags().BoolVar(&asHex, "hex", false, "print the data as a hex dump")
	cmd.Flags().BoolVar(&raw, "raw", false, "write the data's exact bytes, nothing else (no newline, no escaping)")
	outputFlag(cmd, &output)
	return cmd
}

func printStat(w io.Writer, st zk.Stat) {
	ms := func(v int64) string { return time.UnixMilli(v).UTC().Format("2006-01-02T15:04:05.000Z") }
	fmt.Fprintf(w, "cZxid = 0x%x\nctime = %s\nmZxid = 0x%x\nmtime = %s\npZxid = 0x%x\n",
		st.Czxid, ms(st.Ctime), st.Mzxid, ms(st.Mtime), st.Pzxid)
	fmt.Fprintf(w, "cversion = %d\ndataVersion = %d\naclVersion = %d\nephemeralOwner = 0x%x\ndataLength = %d\nnumChildren = %d\n",
		st.Cversion, st.Version, st.Aversion, uint64(st.EphemeralOwner), st.DataLength, st.NumChildren)
}
