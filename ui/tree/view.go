package tree

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/ui/common"
)

// View draws the pane with its border: the visible rows, and the
// filter's state in the title.
func (t *Model) View(focused bool) string {
	innerW, innerH := t.w-2, t.h-2
	lines := make([]string, 0, innerH)
	end := min(t.offset+innerH, len(t.rows))
	for i := t.offset; i < end; i++ {
		lines = append(lines, t.rowView(t.rows[i], i == t.cursor, focused, innerW))
	}
	title := "tree"
	if f := t.filter; f.Dir != "" && (f.Query != "" || t.filtering) {
		title = fmt.Sprintf("filter %q %d/%d", f.Query, f.Shown, f.Total)
		if f.Fuzzy && f.Query != "" {
			title += " fuzzy"
		}
	}
	return common.Box(t.st, title, lines, t.w, t.h, focused)
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
	name := r.name
	if p == "/" {
		name = "/"
	}
	if need := min(ansi.StringWidth(name), 12); leftW < len(indent)+2+need && tagged {
		// Too narrow: the name matters more than the tags; keep the count.
		right, rightW = st.Count.Render(fmt.Sprintf("%5s", count)), 5
		leftW = width - rightW - 1
	}
	if leftW < len(indent)+4 {
		right, rightW = st.Count.Render(count), len(count)
		leftW = width - rightW - 1
	}
	left := ansi.Truncate(indent+arrow(d, info, known)+name, max(leftW, 1), "…")
	gap := max(width-lipgloss.Width(left)-rightW, 1)

	base := st.Row
	switch {
	case selected && focused:
		base = st.RowSelected
	case selected:
		base = st.RowSelectedBlur
	case info.Gone:
		base = st.Gone
	}
	if selected {
		// One style over the whole row so the highlight is unbroken.
		plain := left + strings.Repeat(" ", gap) + ansi.Strip(right)
		return base.Render(ansi.Truncate(plain, width, ""))
	}
	return ansi.Truncate(base.Render(left)+strings.Repeat(" ", gap)+right, width, "")
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
	addTag := func(s lipgloss.Style, text string) {
		tags = append(tags, s.Render(text))
		tagsW += lipgloss.Width(text) + 1
	}
	if known && info.HasStat {
		k := t.made.KindOf(p, r.name, info.Stat)
		if k.Ephemeral {
			addTag(st.Ephemeral, "eph")
		}
		if k.Container {
			addTag(st.Container, "ctr")
		}
		if k.TTL {
			addTag(st.TTL, "ttl")
		}
		if k.Sequential {
			addTag(st.Sequential, "seq")
		}
	} else if common.HasSeqSuffix(r.name) {
		addTag(st.Sequential, "seq")
	}
	if ls, ok := t.locks[p]; ok {
		addTag(st.Lock, fmt.Sprintf("%s·%d", shortKind(string(ls.Kind)), ls.Length))
	} else if d != nil && d.Loaded && d.LockLike {
		addTag(st.Lock, "lock")
	}
	right = strings.Join(tags, " ")
	rightW = max(tagsW-1, 0)
	if count := t.count(p, d, info, known); count != "" {
		if right != "" {
			right += " "
			rightW++
		}
		right += st.Count.Render(fmt.Sprintf("%5s", count))
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
