// Package treeprint is `zkscope tree`'s reading and plain output, printed
// as the walk goes: the walk sends its listings in the order the tree is
// printed (zkview.WalkOptions.PreOrder), and a directory's listing is kept
// only until it is printed, so memory is bounded by the requests in flight
// and the path being printed, not by the tree. [Read] keeps the whole
// tree instead, for documents (-o json|yaml). It imports zkview only.
package treeprint

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// Format is how the tree prints: levels (0: all), --stat, and the
// escaping of names for a terminal.
type Format struct {
	Depth int
	Stats bool
	Safe  func(string) string
}

// Progress is told how far a walk got (the nodes it listed) and when it
// ends; a command draws it as a progress line.
type Progress interface {
	Update(nodes, locks int)
	Done()
}

// noProgress is the Progress of a walk nobody follows.
type noProgress struct{}

func (noProgress) Update(int, int) {}
func (noProgress) Done()           {}

// orNone is p, or noProgress when p is nil.
func orNone(p Progress) Progress {
	if p == nil {
		return noProgress{}
	}
	return p
}

// treeListing is one directory's children as the walk read them (sorted,
// data dropped) or why they could not be listed.
type treeListing struct {
	nodes []zkview.Node
	err   error
}

// treeFrame is a directory being printed: its children from next on, at
// level.
type treeFrame struct {
	nodes []zkview.Node
	next  int
	level int
}

// treePrinter prints the tree depth-first from the listings the walk
// delivers, as far as they reach.
type treePrinter struct {
	w     *bufio.Writer
	f     Format
	got   map[string]treeListing // listed, not printed yet
	stack []treeFrame
	// want is the directory whose listing is printed next (at wantLevel);
	// "" when none is awaited.
	want      string
	wantLevel int
	flushed   time.Time
}

// Print prints top (named name) and the tree below it, as tree's plain
// output, as the walk reads it.
//
// prog, when not nil, shows how far it got.
func Print(ctx context.Context, c *zkview.Client, out io.Writer, top zkview.Node, name string, f Format, prog Progress) error {
	prog = orNone(prog)
	printer := &treePrinter{w: bufio.NewWriterSize(out, 64<<10), f: f, got: map[string]treeListing{}, flushed: time.Now()}
	fmt.Fprintln(printer.w, f.Safe(Line(top, name, 0, f.Stats)))
	if top.Stat.NumChildren == 0 {
		return printer.w.Flush()
	}
	defer prog.Done()
	printer.want, printer.wantLevel = top.Path, 1
	err := walkTree(ctx, c, top, f.Depth, prog, func(p string, l treeListing) {
		printer.got[p] = l
		printer.print()
	})
	prog.Done() // before the last lines, so they are not mixed with it
	if ferr := printer.w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// walkTree walks the tree below top, depth levels deep (0: all), in
// pre-order batches, reading every node's stat, and gives each listed
// directory to got as it arrives.
//
// prog, when not nil, shows how far it got.
func walkTree(ctx context.Context, c *zkview.Client, top zkview.Node, depth int, prog Progress, got func(string, treeListing)) error {
	all := func(string, []string) bool { return true }
	walked := 1
	return c.Walk(ctx, top.Path, zkview.WalkOptions{Read: all, PreOrder: true}, func(d *zkview.WalkDir) bool {
		walked += len(d.Names)
		prog.Update(walked, 0)
		if d.Err != nil {
			got(d.Path, treeListing{err: d.Err})
			return false
		}
		got(d.Path, treeListing{nodes: treeNodes(d)})
		return depth == 0 || d.Depth+2 <= depth
	})
}

// treeNodes is d's children as tree prints them: sorted (the walk sorts
// them), those deleted meanwhile left out, data dropped.
func treeNodes(d *zkview.WalkDir) []zkview.Node {
	nodes := make([]zkview.Node, 0, len(d.Nodes))
	for _, n := range d.Nodes {
		if errors.Is(n.Err, zk.ErrNoNode) {
			continue
		}
		n.Data = nil
		nodes = append(nodes, n)
	}
	return nodes
}

// print prints as far as the listings received reach.
func (p *treePrinter) print() {
	for {
		if p.want != "" {
			l, ok := p.got[p.want]
			if !ok {
				break
			}
			delete(p.got, p.want)
			if l.err != nil {
				fmt.Fprintf(p.w, "%s! %s\n", strings.Repeat("  ", p.wantLevel), p.f.Safe(l.err.Error()))
			} else if len(l.nodes) > 0 {
				p.stack = append(p.stack, treeFrame{nodes: l.nodes, level: p.wantLevel})
			}
			p.want = ""
		}
		if len(p.stack) == 0 {
			break
		}
		fr := &p.stack[len(p.stack)-1]
		if fr.next == len(fr.nodes) {
			p.stack[len(p.stack)-1] = treeFrame{}
			p.stack = p.stack[:len(p.stack)-1]
			continue
		}
		k := &fr.nodes[fr.next]
		fr.next++
		p.line(k, fr.level)
		if k.Err == nil && k.Stat.NumChildren > 0 && (p.f.Depth == 0 || fr.level < p.f.Depth) {
			p.want, p.wantLevel = k.Path, fr.level+1
		}
	}
	// A terminal sees the tree come; a pipe gets full buffers.
	if now := time.Now(); now.Sub(p.flushed) > 100*time.Millisecond {
		p.w.Flush()
		p.flushed = now
	}
}

// line prints one child at level.
func (p *treePrinter) line(k *zkview.Node, level int) {
	if k.Err != nil {
		fmt.Fprintf(p.w, "%s%s ! %s\n", strings.Repeat("  ", level), p.f.Safe(k.Name()), p.f.Safe(k.Err.Error()))
		return
	}
	fmt.Fprintln(p.w, p.f.Safe(Line(*k, k.Name(), level, p.f.Stats && !(p.f.Depth > 0 && level == p.f.Depth+1))))
}

// Tree is the tree below a node as one walk read it: each listed
// directory's children (sorted, data dropped) or why it could not be
// listed, by the directory's path.
type Tree struct {
	Kids map[string][]zkview.Node
	Errs map[string]error
}

// Read walks the tree below top, depth levels deep (0: all), reading
// every node's stat in the walk's bulk requests, and keeps it.
//
// prog, when not nil, shows how far it got.
func Read(ctx context.Context, c *zkview.Client, top zkview.Node, depth int, prog Progress) (Tree, error) {
	prog = orNone(prog)
	t := Tree{Kids: map[string][]zkview.Node{}, Errs: map[string]error{}}
	if top.Stat.NumChildren == 0 {
		return t, nil
	}
	defer prog.Done()
	err := walkTree(ctx, c, top, depth, prog, func(p string, l treeListing) {
		if l.err != nil {
			t.Errs[p] = l.err
		} else {
			t.Kids[p] = l.nodes
		}
	})
	return t, err
}

// Line is n's line in the plain output: indented to level, named name,
// its ephemeral owner, child count and (stats) data length, version and
// modification time.
func Line(n zkview.Node, name string, level int, stats bool) string {
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
