package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/printable"
)

// busyState is the header's spinner: it turns, and ticks, only while a
// read the user waits for is in flight (a directory being listed, a `:cd`,
// the node under the cursor being read).
type busyState struct {
	spin    spinner.Model
	ticking bool
}

func newBusy() busyState {
	return busyState{spin: spinner.New(spinner.WithSpinner(spinner.MiniDot))}
}

// busyWhat says what the user is waiting for ("" when nothing). Without a
// tree (tests built from plain values) nothing is ever in flight.
func (m *Model) busyWhat() string {
	if m.cache == nil {
		return ""
	}
	if r := m.deleting; r != nil {
		return fmt.Sprintf("deleting %s (%d gone)", r.path, r.deleted)
	}
	if w := m.redisBusy(); w != "" {
		return w
	}
	if p, ok := m.tree.Loading(); ok {
		return "listing " + p
	}
	if _, ok := m.reqs["cd"]; ok {
		return "opening"
	}
	if m.detail.Waiting() {
		return "reading " + m.detail.Path()
	}
	return ""
}

// busyCmd starts the spinner's ticks when something became busy.
func (m *Model) busyCmd() tea.Cmd {
	if m.busy.ticking || m.busyWhat() == "" {
		return nil
	}
	m.busy.ticking = true
	return m.busy.spin.Tick
}

// onBusySpin turns the spinner while busy and lets its ticks stop after.
func (m *Model) onBusySpin(msg spinner.TickMsg) tea.Cmd {
	if msg.ID != m.busy.spin.ID() {
		return nil
	}
	if m.busyWhat() == "" {
		m.busy.ticking = false
		return nil
	}
	var cmd tea.Cmd
	m.busy.spin, cmd = m.busy.spin.Update(msg)
	return cmd
}

// busyView is the header's busy mark ("" when idle).
func (m *Model) busyView() string {
	what := printable.String(m.busyWhat())
	if what == "" {
		return ""
	}
	// Keep the verb and the end of the path (the part that differs).
	const most = 36
	if verb, rest, ok := strings.Cut(what, " "); ok && ansi.StringWidth(what) > most {
		keep := max(most-len(verb)-2, 8)
		if rw := ansi.StringWidth(rest); rw > keep {
			rest = "…" + ansi.TruncateLeft(rest, rw-keep, "")
		}
		what = verb + " " + rest
	}
	return m.st.StateWarn.Render(m.busy.spin.View()+" "+strings.TrimSpace(what)) + m.st.Header.Render("  ")
}
