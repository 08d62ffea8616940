package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/ensemble"
	"github.com/zkscope/zkscope/ui/sessions"
)

// The views that replace the tree (`:ensemble`, `:sessions`): opening
// them, their reads' replies, their keys and title line. Their reads are
// in reads.go (askEnsembleView, askSessionsView).

// helpKeys is the key map the footer and the `?` screen show: the view's
// that replaces the tree, else the root's (which switches on focus).
func (m *Model) helpKeys() help.KeyMap {
	switch m.screen {
	case screenEnsemble:
		return ensemble.Keys(m.keys)
	case screenSessions:
		return sessions.Keys(m.keys)
	}
	return m.keys
}

// handleScreenKey routes a key while a view replaces the tree, by the
// view's own key map (the one its help shows): esc goes back, ↑/↓ move,
// r asks again, : ? and q work as everywhere.
func (m *Model) handleScreenKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.screen == screenSessions {
		return m.handleSessionsKey(msg)
	}
	k := ensemble.Keys(m.keys)
	if cmd, ok := m.everywhereKey(msg, k.Quit, k.Help, k.Command); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Back):
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

// everywhereKey handles the keys that work in every view (quit, help, the
// `:` line); ok says msg was one of them.
func (m *Model) everywhereKey(msg tea.KeyPressMsg, quit, help, command key.Binding) (cmd tea.Cmd, ok bool) {
	switch {
	case key.Matches(msg, quit):
		return m.quit(), true
	case key.Matches(msg, help):
		m.mode = modeHelp
		return nil, true
	case key.Matches(msg, command):
		return m.openInput(modeCommand, ":", ""), true
	}
	return nil, false
}

// handleSessionsKey: ↑/↓ move over sessions and their locks, s cycles the
// sort key, / filters, ⏎ on a lock goes to it in the tree and the lock
// pane, r reads again, esc clears the filter, then goes back.
func (m *Model) handleSessionsKey(msg tea.KeyPressMsg) tea.Cmd {
	k := sessions.Keys(m.keys)
	v := &m.sessView
	if cmd, ok := m.everywhereKey(msg, k.Quit, k.Help, k.Command); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Back):
		if v.Filter() != "" {
			v.SetFilter("")
			return nil
		}
		m.screen = screenTree
	case key.Matches(msg, k.Up):
		v.Move(-1)
	case key.Matches(msg, k.Down):
		v.Move(1)
	case key.Matches(msg, k.PageUp):
		v.Move(-m.height / 2)
	case key.Matches(msg, k.PageDown):
		v.Move(m.height / 2)
	case key.Matches(msg, k.Top):
		v.Top()
	case key.Matches(msg, k.Bottom):
		v.Bottom()
	case key.Matches(msg, k.Sort):
		m.setStatus(common.LevelInfo, "Sessions sorted by "+v.CycleSort().String()+".")
	case key.Matches(msg, k.Filter):
		return m.openInput(modeFilter, "/", v.Filter())
	case key.Matches(msg, k.Refresh):
		return m.openSessions(m.sessRoot)
	case key.Matches(msg, k.GoTo):
		return m.goToSelectedLock()
	}
	return nil
}

// goToSelectedLock goes to the lock under the session view's cursor (on a
// session row, says how to pick one of its locks).
func (m *Model) goToSelectedLock() tea.Cmd {
	s, l, ok := m.sessView.Selected()
	if !ok {
		return nil
	}
	if l == nil {
		m.setStatus(common.LevelInfo, fmt.Sprintf("Session %s: move to one of its locks (↓) and press ⏎ to go to it.", lockops.FormatSession(s.ID)))
		return nil
	}
	return m.goToLockNode(l.Lock, l.Node)
}

// goToLockNode shows the tree at lock with node selected in the lock pane
// (focused).
func (m *Model) goToLockNode(lock, node string) tea.Cmd {
	m.screen = screenTree
	m.focus = focusDetail
	m.lock.SelectNode(node)
	m.setStatus(common.LevelInfo, "Going to "+node+"…")
	return m.cd(lock)
}

// goToSession opens the session view on the session of the lock pane's
// selected participant.
func (m *Model) goToSession() tea.Cmd {
	x, ok := m.lock.Selected()
	if !ok || x.Session == 0 {
		m.setStatus(common.LevelWarn, "Pick an ephemeral node of the queue first (tab, then ↑/↓): a persistent node has no session.")
		return nil
	}
	root := m.sessRoot
	if root == "" {
		root = "/"
	}
	cmd := m.openSessions(root)
	m.sessFocus = x.Session
	if m.sessView.Loaded() && m.sessView.Focus(x.Session) {
		m.sessFocus = 0
	}
	return cmd
}

// screenTitle replaces the breadcrumbs above a view.
func (m *Model) screenTitle() string {
	switch m.screen {
	case screenSessions:
		return common.Truncate(m.st.Breadcrumb.Render(" sessions the members report, with their locks below "+printable.String(m.sessRoot)+" (every 5 s; s sorts, / filters, ⏎ on a lock goes to it)"), m.width)
	case screenEnsemble:
		servers := m.opts.Servers
		if m.client != nil {
			servers = m.client.Servers()
		}
		return common.Truncate(m.st.Breadcrumb.Render(" members of "+strings.Join(servers, ",")+" (every 3 s; a member going down or a new leader is marked ◀)"), m.width)
	}
	return ""
}

// onEnsembleView shows a detailed snapshot and, while the view is open,
// asks again after a pause.
func (m *Model) onEnsembleView(msg ensembleViewMsg) tea.Cmd {
	if !m.current("ensemble-view", msg.id) {
		return nil
	}
	m.ensView.SetEnsemble(msg.ens)
	if m.screen != screenEnsemble || m.client == nil {
		return nil
	}
	return askEnsembleView(m.client.Config(), m.nextID("ensemble-view"), true)
}

// onSessionsView shows the sessions, with what is wrong with them, and,
// while the view is open, reads again after a pause.
func (m *Model) onSessionsView(msg sessionsViewMsg) tea.Cmd {
	if !m.current("sessions-view", msg.id) {
		return nil
	}
	m.sessPings.Add(msg.ens)
	m.sessView.SetSessions(msg.ss, msg.root, msg.at)
	if m.sessFocus != 0 {
		if !m.sessView.Focus(m.sessFocus) {
			m.setStatus(common.LevelWarn, "No member reports session "+lockops.FormatSession(m.sessFocus)+" any more.")
		}
		m.sessFocus = 0
	}
	m.sessView.SetNotes(sessions.Notes(msg.queues, msg.ens, &m.sessPings, msg.at))
	if msg.err != nil {
		m.sessView.SetError(msg.err)
	}
	if m.screen != screenSessions || m.client == nil {
		return nil
	}
	return askSessionsView(m.client, m.sessRoot, m.nextID("sessions-view"), true)
}

// openSessions shows the session view with the locks below root and reads
// now.
func (m *Model) openSessions(root string) tea.Cmd {
	m.screen = screenSessions
	if root != m.sessRoot {
		m.sessPings = diagnose.PingWatch{}
	}
	m.sessRoot = root
	m.layout()
	if m.client == nil {
		return nil
	}
	m.setStatus(common.LevelInfo, "Asking the members for their sessions and scanning the locks below "+root+"…")
	return askSessionsView(m.client, root, m.nextID("sessions-view"), false)
}

// openEnsemble shows the ensemble view and asks the members now.
func (m *Model) openEnsemble() tea.Cmd {
	m.screen = screenEnsemble
	m.layout()
	if m.client == nil {
		return nil
	}
	return askEnsembleView(m.client.Config(), m.nextID("ensemble-view"), false)
}
