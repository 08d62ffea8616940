// Package ensemble is the TUI's ensemble view (`:ensemble`): one row per
// member (role, version, zxid and epoch, latency, outstanding requests,
// connections, watches, znodes, data size, how it answered), the
// configured members the connect string lacks, and what changed between
// refreshes (a member going down, a new leader), highlighted.
//
// It does no I/O: the root asks the members (zkview) on a tick and hands
// each snapshot to [Model.SetEnsemble]. It imports no other ui package
// but ui/common.
package ensemble

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview"
)

// keepEvents is how many change lines the view keeps.
const keepEvents = 5

// Model is the ensemble view.
type Model struct {
	st     *themes.Styles
	w, h   int
	last   *zkview.Ensemble
	report report.EnsembleReport
	// marked maps a member's address to why it is highlighted (it went
	// down, or it is a new leader), until it changes again.
	marked map[string]string
	events []string // the latest changes, newest last, with their time
	cursor int
}

// New returns an empty view drawing with st.
func New(st *themes.Styles) Model { return Model{st: st, marked: map[string]string{}} }

// SetSize sets the outer size the view draws in.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// Loaded reports whether a snapshot has arrived.
func (m *Model) Loaded() bool { return m.last != nil }

// SetEnsemble takes a new snapshot; what changed since the previous one is
// highlighted and listed.
func (m *Model) SetEnsemble(e *zkview.Ensemble) {
	m.report = report.NewEnsembleReport(e, m.last)
	for _, c := range m.report.Changes {
		m.events = append(m.events, e.At.Format("15:04:05")+"  "+c)
	}
	if len(m.events) > keepEvents {
		m.events = m.events[len(m.events)-keepEvents:]
	}
	if m.last != nil {
		prevLeader := m.last.Leader()
		for _, mem := range m.report.Members {
			was := ""
			for i := range m.last.Members {
				if m.last.Members[i].Addr == mem.Addr {
					was = m.last.Members[i].Role()
				}
			}
			switch {
			case mem.Role == zkview.RoleDown && was != zkview.RoleDown:
				m.marked[mem.Addr] = "down"
			case mem.Role == "leader" && (prevLeader == nil || prevLeader.Addr != mem.Addr):
				m.marked[mem.Addr] = "new leader"
			case mem.Role != zkview.RoleDown && m.marked[mem.Addr] == "down":
				delete(m.marked, mem.Addr)
			}
		}
	}
	m.last = e
	m.cursor = min(m.cursor, max(len(m.report.Members)-1, 0))
}

// Move moves the cursor by delta rows.
func (m *Model) Move(delta int) {
	m.cursor = max(min(m.cursor+delta, len(m.report.Members)-1), 0)
}

// Selected is the address of the member under the cursor ("" when none).
func (m *Model) Selected() string {
	if m.cursor < len(m.report.Members) {
		return m.report.Members[m.cursor].Addr
	}
	return ""
}

var header = []string{"MEMBER", "ID", "ROLE", "VERSION", "ZXID", "EPOCH", "LATENCY", "OUT", "CONNS", "WATCHES", "ZNODES", "DATA", "ASKED"}

// View draws the view in its box.
func (m Model) View() string {
	title := "ensemble"
	if m.last != nil {
		title += " · " + m.last.At.Format("15:04:05") + " · r refreshes, esc back"
	}
	return common.Box(m.st, title, m.lines(), m.w, m.h, true)
}

func (m Model) lines() []string {
	if m.last == nil {
		return []string{m.st.Muted.Render(" asking the members…")}
	}
	rows := [][]string{header}
	for _, mem := range m.report.Members {
		rows = append(rows, report.EnsembleRow(mem))
	}
	widths := make([]int, len(header))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], lipgloss.Width(c))
		}
	}
	var out []string
	for i, r := range rows {
		cells := make([]string, len(r))
		for j, c := range r {
			cells[j] = c + strings.Repeat(" ", widths[j]-lipgloss.Width(c))
		}
		line := " " + strings.Join(cells, "  ")
		if i == 0 {
			out = append(out, m.st.Bold.Render(line))
			continue
		}
		mem := m.report.Members[i-1]
		if why := m.marked[mem.Addr]; why != "" {
			line += "  ◀ " + why
		}
		out = append(out, m.rowStyle(mem, i-1).Render(line))
	}
	out = append(out, "")
	for _, mem := range m.report.Members {
		if mem.Error != nil {
			out = append(out, m.st.Error.Render(" ! "+printable.String(mem.Addr+": "+*mem.Error)))
		}
	}
	for _, mem := range m.report.Members {
		if mem.Fix != nil {
			out = append(out, m.st.Warning.Render(printable.String(fmt.Sprintf(" %s refused %s: add %s to zoo.cfg on every member and restart them",
				mem.Addr, strings.Join(mem.Refused, ","), *mem.Fix))))
			break
		}
	}
	if len(m.events) > 0 {
		out = append(out, "", m.st.Section.Render(" changes"))
		for _, ev := range m.events {
			out = append(out, m.st.Warning.Render(" * "+printable.String(ev)))
		}
	}
	return out
}

// rowStyle colours a member by role and highlight; the cursor row is
// reversed.
func (m Model) rowStyle(mem report.MemberReport, i int) lipgloss.Style {
	s := m.st.Row
	switch {
	case m.marked[mem.Addr] != "":
		s = m.st.Warning.Bold(true)
	case mem.Role == zkview.RoleDown:
		s = m.st.Error
	case mem.Role == "leader" || mem.Role == "standalone":
		s = m.st.Holder
	}
	if i == m.cursor {
		s = s.Reverse(true)
	}
	return s
}

// Since says how old the snapshot is (zero before the first).
func (m Model) Since(now time.Time) time.Duration {
	if m.last == nil {
		return 0
	}
	return now.Sub(m.last.At)
}
