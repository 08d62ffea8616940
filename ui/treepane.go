package ui

import (
	"fmt"
	"github.com/zkscope/zkscope/ui/common"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/zkview"
)

// row is one visible line of the tree: a window over it is drawn, never the
// whole list (a directory may hold 100,000 children).
type row struct {
	dir   string // parent path; "" for the root
	name  string
	depth int
}

// path is the row's znode path.
func (r row) path() string {
	if r.dir == "" {
		return "/"
	}
	return zkview.Join(r.dir, r.name)
}

// filterState is the `/` filter on one directory's children.
type filterState struct {
	dir   string // the directory filtered ("" when no filter)
	query string
	shown int // children kept
	total int
	fuzzy bool // nothing contained the query: matched fuzzily (filter_match.go)
}

// rebuildRows flattens the expanded directories into rows, keeping the
// cursor on the same path when it is still shown.
func (m *Model) rebuildRows() {
	keep := ""
	if m.cursor >= 0 && m.cursor < len(m.rows) {
		keep = m.rows[m.cursor].path()
	}
	n := 1
	for _, d := range m.dirs {
		n += len(d.names)
	}
	rows := make([]row, 0, n)
	rows = append(rows, row{dir: "", name: "/", depth: 0})
	rows = m.appendChildren(rows, "/", 1)
	m.rows = rows
	if keep != "" {
		m.cursorTo(keep)
	}
	m.clampCursor()
}

func (m *Model) appendChildren(rows []row, p string, depth int) []row {
	d := m.dirs[p]
	if d == nil || !d.loaded {
		return rows
	}
	filtered := m.filter.dir == p && m.filter.query != ""
	var match func(string) bool
	if filtered {
		match, m.filter.fuzzy = filterMatch(m.filter.query, d.names)
		m.filter.shown, m.filter.total = 0, len(d.names)
	}
	// Which children are open themselves (usually none of 100,000).
	var open map[string]bool
	for q, c := range m.dirs {
		if c.loaded && q != "/" && zkview.Parent(q) == p {
			if open == nil {
				open = map[string]bool{}
			}
			_, name := common.SplitPath(q)
			open[name] = true
		}
	}
	for _, name := range d.names {
		if filtered {
			if !match(name) {
				continue
			}
			m.filter.shown++
		}
		rows = append(rows, row{dir: p, name: name, depth: depth})
		if open[name] {
			rows = m.appendChildren(rows, zkview.Join(p, name), depth+1)
		}
	}
	return rows
}

// cursorTo moves the cursor to p if it is a row; it reports success.
func (m *Model) cursorTo(p string) bool {
	if m.cursor >= 0 && m.cursor < len(m.rows) && m.rows[m.cursor].path() == p {
		return true
	}
	dir, name := common.SplitPath(p)
	for i, r := range m.rows {
		if r.name == name && r.dir == dir {
			m.cursor = i
			return true
		}
	}
	return false
}

func (m *Model) clampCursor() {
	if m.cursor >= len(m.rows) {
		m.cursor = len(m.rows) - 1
	}
	if m.cursor < 0 {
		m.cursor = 0
	}
	h := m.treeRows()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if h > 0 && m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	if max := len(m.rows) - h; m.offset > max {
		m.offset = max
	}
	if m.offset < 0 {
		m.offset = 0
	}
}

// cursorPath is the path under the cursor.
func (m *Model) cursorPath() string {
	if m.cursor < 0 || m.cursor >= len(m.rows) {
		return "/"
	}
	return m.rows[m.cursor].path()
}

// visiblePaths are the paths of the rows on screen.
func (m *Model) visiblePaths() []string {
	end := min(m.offset+m.treeRows(), len(m.rows))
	out := make([]string, 0, end-m.offset)
	for _, r := range m.rows[m.offset:end] {
		out = append(out, r.path())
	}
	return out
}

// treeRowView draws one row, exactly width cells wide.
func (m *Model) treeRowView(r row, selected, focused bool, width int) string {
	st := m.st
	p := r.path()
	d := m.dirs[p]
	info, known := m.nodes[p]
	if !known && d != nil {
		info = common.Node{Path: p, Stat: d.stat, HasStat: true}
		known = true
	}

	arrow := "  "
	switch {
	case d != nil && !d.loaded:
		arrow = "… "
	case d != nil:
		arrow = "▾ "
	case known && info.HasStat && info.Stat.NumChildren == 0:
		arrow = "  "
	default:
		arrow = "▸ "
	}

	// Right side: type tags, lock summary, child count.
	var tags []string
	var tagsW int
	addTag := func(s lipgloss.Style, t string) {
		tags = append(tags, s.Render(t))
		tagsW += lipgloss.Width(t) + 1
	}
	if known && info.HasStat {
		k := m.made.KindOf(p, r.name, info.Stat)
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
	if ls, ok := m.locks[p]; ok {
		addTag(st.Lock, fmt.Sprintf("%s·%d", shortKind(string(ls.kind)), ls.length))
	} else if d != nil && d.loaded && d.lockLike {
		addTag(st.Lock, "lock")
	}
	count := ""
	switch {
	case info.Gone:
		count = "gone"
	case d != nil && d.loaded:
		count = fmt.Sprint(len(d.names))
	case known && info.HasStat && info.Stat.NumChildren > 0:
		count = fmt.Sprint(info.Stat.NumChildren)
	}
	right := strings.Join(tags, " ")
	rightW := max(tagsW-1, 0)
	if count != "" {
		if right != "" {
			right += " "
			rightW++
		}
		right += st.Count.Render(fmt.Sprintf("%5s", count))
		rightW += max(5, len(count))
	}

	indent := strings.Repeat("  ", r.depth)
	leftW := width - rightW - 1
	name := r.name
	if p == "/" {
		name = "/"
	}
	if need := min(ansi.StringWidth(name), 12); leftW < len(indent)+2+need && len(tags) > 0 {
		// Too narrow: the name matters more than the tags; keep the count.
		right, rightW = st.Count.Render(fmt.Sprintf("%5s", count)), 5
		leftW = width - rightW - 1
	}
	if leftW < len(indent)+4 {
		right, rightW = st.Count.Render(count), len(count)
		leftW = width - rightW - 1
	}
	left := ansi.Truncate(indent+arrow+name, max(leftW, 1), "…")
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

// shortKind shortens a recipe name for a tree tag ("curator.mutex" stays).
func shortKind(k string) string {
	if k == "" || k == "unknown" {
		return "lock"
	}
	return k
}
