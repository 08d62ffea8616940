package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/tree"
)

// handleKey routes a key: to the connect screen, the front dialog, the
// prompt or overlay of the mode, the view replacing the tree, else the
// tree's screen (its own keys, the lock pane's, the focused pane's).
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.dialing() {
		return m.handleDialKey(msg)
	}
	if m.dialogs.Len() > 0 {
		act, cmd := m.dialogs.Update(msg) // the front dialog (ui/dialog)
		return tea.Batch(cmd, m.onDialogAction(act))
	}
	switch m.mode {
	case modeHelp:
		return m.handleHelpKey(msg)
	case modeFilter, modeCommand, modeSearch:
		return m.handleInputKey(msg)
	case modeDialog: // its form is gone
		m.mode = modeNormal
		return nil
	case modeResults:
		return m.handleResultsKey(msg)
	}
	if m.screen != screenTree {
		return m.handleScreenKey(msg)
	}
	if cmd, ok := m.redisKey(msg); ok {
		return cmd
	}
	if cmd, ok := m.treeScreenKey(msg); ok {
		return cmd
	}
	if key.Matches(msg, m.keys.Lock.Session) && m.detail.IsLock() {
		return m.goToSession()
	}
	if cmd, ok := m.lock.ActionKey(msg, m.tree.CursorPath(), m.detail.IsLock()); ok {
		return cmd
	}
	if m.focus == focusDetail {
		return m.handleDetailKey(msg)
	}
	return m.handleTreeKey(msg)
}

// treeScreenKey handles the keys of the tree's screen that are the same
// whatever the focus (the lock pane's and the panes' own come after); ok
// says msg was one of them.
func (m *Model) treeScreenKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit(), true
	case key.Matches(msg, k.Help):
		m.mode = modeHelp
		return nil, true
	case key.Matches(msg, k.Command):
		return m.openInput(modeCommand, ":", ""), true
	case key.Matches(msg, k.Filter):
		return m.openInput(modeFilter, "/", m.tree.OpenFilter()), true
	case key.Matches(msg, k.Search):
		return m.openInput(modeSearch, "find below "+m.tree.CursorPath()+": ", ""), true // ↑ brings the last query back
	case key.Matches(msg, k.Focus):
		if m.focus == focusTree {
			m.focus = focusDetail
		} else {
			m.focus = focusTree
		}
		return nil, true
	case key.Matches(msg, k.Cancel):
		if m.search.running {
			m.cancelSearch() // the results found so far follow
			return nil, true
		}
		if m.tree.Filter().Query != "" {
			m.tree.ClearFilter()
		}
		m.focus = focusTree
		return nil, true
	case key.Matches(msg, k.Refresh):
		if m.cache != nil {
			m.cache.Refresh()
			m.tree.ForgetNodes()
			m.statsWant = map[string]bool{}
			m.setStatus(common.LevelInfo, "Reloading…")
			return m.selectPath(m.tree.CursorPath()), true
		}
		return nil, true
	case key.Matches(msg, k.Yank):
		p := m.tree.CursorPath()
		m.setStatus(common.LevelOK, "Copied "+p+" to the clipboard (through the terminal: OSC 52).")
		return tea.SetClipboard(p), true
	case key.Matches(msg, k.Viewer):
		m.detail.NextViewer()
		return nil, true
	case key.Matches(msg, k.Create, k.Edit, k.EditInline, k.Delete, k.DeleteTree):
		return m.startEdit(msg), true
	}
	return nil, false
}

// quit ends the program, asking first while we hold a lock.
func (m *Model) quit() tea.Cmd {
	if m.lock.Holding() {
		return m.lock.ConfirmQuit()
	}
	return tea.Quit
}

func (m *Model) handleTreeKey(msg tea.KeyPressMsg) tea.Cmd {
	return m.onTreeRequest(m.tree.HandleKey(msg, m.keys))
}

// onTreeRequest opens or closes the directory the tree asked for.
func (m *Model) onTreeRequest(r tree.Request) tea.Cmd {
	if r.Collapse != "" {
		m.collapse(r.Collapse)
	}
	if r.Expand != "" {
		return m.expand(r.Expand)
	}
	return nil
}

func (m *Model) handleDetailKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.detail.IsLock() {
		return m.lock.Update(msg)
	}
	if m.detail.HandleKey(msg, m.keys) {
		m.focus = focusTree
	}
	return nil
}

// openInput starts the one-line input at the bottom: a new input each
// time, so nothing of the last prompt (its text, the `:` line's matched
// suggestions, which tab would accept) shows in the next.
func (m *Model) openInput(md mode, prompt, value string) tea.Cmd {
	m.mode = md
	m.input = textinput.New()
	m.input.Prompt = prompt
	switch md {
	case modeCommand:
		m.input.Placeholder = "cd /path · ctx name · locks · theme name · q"
	case modeFilter:
		m.input.Placeholder = "substring or fuzzy; enter keeps, esc clears"
	case modeSearch:
		if m.lastFind != "" {
			m.input.Placeholder = "↑ " + m.lastFind
		}
	}
	m.input.SetValue(value)
	m.input.CursorEnd()
	m.input.SetWidth(max(m.width-len(prompt)-2, 10))
	m.input.ShowSuggestions = md == modeCommand // complete.go
	return m.input.Focus()
}

func (m *Model) closeInput() {
	m.mode = modeNormal
	m.tree.CloseFilter()
	m.input.Blur()
}

func (m *Model) handleInputKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		if m.mode == modeFilter && m.screen == screenSessions {
			m.sessView.SetFilter("")
		} else if m.mode == modeFilter {
			m.tree.ClearFilter()
		}
		m.closeInput()
		return nil
	case key.Matches(msg, k.Confirm):
		v := strings.TrimSpace(m.input.Value())
		md := m.mode
		m.closeInput()
		switch md {
		case modeCommand:
			return m.runCommand(v)
		case modeSearch:
			return m.startSearch(v)
		case modeFilter:
			if v == "" && m.screen == screenSessions {
				m.sessView.SetFilter("")
			} else if v == "" {
				m.tree.ClearFilter()
			}
		}
		return nil
	case key.Matches(msg, k.ForceQuit):
		return m.quit()
	case m.mode == modeCommand && key.Matches(msg, k.Complete):
		return m.complete()
	case m.mode == modeSearch && key.Matches(msg, k.PrevQuery) && m.lastFind != "":
		m.input.SetValue(m.lastFind)
		m.input.CursorEnd()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	switch m.mode {
	case modeFilter:
		if m.screen == screenSessions {
			m.sessView.SetFilter(m.input.Value())
		} else {
			m.tree.SetFilter(m.input.Value())
		}
	case modeCommand:
		m.compl.candidates, m.compl.err = nil, ""
		m.input.SetSuggestions(m.commandSuggestions(m.input.Value()))
		cmd = tea.Batch(cmd, m.askCompletion(m.input.Value()))
	}
	return cmd
}

func (m *Model) handleResultsKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	s := &m.search
	switch {
	case key.Matches(msg, k.Cancel), key.Matches(msg, k.Quit):
		m.mode = modeNormal
		m.stopLocksFollow()
		return nil
	case key.Matches(msg, k.Up):
		s.cursor--
	case key.Matches(msg, k.Down):
		s.cursor++
	case key.Matches(msg, k.PageUp):
		s.cursor -= m.detailHeight()
	case key.Matches(msg, k.PageDown):
		s.cursor += m.detailHeight()
	case key.Matches(msg, k.Top):
		s.cursor = 0
	case key.Matches(msg, k.Bottom):
		s.cursor = len(s.hits) - 1
	case key.Matches(msg, k.Confirm), key.Matches(msg, k.Expand):
		if s.cursor < len(s.hits) {
			m.mode = modeNormal
			m.stopLocksFollow()
			return m.cd(s.hits[s.cursor].Path)
		}
	}
	s.cursor = max(min(s.cursor, len(s.hits)-1), 0)
	return nil
}

// handleClick selects the row clicked, or focuses the pane clicked.
func (m *Model) handleClick(ms tea.Mouse) tea.Cmd {
	if m.mode != modeNormal || ms.Button != tea.MouseLeft {
		return nil
	}
	top := bodyTop + 1
	if ms.X < m.treeWidth() {
		m.focus = focusTree
		return m.onTreeRequest(m.tree.Click(ms.Y - top))
	}
	m.focus = focusDetail
	return nil
}

func (m *Model) handleWheel(ms tea.Mouse) {
	step := 0
	switch ms.Button {
	case tea.MouseWheelUp:
		step = -3
	case tea.MouseWheelDown:
		step = 3
	default:
		return
	}
	if ms.X < m.treeWidth() {
		m.tree.Scroll(step)
		return
	}
	m.detail.ScrollBy(step)
}
