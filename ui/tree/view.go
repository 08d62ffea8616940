package tree

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
)

// View draws the pane with its border: the visible rows, and the
// filter's state in the title.
func (t *Model) View(focused bool) string {
	innerW, innerH := t.w-2, t.h-2
	lines, widths := make([]string, 0, innerH), make([]int, 0, innerH)
	end := min(t.offset+innerH, len(t.rows))
	if t.drawn == nil {
		t.drawn = &drawnRows{}
	}
	if len(t.drawn.rows) > 4*max(innerH, 16) {
		clear(t.drawn.rows) // rows long scrolled away
	}
	for i := t.offset; i < end; i++ {
		line, w := t.cachedRow(t.rows[i], i == t.cursor, focused, innerW)
		lines, widths = append(lines, line), append(widths, w)
	}
	title := "tree"
	if f := t.filter; f.Dir != "" && (f.Query != "" || t.filtering) {
		title = fmt.Sprintf("filter %q %d/%d", f.Query, f.Shown, f.Total)
		if f.Fuzzy && f.Query != "" {
			title += " fuzzy"
		}
	}
	return common.BoxSized(t.st, title, lines, widths, t.w, t.h, focused)
}

// drawnRows are the rows drawn last, by path, with what they were drawn
// from: a row whose node, listing and lock tag did not change is not
// drawn again (a busy lock's directory changes ten times a second, and
// most of its rows stay).
type drawnRows struct {
	rows  map[string]drawnRow
	paint *common.Painter // draws with the tree's styles, fast
}

// draw is s.Render(text) for one line of plain text, fast (see
// [common.Painter]).
func (t *Model) draw(s *lipgloss.Style, text string) string {
	if t.drawn.paint == nil {
		t.drawn.paint = common.NewPainter(t.st)
	}
	return t.drawn.paint.Render(s, text)
}

type drawnRow struct {
	key   rowKey
	line  string
	width int // line's in cells, measured once
}

// rowKey is everything a row's drawing depends on.
type rowKey struct {
	name              string
	depth, width      int
	selected, focused bool
	theme             string
	noColor           bool
	info              nodeKey
	dir               *Dir
	loaded, lockLike  bool
	names             int
	tag               LockTag
	tagged            bool
	kind              common.NodeKind
}

// nodeKey is what a row shows of a node.
type nodeKey struct {
	stat                 zk.Stat
	known, hasStat, gone bool
}

// cachedRow is rowView's drawing and its width in cells, from the last
// View when nothing it depends on changed (then neither is made or
// measured again).
func (t *Model) cachedRow(r row, selected, focused bool, width int) (string, int) {
	p := r.path()
	k := t.rowKeyOf(r, p, selected, focused, width)
	if c, ok := t.drawn.rows[p]; ok && c.key == k {
		return c.line, c.width
	}
	line := t.rowView(r, selected, focused, width)
	if t.drawn.rows == nil {
		t.drawn.rows = map[string]drawnRow{}
	}
	w := lipgloss.Width(line)
	t.drawn.rows[p] = drawnRow{key: k, line: line, width: w}
	return line, w
}

func (t *Model) rowKeyOf(r row, p string, selected, focused bool, width int) rowKey {
	k := rowKey{name: r.name, depth: r.depth, width: width, selected: selected, focused: focused,
		theme: t.st.Palette.Name, noColor: t.st.NoColor}
	d := t.dirs[p]
	info, known := t.nodes[p]
	if !known && d != nil {
		info, known = common.Node{Stat: d.Stat, HasStat: true}, true
	}
	k.info = nodeKey{stat: info.Stat, known: known, hasStat: info.HasStat, gone: info.Gone}
	if d != nil {
		k.dir, k.loaded, k.lockLike, k.names = d, d.Loaded, d.LockLike, len(d.Names)
	}
	k.tag, k.tagged = t.locks[p]
	if known && info.HasStat {
		k.kind = t.made.KindOf(p, r.name, info.Stat)
	}
	return k
}

// rowView draws one row, exactly width cells wide: indent, arrow, name,
// then the tags and the child count on the right.
func (t *Model) rowView(r row, selected, focused bool, width int) string {
	st := t.st
	p := r.path()
	d := t.dirs[p]
	info, known := t.nodes[p]
	if !known && d != nil {
		info = common.Node{Path: p, Stat: d.Stat, HasStat: true}
		known = true
	}
	right, rightW, tagged := t.rightSide(r, d, info, known)
	indent := strings.Repeat("  ", r.depth)
	count := t.count(p, d, info, known)
	leftW := width - rightW - 1
	name := printable.String(r.name)
	if p == "/" {
		name = "/"
	}
	if need := min(ansi.StringWidth(name), 12); leftW < len(indent)+2+need && tagged {
		// Too narrow: the name matters more than the tags; keep the count.
		right, rightW = t.draw(&st.Count, fmt.Sprintf("%5s", count)), 5
		leftW = width - rightW - 1
	}
	if leftW < len(indent)+4 {
		right, rightW = t.draw(&st.Count, count), len(count)
		leftW = width - rightW - 1
	}
	left := ansi.Truncate(indent+arrow(d, info, known)+name, max(leftW, 1), "…")
	gap := max(width-lipgloss.Width(left)-rightW, 1)

	base := &st.Row
	switch {
	case selected && focused:
		base = &st.RowSelected
	case selected:
		base = &st.RowSelectedBlur
	case info.Gone:
		base = &st.Gone
	}
	if selected {
		// One style over the whole row so the highlight is unbroken.
		plain := left + strings.Repeat(" ", gap) + ansi.Strip(right)
		return t.draw(base, ansi.Truncate(plain, width, ""))
	}
	return ansi.Truncate(t.draw(base, left)+strings.Repeat(" ", gap)+right, width, "")
}

// arrow is ▾ for an open directory, ▸ for one that may have children, …
// while listing.
func arrow(d *Dir, info common.Node, known bool) string {
	switch {
	case d != nil && !d.Loaded:
		return "… "
	case d != nil:
		return "▾ "
	case known && info.HasStat && info.Stat.NumChildren == 0:
		return "  "
	}
	return "▸ "
}

// count is the row's child count ("gone" for a deleted node): a lock
// directory's from the read its lock tag came from when that read counted
// them.
func (t *Model) count(p string, d *Dir, info common.Node, known bool) string {
	tag, tagged := t.locks[p]
	switch {
	case info.Gone:
		return "gone"
	case tagged && tag.Counted:
		return strconv.Itoa(tag.Children)
	case d != nil && d.Loaded:
		return fmt.Sprint(len(d.Names))
	case known && info.HasStat && info.Stat.NumChildren > 0:
		return fmt.Sprint(info.Stat.NumChildren)
	}
	return ""
}

// rightSide is the row's type tags, lock summary and child count, with
// its width; tagged says whether there are tags.
func (t *Model) rightSide(r row, d *Dir, info common.Node, known bool) (right string, rightW int, tagged bool) {
	st := t.st
	p := r.path()
	var tags []string
	var tagsW int
	addTag := func(s *lipgloss.Style, text string) {
		tags = append(tags, t.draw(s, text))
		tagsW += lipgloss.Width(text) + 1
	}
	if known && info.HasStat {
		k := t.made.KindOf(p, r.name, info.Stat)
		if k.Ephemeral {
			addTag(&st.Ephemeral, "eph")
		}
		if k.Container {
			addTag(&st.Container, "ctr")
		}
		if k.TTL {
			addTag(&st.TTL, "ttl")
		}
		if k.Sequential {
			addTag(&st.Sequential, "seq")
		}
	} else if common.HasSeqSuffix(r.name) {
		addTag(&st.Sequential, "seq")
	}
	if ls, ok := t.locks[p]; ok {
		addTag(&st.Lock, fmt.Sprintf("%s·%d", shortKind(string(ls.Kind)), ls.Length))
	} else if d != nil && d.Loaded && d.LockLike {
		addTag(&st.Lock, "lock")
	}
	right = strings.Join(tags, " ")
	rightW = max(tagsW-1, 0)
	if count := t.count(p, d, info, known); count != "" {
		if right != "" {
			right += " "
			rightW++
		}
		right += t.draw(&st.Count, fmt.Sprintf("%5s", count))
		rightW += max(5, len(count))
	}
	return right, rightW, len(tags) > 0
}

// shortKind shortens a recipe name for a tree tag ("curator.mutex" stays).
func shortKind(k string) string {
	switch k {
	case "", "unknown":
		return "lock"
	case "zookeeper.ephemeral-lock":
		return "eph-lock"
	}
	return k
}
