package ui

import (
	"context"
	"errors"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/lockpane"
	"github.com/zkscope/zkscope/zkview"
)

// Update implements [tea.Model].
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	shown := m.lock.Shown()
	cmd := m.update(msg)
	m.frames.lockPane(m.lock.Churning(), m.lock.Shown() != shown)
	return m, m.frames.afterUpdate(msg, cmd)
}

// update routes msg: the terminal's messages (its size and background,
// keys, the mouse) here, every answer through updateReply; then it keeps
// the derived state in step (afterChange).
func (m *Model) update(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.layout()
	case tea.BackgroundColorMsg:
		m.darkBG = msg.IsDark()
		m.applyTheme()
		m.detail.Invalidate()
	case tea.KeyPressMsg:
		m.keyPressed()
		cmds = append(cmds, m.handleKey(msg))
	case tea.MouseClickMsg:
		cmds = append(cmds, m.handleClick(msg.Mouse()))
	case tea.MouseWheelMsg:
		m.handleWheel(msg.Mouse())
	default:
		cmds = m.updateReply(msg)
	}
	cmds = append(cmds, m.afterChange(), m.busyCmd())
	return tea.Batch(cmds...)
}

// updateReply routes an answer of the root's commands (or the lock pane's,
// the dialogs') to what it is for; update calls it for every message that
// is not the terminal's.
func (m *Model) updateReply(msg tea.Msg) []tea.Cmd {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case connMsg:
		m.onConn(msg.ev)
		cmds = append(cmds, listenConn(m.conn))
		if msg.ev.State == zkview.StateConnected && m.client != nil {
			cmds = append(cmds, introspect(m.client, m.nextID("ensemble"), false))
		}
		if ev := msg.ev; ev.State == zkview.StateConnected && m.client != nil && m.client.Identity() != "" && ev.SessionID != m.whoAmIOf {
			m.whoAmIOf = ev.SessionID
			cmds = append(cmds, askWhoAmI(m.client, ev.SessionID))
		}
	case whoAmIMsg:
		if msg.session == m.whoAmIOf && msg.err == nil && len(msg.ids) > 0 {
			m.whoAmI = msg.ids
		}
	case treeMsg:
		cmds = append(cmds, m.onTree(msg), listenTree(m.cache))
	case childrenMsg:
		cmds = append(cmds, m.onChildren(msg))
	case pathMsg:
		m.onPath(msg)
	case statsMsg:
		cmds = append(cmds, m.onStats(msg))
	case lockProbeMsg:
		m.onLockProbe(msg)
	case selectMsg:
		cmds = append(cmds, m.onSelect(msg))
	case lockMsg:
		m.onLock(msg)
	case redisMsg:
		cmds = append(cmds, m.onRedis(msg))
	case ensembleMsg:
		cmds = append(cmds, m.onEnsemble(msg))
	case ensembleViewMsg:
		cmds = append(cmds, m.onEnsembleView(msg))
	case sessionsViewMsg:
		cmds = append(cmds, m.onSessionsView(msg))
	case deleteProgressMsg:
		cmds = append(cmds, m.onDeleteProgress(msg))
	case searchProgressMsg:
		cmds = append(cmds, m.onSearchProgress(msg))
	case spinner.TickMsg:
		cmds = append(cmds, m.onSearchSpin(msg), m.onBusySpin(msg), m.lock.Update(msg))
	case searchMsg:
		cmds = append(cmds, m.onSearch(msg))
	case locksSnapMsg:
		cmds = append(cmds, m.onLocksSnap(msg))
	case mutationMsg:
		cmds = append(cmds, m.onMutation(msg))
	case editReadyMsg:
		cmds = append(cmds, execEditor(m.opts.Editor, msg))
	case editorMsg:
		cmds = append(cmds, m.onEditor(msg))
	case editedMsg:
		cmds = append(cmds, m.onEdited(msg))
	case contextMsg:
		cmds = append(cmds, m.onContext(msg))
	case dialProblemMsg:
		cmds = append(cmds, m.onDialProblem(msg))
	case dialedMsg:
		cmds = append(cmds, m.onDialed(msg))
	case completionMsg:
		m.onCompletion(msg)
	case common.TickMsg:
		cmds = append(cmds, tick(), m.lock.Update(msg), m.onTick())
	case lockpane.GotoMsg:
		cmds = append(cmds, m.lock.Update(msg), m.cd(msg.Path))
	default:
		act, cmd := m.dialogs.Update(msg) // replies the dialogs wait for
		cmds = append(cmds, cmd, m.onDialogAction(act), m.lock.Update(msg))
	}
	return cmds
}

// keyPressed drops the warning or error the status line and the lock
// pane's footer show: the operator has moved on (esc, or any other key).
// The key's own message, if any, follows.
func (m *Model) keyPressed() {
	if m.status.Sticky() {
		m.status = common.Status{}
	}
	m.lock.KeyPressed()
}

// onEnsemble keeps what the members said and asks again later.
func (m *Model) onEnsemble(msg ensembleMsg) tea.Cmd {
	if !m.current("ensemble", msg.id) {
		return nil
	}
	m.ens = msg.ens
	m.detail.SetEnsemble(msg.ens)
	if m.client == nil {
		return nil
	}
	return tea.Batch(introspect(m.client, m.nextID("ensemble"), true), m.ephemeralLockNow())
}

// ephemeralLockNow reads the node shown as a plain ephemeral lock when
// the servers' new answer lists sessions watching it (it was shown before
// they answered): an ephemeral node without children, not a lock yet.
func (m *Model) ephemeralLockNow() tea.Cmd {
	n, p := m.detail.Node(), m.detail.Path()
	if m.detail.IsLock() || p == "" || n.Path != p || !n.HasStat || n.Stat.NumChildren != 0 || n.Stat.EphemeralOwner == 0 || len(m.ens.Watchers(p)) == 0 {
		return nil
	}
	return lockCmd(m.client, m.nextID("lock"), p)
}

// onTick ages the status line and, now and then, re-reads the visible
// rows' stats: the rows are not watched (only open directories and the
// selected node are), so child counts and lock tags stay current. The
// lock pane re-reads its directory itself while shown.
func (m *Model) onTick() tea.Cmd {
	m.ticks++
	if m.status.Expired(m.now()) {
		m.status = common.Status{} // errors and warnings stay until the next key
	}
	if m.redis != nil {
		return m.onRedisTick()
	} else if m.db != nil {
		return m.dbTag(m.tree.VisiblePaths())
	}
	if m.ticks%statsRefreshTicks != 0 || m.cache == nil || m.mode != modeNormal {
		return nil
	}
	var want []string
	for _, p := range m.tree.VisiblePaths() {
		if !m.statsWant[p] {
			want = append(want, p)
			m.statsWant[p] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	return statsCmd(m.cache, m.nextID("stats:"+want[0]), want)
}

// afterChange keeps derived state in step: cursor on screen, stats of the
// visible rows requested, the node under the cursor read, the detail body
// built for the current width.
func (m *Model) afterChange() tea.Cmd {
	m.tree.SetSize(m.treeWidth(), m.height-chromeRows)
	m.keys.SetContext(m.focus == focusDetail, m.detail.IsLock(), !m.readOnly && m.redis == nil, !m.readOnly, m.db != nil)
	var cmds []tea.Cmd
	if m.cache != nil {
		var want []string
		for _, p := range m.tree.VisiblePaths() {
			if _, ok := m.tree.Node(p); !ok && !m.statsWant[p] {
				want = append(want, p)
				m.statsWant[p] = true
			}
		}
		if len(want) > 0 {
			cmds = append(cmds, statsCmd(m.cache, m.nextID("stats:"+want[0]), want))
		}
	}
	if p := m.tree.CursorPath(); p != m.detail.Path() {
		cmds = append(cmds, m.selectPath(p))
	}
	m.detail.Sync()
	m.lock.SetSize(m.detailWidth(), m.detailHeight())
	cmds = append(cmds, m.lock.Show(m.detail.IsLock() && m.mode != modeResults, m.detail.Path()))
	m.syncLockTag()
	return tea.Batch(cmds...)
}

// selectPath points the detail pane at p and reads it.
func (m *Model) selectPath(p string) tea.Cmd {
	n, known := m.tree.Node(p)
	ls, lock := m.tree.Lock(p)
	m.detail.Select(p, n, known, lock && ls.Length >= 0)
	if m.redis != nil {
		return m.redisSelect(p)
	} else if m.db != nil {
		return m.dbSelect(p)
	}
	if m.cache == nil {
		return nil
	}
	cmds := []tea.Cmd{selectCmd(m.cache, m.client, m.nextID("select"), p)}
	if d, _ := m.tree.Dir(p); m.detail.IsLock() || d.LockLike {
		cmds = append(cmds, lockCmd(m.client, m.nextID("lock"), p))
	}
	return tea.Batch(cmds...)
}

func (m *Model) onConn(ev zkview.ConnEvent) {
	prev := m.state
	m.state = ev
	switch {
	case ev.State == zkview.StateExpired:
		m.setStatus(common.LevelErr, "Session expired: its ephemeral nodes are gone. Reconnecting with a new session…")
	case ev.State == zkview.StateReconnecting:
		m.setStatus(common.LevelWarn, "Connection lost; the session may survive. Reconnecting…")
	case ev.State == zkview.StateAuthFailed && ev.Err != nil && errors.As(ev.Err, new(*zkview.SASLError)):
		m.setStatus(common.LevelErr, printable.String(ev.Err.Error())) // names the mechanism, the principal and the flags
	case ev.State == zkview.StateAuthFailed:
		m.setStatus(common.LevelErr, "The server refused the credentials. Check --auth-file or ZKSCOPE_AUTH.")
	case ev.State == zkview.StateConnected && ev.NewSession:
		m.setStatus(common.LevelWarn, "Connected with a new session; the tree is being reloaded.")
	case ev.State == zkview.StateConnected && prev.State != zkview.StateConnected && prev.State != zkview.StateConnecting:
		m.setStatus(common.LevelOK, "Reconnected to "+ev.Server+"; same session.")
	}
	if ev.Err != nil {
		m.setStatus(common.LevelWarn, ev.Err.Error())
	}
}

// cd expands the way to p and puts the cursor on it.
func (m *Model) cd(p string) tea.Cmd {
	p = common.CleanPath(p)
	if m.cache == nil {
		return nil
	}
	if m.cdCancel != nil {
		m.cdCancel() // the older walk stops; its reply is stale anyway
	}
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	m.cdCancel = cancel
	return cdCmd(ctx, cancel, m.cache, m.nextID("cd"), p)
}

// statsRefreshTicks is how many ticks pass between re-reads of the
// visible rows' stats.
const statsRefreshTicks = 5
