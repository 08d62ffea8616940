// Package tree is the tree pane: the expanded directories and what is
// known of each visible node, flattened into rows with a cursor, the `/`
// filter on one directory's children, and the row view.
//
// Only the visible rows are drawn (a directory may hold 100,000
// children). The tree does no I/O: its key handling returns a [Request]
// (expand or collapse a directory) that the root model carries out with
// a command. It imports only ui/common, lockops and themes.
package tree

import (
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview"
)

// Listing is one directory's sorted child names and stat, as read.
type Listing struct {
	Path  string
	Names []string
	Stat  zk.Stat
	// LockLike: the names look like a lock recipe's children.
	LockLike bool
}

// Dir is one expanded (or expanding) directory.
type Dir struct {
	Names  []string // sorted; shared with the cache, never modified
	Stat   zk.Stat
	Loaded bool
	// LockLike: the names look like a lock recipe's (computed off Update).
	LockLike bool
}

// LockTag marks a lock directory in the tree: its recipe and queue length
// and, when Counted, its child count from the same read (shown instead of
// the tree's own listing, so the two numbers never disagree).
type LockTag struct {
	Kind     lockops.Kind
	Length   int
	Children int
	Counted  bool
}

// Filter is the `/` filter on one directory's children.
type Filter struct {
	Dir   string // the directory filtered ("" when no filter)
	Query string
	Shown int // children kept
	Total int
	Fuzzy bool // nothing contained the query: matched fuzzily (filter.go)
}

// row is one visible line of the tree: a window over it is drawn, never the
// whole list.
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

// Model is the tree pane.
type Model struct {
	st   *themes.Styles
	made *common.Made
	w, h int // outer size

	dirs  map[string]*Dir
	nodes map[string]common.Node
	locks map[string]LockTag

	rows      []row
	drawn     *drawnRows // the rows drawn last (view.go)
	cursor    int
	offset    int
	filter    Filter
	filtering bool // the `/` input is open
}

// New builds a tree showing only the root.
func New(st *themes.Styles, made *common.Made) Model {
	t := Model{st: st, made: made, drawn: &drawnRows{}}
	t.Reset()
	return t
}

// Reset forgets everything (another context): only the root is shown.
func (t *Model) Reset() {
	t.dirs = map[string]*Dir{}
	t.nodes = map[string]common.Node{}
	t.locks = map[string]LockTag{}
	t.filter = Filter{}
	t.cursor, t.offset = 0, 0
	t.rebuild()
}

// SetSize sets the pane's outer size in cells.
func (t *Model) SetSize(w, h int) {
	t.w, t.h = w, h
	t.clamp()
}

// Rows is how many rows fit in the pane.
func (t *Model) Rows() int { return max(t.h-2, 1) }

// Len is the number of rows (visible or not).
func (t *Model) Len() int { return len(t.rows) }

// Cursor and Offset are the cursor's row and the first row shown.
func (t *Model) Cursor() int { return t.cursor }
func (t *Model) Offset() int { return t.offset }

// Row is row i's parent ("" for the root) and name.
func (t *Model) Row(i int) (dir, name string) { return t.rows[i].dir, t.rows[i].name }

// Dir is what is known of the directory p (ok false: not expanded).
func (t *Model) Dir(p string) (Dir, bool) {
	d := t.dirs[p]
	if d == nil {
		return Dir{}, false
	}
	return *d, true
}

// Loading is a directory being listed (ok false: none).
func (t *Model) Loading() (string, bool) {
	for p, d := range t.dirs {
		if !d.Loaded {
			return p, true
		}
	}
	return "", false
}

// Node is what is known of node p.
func (t *Model) Node(p string) (common.Node, bool) {
	n, ok := t.nodes[p]
	return n, ok
}

// SetNodes records what was read of nodes.
func (t *Model) SetNodes(ns ...common.Node) {
	for _, n := range ns {
		t.nodes[n.Path] = n
	}
}

// ForgetNodes drops what is known of every node (a refresh reads them
// again).
func (t *Model) ForgetNodes() { t.nodes = map[string]common.Node{} }

// Lock is the tag of lock directory p.
func (t *Model) Lock(p string) (LockTag, bool) {
	l, ok := t.locks[p]
	return l, ok
}

// SetLock tags p as a lock directory.
func (t *Model) SetLock(p string, tag LockTag) { t.locks[p] = tag }

// DropLock removes p's lock tag.
func (t *Model) DropLock(p string) { delete(t.locks, p) }

// OnWatch applies a batch of watch changes: listings of open directories,
// directories no longer open, and nodes read again.
func (t *Model) OnWatch(dirs []Listing, closed []string, nodes []common.Node) {
	structural := false
	for _, d := range dirs {
		if cur := t.dirs[d.Path]; cur != nil {
			*cur = Dir{Names: d.Names, Stat: d.Stat, Loaded: true, LockLike: d.LockLike}
			structural = true
		}
	}
	for _, p := range closed {
		if _, ok := t.dirs[p]; ok {
			delete(t.dirs, p)
			structural = true
		}
	}
	for _, n := range nodes {
		t.nodes[n.Path] = n
		if _, ok := t.dirs[n.Path]; ok && n.Gone {
			delete(t.dirs, n.Path)
			structural = true
		}
	}
	if structural {
		t.rebuild()
	}
}

// StartLoad marks p as being listed; false when it is listed or being
// listed already.
func (t *Model) StartLoad(p string) bool {
	if t.dirs[p] != nil {
		return false
	}
	t.dirs[p] = &Dir{}
	return true
}

// Opened shows listings read (an expand, or the way to a `:cd` target).
func (t *Model) Opened(ls ...Listing) {
	for _, l := range ls {
		t.dirs[l.Path] = &Dir{Names: l.Names, Stat: l.Stat, Loaded: true, LockLike: l.LockLike}
	}
	t.rebuild()
}

// LoadFailed forgets a directory that could not be listed; gone says it
// no longer exists.
func (t *Model) LoadFailed(p string, gone bool) {
	delete(t.dirs, p)
	if gone {
		t.nodes[p] = common.Node{Path: p, Gone: true}
	}
	t.rebuild()
}

// Collapse forgets p's children and everything expanded below it; it
// returns the directories closed.
func (t *Model) Collapse(p string) []string {
	prefix := strings.TrimSuffix(p, "/") + "/"
	var closed []string
	for q := range t.dirs {
		if q == p || strings.HasPrefix(q, prefix) {
			delete(t.dirs, q)
			closed = append(closed, q)
		}
	}
	for q := range t.nodes {
		if strings.HasPrefix(q, prefix) {
			delete(t.nodes, q)
		}
	}
	if t.filter.Dir == p || strings.HasPrefix(t.filter.Dir, prefix) {
		t.filter = Filter{}
	}
	t.rebuild()
	return closed
}

// Land puts the cursor on p, a third down the pane (a `:cd`); false when
// p is not a row.
func (t *Model) Land(p string) bool {
	if !t.CursorTo(p) {
		return false
	}
	t.offset = max(t.cursor-t.Rows()/3, 0)
	return true
}

// rebuild flattens the expanded directories into rows, keeping the
// cursor on the same path when it is still shown.
func (t *Model) rebuild() {
	keep := ""
	if t.cursor >= 0 && t.cursor < len(t.rows) {
		keep = t.rows[t.cursor].path()
	}
	n := 1
	for _, d := range t.dirs {
		n += len(d.Names)
	}
	rows := make([]row, 0, n)
	rows = append(rows, row{dir: "", name: "/", depth: 0})
	rows = t.appendChildren(rows, "/", 1)
	t.rows = rows
	if keep != "" {
		t.CursorTo(keep)
	}
	t.clamp()
}

func (t *Model) appendChildren(rows []row, p string, depth int) []row {
	d := t.dirs[p]
	if d == nil || !d.Loaded {
		return rows
	}
	filtered := t.filter.Dir == p && t.filter.Query != ""
	var match func(string) bool
	if filtered {
		match, t.filter.Fuzzy = FilterMatch(t.filter.Query, d.Names)
		t.filter.Shown, t.filter.Total = 0, len(d.Names)
	}
	// Which children are open themselves (usually none of 100,000).
	var open map[string]bool
	for q, c := range t.dirs {
		if c.Loaded && q != "/" && zkview.Parent(q) == p {
			if open == nil {
				open = map[string]bool{}
			}
			_, name := common.SplitPath(q)
			open[name] = true
		}
	}
	for _, name := range d.Names {
		if filtered {
			if !match(name) {
				continue
			}
			t.filter.Shown++
		}
		rows = append(rows, row{dir: p, name: name, depth: depth})
		if open[name] {
			rows = t.appendChildren(rows, zkview.Join(p, name), depth+1)
		}
	}
	return rows
}

// CursorTo moves the cursor to p if it is a row; it reports success.
func (t *Model) CursorTo(p string) bool {
	if t.cursor >= 0 && t.cursor < len(t.rows) && t.rows[t.cursor].path() == p {
		return true
	}
	dir, name := common.SplitPath(p)
	for i, r := range t.rows {
		if r.name == name && r.dir == dir {
			t.cursor = i
			return true
		}
	}
	return false
}

// clamp keeps the cursor on a row and on screen.
func (t *Model) clamp() {
	if t.cursor >= len(t.rows) {
		t.cursor = len(t.rows) - 1
	}
	if t.cursor < 0 {
		t.cursor = 0
	}
	h := t.Rows()
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if h > 0 && t.cursor >= t.offset+h {
		t.offset = t.cursor - h + 1
	}
	if most := len(t.rows) - h; t.offset > most {
		t.offset = most
	}
	if t.offset < 0 {
		t.offset = 0
	}
}

// CursorPath is the path under the cursor.
func (t *Model) CursorPath() string {
	if t.cursor < 0 || t.cursor >= len(t.rows) {
		return "/"
	}
	return t.rows[t.cursor].path()
}

// VisiblePaths are the paths of the rows on screen.
func (t *Model) VisiblePaths() []string {
	end := min(t.offset+t.Rows(), len(t.rows))
	out := make([]string, 0, end-t.offset)
	for _, r := range t.rows[t.offset:end] {
		out = append(out, r.path())
	}
	return out
}
