package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// handleHelpKey scrolls the `?` screen when it does not fit (movement
// keys); any other key goes back.
func (m *Model) handleHelpKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if key.Matches(msg, k.ForceQuit) {
		return m.quit()
	}
	innerH := m.height - 2
	if most := m.helpScrollMax(); most > 0 {
		page := max(innerH-2, 1)
		switch {
		case key.Matches(msg, k.Down):
			m.helpScroll++
		case key.Matches(msg, k.Up):
			m.helpScroll--
		case key.Matches(msg, k.PageDown):
			m.helpScroll += page
		case key.Matches(msg, k.PageUp):
			m.helpScroll -= page
		case key.Matches(msg, k.Top):
			m.helpScroll = 0
		case key.Matches(msg, k.Bottom):
			m.helpScroll = most
		default:
			m.mode, m.helpScroll = modeNormal, 0
			return nil
		}
		m.helpScroll = min(max(m.helpScroll, 0), most)
		return nil
	}
	m.mode, m.helpScroll = modeNormal, 0
	return nil
}

// helpScrollMax is the last first line the `?` screen can scroll to (0:
// it fits). A scrolling screen drops its "press any key" line and keeps
// its last row for the scroll hint.
func (m *Model) helpScrollMax() int {
	n := len(m.helpLines())
	innerH := m.height - 2
	if n <= innerH {
		return 0
	}
	return n - 1 - (innerH - 1)
}
