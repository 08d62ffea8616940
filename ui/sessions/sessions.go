// Package sessions is the TUI's session view (`:sessions`): one row per
// session the members report (id, client, member, timeout, age, last
// operation, packets, ephemerals, locks), each followed by the locks it
// holds and waits on below the scanned path, with how long. Rows sort by
// a key cycled with s and filter with /; the cursor moves over sessions
// and their locks alike, so the root can jump to the lock under it.
//
// It does no I/O: the root scans and asks the members on a tick and hands
// each result to [Model.SetSessions], with the words after the sessions
// that [Notes] makes of it. It imports no other ui package but ui/common.
package sessions

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

// SortKey orders the sessions.
type SortKey int

// The sort keys, in the order s cycles through them.
const (
	SortLocks  SortKey = iota // most locks held and waited on first
	SortID                    // session id
	SortAge                   // oldest connection first
	SortClient                // client address
	SortLastOp                // last operation
	sortKeys
)

// String is the key's name in the title.
func (k SortKey) String() string {
	return [...]string{"locks", "id", "age", "client", "last op"}[k]
}

// row is one line of the list: a session, or one of its locks.
type row struct {
	s    int // index into Model.shown
	lock *diagnose.SessionLock
	hold bool
}

// Model is the session view.
type Model struct {
	st     *themes.Styles
	w, h   int
	all    []diagnose.Session
	at     time.Time
	root   string
	err    error
	loaded bool
	sort   SortKey
	filter string
	// Notes are extra words per session (e.g. "hung?"), set by the root.
	notes map[int64]string
	// seen is when each wait by watch alone (no node, so no time the
	// servers keep) was first seen, by session and node, for the root.
	seen   map[string]time.Time
	shown  []diagnose.Session
	rows   []row
	cursor int
	offset int
}

// New returns an empty view drawing with st.
func New(st *themes.Styles) Model { return Model{st: st} }

// SetSize sets the outer size the view draws in.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.clamp() }

// Loaded reports whether a result has arrived.
func (m *Model) Loaded() bool { return m.loaded }

// Root is the path whose locks are joined ("" before the first result).
func (m *Model) Root() string { return m.root }

// SetSessions shows ss, joined with the locks below root, as read at at;
// the cursor stays on the same session or lock when it is still there.
func (m *Model) SetSessions(ss []diagnose.Session, root string, at time.Time) {
	keep := m.selectedKey()
	m.noteWatchWaits(ss, root, at)
	m.all, m.root, m.at, m.err, m.loaded = ss, root, at, nil, true
	m.rebuild(keep)
}

// noteWatchWaits remembers when each wait by watch alone of ss was first
// seen (forgetting those gone, and all of them for another root).
func (m *Model) noteWatchWaits(ss []diagnose.Session, root string, at time.Time) {
	if root != m.root {
		m.seen = nil
	}
	next := map[string]time.Time{}
	for _, s := range ss {
		for _, l := range s.WaitsOn {
			if l.WatchOnly {
				k := watchKey(s.ID, l.Node)
				if t, ok := m.seen[k]; ok {
					next[k] = t
				} else {
					next[k] = at
				}
			}
		}
	}
	m.seen = next
}

func watchKey(id int64, node string) string { return fmt.Sprintf("%x %s", id, node) }

// All is every session of the last result, filtered out or not.
func (m *Model) All() []diagnose.Session { return m.all }

// SetError shows why the last read failed (the rows stay).
func (m *Model) SetError(err error) { m.err, m.loaded = err, true }

// SetNotes sets a word to show after some sessions' rows.
func (m *Model) SetNotes(n map[int64]string) { m.notes = n }

// CycleSort moves to the next sort key.
func (m *Model) CycleSort() SortKey {
	m.sort = (m.sort + 1) % sortKeys
	m.rebuild(m.selectedKey())
	return m.sort
}

// SetFilter keeps the sessions whose id, client, member, last operation or
// one of whose locks contains q (any case).
func (m *Model) SetFilter(q string) {
	m.filter = q
	m.rebuild(m.selectedKey())
}

// Filter is the filter typed.
func (m *Model) Filter() string { return m.filter }

// Move moves the cursor by delta rows.
func (m *Model) Move(delta int) { m.cursor += delta; m.clamp() }

// Top and Bottom move to the first and last row.
func (m *Model) Top()    { m.cursor = 0; m.clamp() }
func (m *Model) Bottom() { m.cursor = len(m.rows) - 1; m.clamp() }

// Selected is the session under the cursor and, when the cursor is on one
// of its locks, that lock (nil otherwise); ok is false when the list is
// empty.
func (m *Model) Selected() (s diagnose.Session, l *diagnose.SessionLock, ok bool) {
	if m.cursor >= len(m.rows) {
		return diagnose.Session{}, nil, false
	}
	r := m.rows[m.cursor]
	return m.shown[r.s], r.lock, true
}

// Focus puts the cursor on session id, clearing a filter that hides it.
// It reports whether the session is listed.
func (m *Model) Focus(id int64) bool {
	if m.find(id) < 0 && m.filter != "" {
		m.SetFilter("")
	}
	i := m.find(id)
	if i < 0 {
		return false
	}
	m.cursor = i
	m.clamp()
	return true
}

func (m *Model) find(id int64) int {
	for i, r := range m.rows {
		if r.lock == nil && m.shown[r.s].ID == id {
			return i
		}
	}
	return -1
}

// selectedKey names the row under the cursor so a rebuild can find it.
func (m *Model) selectedKey() string {
	s, l, ok := m.Selected()
	if !ok {
		return ""
	}
	if l != nil {
		return fmt.Sprintf("%x %s", s.ID, l.Node)
	}
	return fmt.Sprintf("%x", s.ID)
}

func (m *Model) rebuild(keep string) {
	m.shown = m.shown[:0]
	q := strings.ToLower(m.filter)
	for _, s := range m.all {
		if q == "" || strings.Contains(searchText(s), q) {
			m.shown = append(m.shown, s)
		}
	}
	slices.SortStableFunc(m.shown, m.less)
	m.rows = m.rows[:0]
	for i := range m.shown {
		s := &m.shown[i]
		m.rows = append(m.rows, row{s: i})
		for j := range s.Holds {
			m.rows = append(m.rows, row{s: i, lock: &s.Holds[j], hold: true})
		}
		for j := range s.WaitsOn {
			m.rows = append(m.rows, row{s: i, lock: &s.WaitsOn[j]})
		}
	}
	for i := range m.rows {
		m.cursor = i
		if m.selectedKey() == keep {
			m.clamp()
			return
		}
	}
	m.cursor = 0
	m.clamp()
}

func searchText(s diagnose.Session) string {
	parts := []string{lockops.FormatSession(s.ID), s.Client, s.Member, s.LastOp}
	for _, l := range slices.Concat(s.Holds, s.WaitsOn) {
		parts = append(parts, l.Lock, l.Node)
	}
	return strings.ToLower(strings.Join(parts, " "))
}

func (m *Model) less(a, b diagnose.Session) int {
	byID := cmp.Compare(uint64(a.ID), uint64(b.ID))
	var c int
	switch m.sort {
	case SortLocks:
		c = cmp.Compare(len(b.Holds)+len(b.WaitsOn), len(a.Holds)+len(a.WaitsOn))
	case SortAge:
		c = cmp.Compare(a.Established.UnixMilli(), b.Established.UnixMilli())
	case SortClient:
		c = cmp.Compare(a.Client, b.Client)
	case SortLastOp:
		c = cmp.Compare(a.LastOp, b.LastOp)
	}
	return cmp.Or(c, byID)
}

// listHeight is how many rows fit under the header.
func (m *Model) listHeight() int { return max(m.h-2-2, 1) }

func (m *Model) clamp() {
	m.cursor = max(min(m.cursor, len(m.rows)-1), 0)
	h := m.listHeight()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	m.offset = max(min(m.offset, len(m.rows)-h), 0)
}

var header = []string{"SESSION", "CLIENT", "MEMBER", "TIMEOUT", "AGE", "LAST OP", "RECV/SENT", "EPHEMERALS", "HOLDS", "WAITS"}

// View draws the view in its box.
func (m Model) View() string {
	title := "sessions"
	if m.loaded {
		title += fmt.Sprintf(" · %d", len(m.all))
		if m.filter != "" {
			title += fmt.Sprintf(" (%d shown, /%s)", len(m.shown), m.filter)
		}
		title += " · locks below " + m.root + " · sorted by " + m.sort.String() + " · s sort, / filter, ⏎ go to lock, r refresh, esc back"
	}
	return common.Box(m.st, title, m.lines(), m.w, m.h, true)
}

func (m Model) lines() []string {
	if !m.loaded {
		return []string{m.st.Muted.Render(" asking the members and scanning the locks…")}
	}
	var out []string
	if m.err != nil {
		out = append(out, m.st.Error.Render(" ! "+printable.String(common.Sentence(m.err.Error()))))
	}
	if len(m.shown) == 0 {
		msg := " the members report no session"
		if m.filter != "" {
			msg = " no session matches /" + m.filter
		}
		return append(out, m.st.Muted.Render(msg))
	}
	cells := make([][]string, len(m.shown))
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = lipgloss.Width(h)
	}
	for i, s := range m.shown {
		cells[i] = report.SessionRow(s, m.at)
		for j, c := range cells[i] {
			widths[j] = max(widths[j], lipgloss.Width(c))
		}
	}
	cols := fitColumns(widths, m.w-3) // the box's edges and the leading space take 3
	out = append(out, m.st.Bold.Render(" "+pad(pick(header, cols), pick(widths, cols))), "")
	end := min(m.offset+m.listHeight(), len(m.rows))
	for i := m.offset; i < end; i++ {
		r := m.rows[i]
		var line string
		style := m.st.Row
		if r.lock == nil {
			line = " " + pad(pick(cells[r.s], cols), pick(widths, cols))
			if n := m.notes[m.shown[r.s].ID]; n != "" {
				line += "  ◀ " + n
				style = m.st.Warning
			}
			if m.shown[r.s].Ours {
				style = m.st.Muted
			}
		} else {
			verb, st := "waits on", m.st.Waiter
			how := report.WaitedFor(*r.lock, m.at)
			if r.hold {
				verb, st, how = "holds   ", m.st.Holder, report.HeldAge(*r.lock, m.at)
			}
			if r.lock.WatchOnly {
				how = "watching " + r.lock.Node + " (owns no node)"
				if t, ok := m.seen[watchKey(m.shown[r.s].ID, r.lock.Node)]; ok && m.at.Sub(t) >= time.Second {
					how += ", seen waiting for " + lockops.FormatAge(m.at.Sub(t))
				}
				line = fmt.Sprintf("     %s %s  %s %s  %s", verb, r.lock.Lock, r.lock.Kind, r.lock.Mode, how)
			} else {
				line = fmt.Sprintf("     %s %s  %s %s  %s  %s", verb, r.lock.Lock, r.lock.Kind, r.lock.Mode, baseName(r.lock.Node), how)
			}
			style = st
		}
		if i == m.cursor {
			style = m.st.RowSelected
		}
		out = append(out, style.Render(common.Truncate(printable.String(line), m.w-2)))
	}
	return out
}

// dropFirst are the columns a table too wide for the box leaves out,
// first to last: packets, member, ephemerals, last op, timeout (the
// session, its client, age and locks always show).
var dropFirst = []int{6, 2, 7, 5, 3}

// fitColumns are the indices of the columns shown in room cells, each
// widths wide, two spaces apart.
func fitColumns(widths []int, room int) []int {
	cols := make([]int, len(widths))
	for i := range cols {
		cols[i] = i
	}
	total := func() int {
		n := 2 * (len(cols) - 1)
		for _, c := range cols {
			n += widths[c]
		}
		return n
	}
	for _, d := range dropFirst {
		if total() <= room {
			break
		}
		cols = slices.DeleteFunc(cols, func(c int) bool { return c == d })
	}
	return cols
}

// pick is the cells at cols.
func pick[T any](cells []T, cols []int) []T {
	out := make([]T, len(cols))
	for i, c := range cols {
		out[i] = cells[c]
	}
	return out
}

func pad(cells []string, widths []int) string {
	out := make([]string, len(cells))
	for j, c := range cells {
		out[j] = c + strings.Repeat(" ", widths[j]-lipgloss.Width(c))
	}
	return strings.TrimRight(strings.Join(out, "  "), " ")
}

// baseName is a lock node's name, its random part shortened as the lock
// pane shortens it (so the wait's age after it fits).
func baseName(p string) string { return lockops.ShortName(p[strings.LastIndexByte(p, '/')+1:]) }
