package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/ui/common"
)

// The views that replace the tree (`:ensemble`): their keys and title line.

// handleScreenKey routes a key while a view replaces the tree: esc goes
// back, ↑/↓ move, r asks again, : ? and q work as everywhere.
func (m *Model) handleScreenKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.mode = modeHelp
	case key.Matches(msg, k.Command):
		return m.openInput(modeCommand, ":", "")
	case key.Matches(msg, k.Cancel):
		m.screen = screenTree
	case key.Matches(msg, k.Up):
		m.ensView.Move(-1)
	case key.Matches(msg, k.Down):
		m.ensView.Move(1)
	case key.Matches(msg, k.Refresh):
		m.setStatus(common.LevelInfo, "Asking the members…")
		return m.openEnsemble()
	}
	return nil
}

// screenTitle replaces the breadcrumbs above a view.
func (m *Model) screenTitle() string {
	switch m.screen {
	case screenEnsemble:
		servers := m.opts.Servers
		if m.client != nil {
			servers = m.client.Servers()
		}
		return common.Truncate(m.st.Breadcrumb.Render(" members of "+strings.Join(servers, ",")+" (every 3 s; a member going down or a new leader is marked ◀)"), m.width)
	}
	return ""
}
