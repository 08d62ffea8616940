// Package detail is the detail pane: the stat, data (with its viewers)
// and ACL of the node under the tree's cursor, as last read.
//
// The body is built in Update (when the node, the viewer, the width, the
// theme or the members' view change: see [Model.Invalidate]); View only
// slices it. It does no I/O and imports only ui/common, themes, zkview
// (for the members' connection lists), and for a Redis key (redis.go)
// redisview and lockops.
package detail

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview"
)

// Model is the detail pane.
type Model struct {
	st   *themes.Styles
	made *common.Made
	ens  *zkview.Ensemble // the members' view (owner addresses); nil until asked
	w, h int              // outer size

	path    string
	node    common.Node
	acl     []zk.ACL
	loaded  bool
	err     error
	viewer  Viewer
	scroll  int
	lines   []string // the body, built for builtW
	builtW  int      // 0: to be built again
	isLock  bool     // the lock pane replaces the body
	lockErr error
	redis   *RedisKey // a Redis key in place of a znode (redis.go)
	now     time.Time // the last tick (a Redis key's TTL counts down)
	// redisMode: every node is a Redis key (kept across selections).
	redisMode bool
	// identity is who the connection authenticated as ("digest user
	// alice"; "" none), kept across selections.
	identity string
}

// New builds an empty pane drawing with st (a pointer the root model
// updates in place when the theme changes) and marking the nodes made
// lists.
func New(st *themes.Styles, made *common.Made) Model {
	return Model{st: st, made: made, viewer: ViewerAuto}
}

// SetSize sets the pane's outer size in cells.
func (d *Model) SetSize(w, h int) { d.w, d.h = w, h }

// Width and Height are the body's size: what fits inside the border.
func (d *Model) Width() int  { return max(d.w-4, 10) }
func (d *Model) Height() int { return max(d.h-2, 1) }

// Invalidate has the body built again before it is next drawn (after a
// theme change, or when the members' view or what zkscope made changed).
func (d *Model) Invalidate() { d.builtW = 0 }

// Sync builds the body when it is stale or the width changed; the root
// model calls it after every change, never from View.
func (d *Model) Sync() {
	if w := d.Width(); d.builtW != w {
		d.build(w)
	}
}

// Select points the pane at p: known is what is already known of it (ok
// false: nothing) and isLock whether p is a known lock directory. The
// viewer chosen is kept.
func (d *Model) Select(p string, known common.Node, ok, isLock bool) {
	*d = Model{st: d.st, made: d.made, ens: d.ens, w: d.w, h: d.h, path: p, viewer: d.viewer, isLock: isLock, redisMode: d.redisMode, identity: d.identity}
	if ok && known.HasStat {
		d.node, d.loaded = known, true
	}
}

// Reset forgets the node (another context); the viewer is kept.
func (d *Model) Reset() { d.Select("", common.Node{}, false, false) }

// Path is the node shown ("" before the first selection).
func (d *Model) Path() string { return d.path }

// Node is what was last read of it.
func (d *Model) Node() common.Node { return d.node }

// Loaded reports whether the node's stat was read.
func (d *Model) Loaded() bool { return d.loaded }

// Viewer is the data viewer chosen.
func (d *Model) Viewer() Viewer { return d.viewer }

// Scroll is the first body line shown.
func (d *Model) Scroll() int { return d.scroll }

// IsLock reports whether the node is a lock directory (the lock pane is
// shown instead of the body).
func (d *Model) IsLock() bool { return d.isLock }

// LockErr is the error of the last read of the lock (nil when none).
func (d *Model) LockErr() error { return d.lockErr }

// Waiting reports whether the node is being read for the first time.
func (d *Model) Waiting() bool {
	return d.path != "" && !d.loaded && d.err == nil && !d.node.Gone
}

// SetIdentity says who the connection authenticated as ("digest user
// alice"; "" without credentials), for a node it may not read.
func (d *Model) SetIdentity(who string) {
	d.identity = who
	d.Invalidate()
}

// OnWatch applies a change of the node seen through its watch, or a read
// of it that failed (n.Err).
func (d *Model) OnWatch(n common.Node) {
	if n.Path != d.path {
		return
	}
	d.node, d.loaded = n, n.HasStat || n.Gone
	if d.loaded || n.Err != nil {
		d.err = n.Err
	}
	d.Invalidate()
}

// OnStat applies a bulk stat read, until the node's own read answers.
func (d *Model) OnStat(n common.Node) {
	if n.Path == d.path && !d.loaded && n.HasStat {
		d.node, d.loaded = n, true
		d.Invalidate()
	}
}

// OnSelect applies the read of the node with its ACL; it reports whether
// the node was read (false: err, and nothing known of it).
func (d *Model) OnSelect(n common.Node, acl []zk.ACL, err error) bool {
	d.Invalidate()
	d.acl = acl
	if !n.HasStat && !n.Gone {
		d.err = err // nil: a newer read of it answers (OnWatch)
		return false
	}
	d.err = nil
	d.node, d.loaded = n, true
	return true
}

// SetLock says whether the node is a lock directory.
func (d *Model) SetLock(isLock bool) {
	if d.isLock != isLock {
		d.Invalidate()
	}
	d.isLock = isLock
}

// SetLockErr records the error of the last read of the lock (nil: read).
func (d *Model) SetLockErr(err error) { d.lockErr = err }

// SetEnsemble gives the members' view (owners' client addresses).
func (d *Model) SetEnsemble(ens *zkview.Ensemble) {
	d.ens = ens
	d.Invalidate()
}

// NextViewer cycles the data viewer.
func (d *Model) NextViewer() {
	d.viewer = (d.viewer + 1) % viewerCount
	d.scroll = 0
	d.Invalidate()
}

// HandleKey scrolls the body; it reports whether the key asks to go back
// to the tree (←/h).
func (d *Model) HandleKey(msg tea.KeyPressMsg, k common.KeyMap) (back bool) {
	page := max(d.Height()-1, 1)
	switch {
	case key.Matches(msg, k.Up):
		d.scroll--
	case key.Matches(msg, k.Down):
		d.scroll++
	case key.Matches(msg, k.PageUp):
		d.scroll -= page
	case key.Matches(msg, k.PageDown):
		d.scroll += page
	case key.Matches(msg, k.Top):
		d.scroll = 0
	case key.Matches(msg, k.Bottom):
		d.scroll = len(d.lines)
	case key.Matches(msg, k.Collapse):
		back = true
	}
	d.scroll = min(d.scroll, max(len(d.lines)-d.Height(), 0))
	d.scroll = max(d.scroll, 0)
	return back
}

// ScrollBy scrolls the body by step lines (the mouse wheel).
func (d *Model) ScrollBy(step int) {
	d.scroll = max(min(d.scroll+step, len(d.lines)-d.Height()), 0)
}

// View draws the pane with its border (the node's body; the root model
// draws the lock pane and the search results in its place).
func (d *Model) View(focused bool) string {
	innerH := d.Height()
	title := d.path
	if d.redisMode && title != "" {
		title = d.redisTitle() // redis.go
	}
	if title == "" {
		title = "detail"
	}
	from := min(d.scroll, max(len(d.lines)-1, 0))
	to := min(from+innerH, len(d.lines))
	lines := d.lines[from:to]
	if len(d.lines) > innerH {
		title += fmt.Sprintf(" · %d%%", 100*to/len(d.lines))
	}
	return common.Box(d.st, title, common.PadLines(lines, 1), d.w, d.h, focused)
}
