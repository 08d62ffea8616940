package tree

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/ui/common"
)

// Request is what a key or a click asks of the root model beyond the
// tree's own state: the directory to list (Expand) or to close (Collapse,
// see [Model.Collapse]).
type Request struct {
	Expand, Collapse string
}

// HandleKey moves the cursor, or asks to open or close a directory.
func (t *Model) HandleKey(msg tea.KeyPressMsg, k common.KeyMap) Request {
	page := max(t.Rows()-1, 1)
	switch {
	case key.Matches(msg, k.Up):
		t.cursor--
	case key.Matches(msg, k.Down):
		t.cursor++
	case key.Matches(msg, k.PageUp):
		t.cursor -= page
		t.offset -= page
	case key.Matches(msg, k.PageDown):
		t.cursor += page
		t.offset += page
	case key.Matches(msg, k.Top):
		t.cursor = 0
	case key.Matches(msg, k.Bottom):
		t.cursor = len(t.rows) - 1
	case key.Matches(msg, k.Expand):
		return t.expandKey()
	case key.Matches(msg, k.Collapse):
		p := t.CursorPath()
		if _, open := t.dirs[p]; open && p != "/" {
			return Request{Collapse: p}
		}
		t.toParent()
	case key.Matches(msg, k.Parent):
		t.toParent()
	case key.Matches(msg, k.Toggle):
		p := t.CursorPath()
		if _, open := t.dirs[p]; !open {
			return Request{Expand: p}
		}
		if p != "/" {
			return Request{Collapse: p}
		}
	}
	t.clamp()
	return Request{}
}

// expandKey opens the directory under the cursor, or steps into it when
// it is open already.
func (t *Model) expandKey() Request {
	p := t.CursorPath()
	if d := t.dirs[p]; d != nil && d.Loaded {
		if len(d.Names) > 0 && t.cursor+1 < len(t.rows) {
			t.cursor++
			t.clamp()
		}
		return Request{}
	}
	if n, ok := t.nodes[p]; ok && n.HasStat && n.Stat.NumChildren == 0 {
		return Request{}
	}
	return Request{Expand: p}
}

func (t *Model) toParent() {
	if t.cursor < len(t.rows) {
		if dir := t.rows[t.cursor].dir; dir != "" {
			t.CursorTo(dir)
		}
	}
}

// Click selects row i of the pane (0: the first row shown); a click on
// the selected row opens it.
func (t *Model) Click(i int) Request {
	if i < 0 || i >= t.Rows() || t.offset+i >= len(t.rows) {
		return Request{}
	}
	if t.cursor == t.offset+i {
		p := t.CursorPath()
		if _, open := t.dirs[p]; !open {
			return Request{Expand: p}
		}
	}
	t.cursor = t.offset + i
	t.clamp()
	return Request{}
}

// Scroll moves the window by step rows (the mouse wheel), the cursor
// staying on screen.
func (t *Model) Scroll(step int) {
	t.offset = max(min(t.offset+step, len(t.rows)-t.Rows()), 0)
	t.cursor = max(min(t.cursor, t.offset+t.Rows()-1), t.offset)
}

// Filter is the `/` filter's state.
func (t *Model) Filter() Filter { return t.filter }

// OpenFilter starts a `/` filter on the directory under the cursor (its
// parent, for a node not open) and returns its query so far.
func (t *Model) OpenFilter() string {
	p := t.CursorPath()
	dir, _ := common.SplitPath(p)
	if d := t.dirs[p]; d != nil && d.Loaded || dir == "" {
		dir = p // an open directory filters its own children
	}
	if t.filter.Dir != "" && t.filter.Dir != dir {
		t.ClearFilter()
	}
	t.filter.Dir = dir
	t.filtering = true
	return t.filter.Query
}

// CloseFilter ends typing the filter (the filter stays).
func (t *Model) CloseFilter() { t.filtering = false }

// SetFilter filters with q; when the row under the cursor is filtered out
// the cursor goes to the first match.
func (t *Model) SetFilter(q string) {
	prev := t.CursorPath()
	t.filter.Query = q
	t.rebuild()
	if t.CursorPath() == prev {
		return
	}
	if t.CursorTo(t.filter.Dir) && t.filter.Shown > 0 && t.cursor+1 < len(t.rows) {
		t.cursor++
		t.clamp()
	}
}

// ClearFilter removes the filter.
func (t *Model) ClearFilter() {
	t.filter = Filter{}
	t.rebuild()
}
