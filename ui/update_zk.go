package ui

import (
	"context"
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/lockpane"
	"github.com/zkscope/zkscope/ui/tree"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// Update implements [tea.Model].
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	return m, cmd
}

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
		cmds = append(cmds, m.handleKey(msg))
	case tea.MouseClickMsg:
		cmds = append(cmds, m.handleClick(msg.Mouse()))
	case tea.MouseWheelMsg:
		m.handleWheel(msg.Mouse())
	case connMsg:
		m.onConn(msg.ev)
		cmds = append(cmds, listenConn(m.conn))
		if msg.ev.State == zkview.StateConnected && m.client != nil {
			cmds = append(cmds, introspect(m.client, m.nextID("ensemble"), false))
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
	case ensembleMsg:
		if m.current("ensemble", msg.id) {
			m.ens = msg.ens
			m.detail.SetEnsemble(msg.ens)
			if m.client != nil {
				cmds = append(cmds, introspect(m.client, m.nextID("ensemble"), true))
			}
		}
	case deleteProgressMsg:
		cmds = append(cmds, m.onDeleteProgress(msg))
	case searchProgressMsg:
		cmds = append(cmds, m.onSearchProgress(msg))
	case spinner.TickMsg:
		cmds = append(cmds, m.onSearchSpin(msg), m.onBusySpin(msg), m.lock.Update(msg))
	case searchMsg:
		m.onSearch(msg)
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
	case common.TickMsg:
		// The lock pane re-reads its directory itself while shown. The
		// visible rows are not watched (only open directories and the
		// selected node are): re-read their stats now and then so child
		// counts and lock tags stay current.
		cmds = append(cmds, tick(), m.lock.Update(msg))
		m.ticks++
		if m.status.Text != "" && m.status.Level <= common.LevelOK && m.now().Sub(m.status.At) > statusFor {
			m.status = common.Status{} // errors and warnings stay until replaced
		}
		if m.ticks%statsRefreshTicks == 0 && m.cache != nil && m.mode == modeNormal {
			var want []string
			for _, p := range m.tree.VisiblePaths() {
				if !m.statsWant[p] {
					want = append(want, p)
					m.statsWant[p] = true
				}
			}
			if len(want) > 0 {
				cmds = append(cmds, statsCmd(m.cache, m.nextID("stats:"+want[0]), want))
			}
		}
	case lockpane.GotoMsg:
		cmds = append(cmds, m.lock.Update(msg), m.cd(msg.Path))
	default:
		act, cmd := m.dialogs.Update(msg) // replies the dialogs wait for
		cmds = append(cmds, cmd, m.onDialogAction(act), m.lock.Update(msg))
	}
	cmds = append(cmds, m.afterChange(), m.busyCmd())
	return tea.Batch(cmds...)
}

// afterChange keeps derived state in step: cursor on screen, stats of the
// visible rows requested, the node under the cursor read, the detail body
// built for the current width.
func (m *Model) afterChange() tea.Cmd {
	m.tree.SetSize(m.treeWidth(), m.height-chromeRows)
	m.keys.SetContext(m.focus == focusDetail, m.detail.IsLock(), !m.readOnly)
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
	return tea.Batch(cmds...)
}

// selectPath points the detail pane at p and reads it.
func (m *Model) selectPath(p string) tea.Cmd {
	n, known := m.tree.Node(p)
	ls, lock := m.tree.Lock(p)
	m.detail.Select(p, n, known, lock && ls.Length >= 0)
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

// onTree applies a batch of watch changes.
func (m *Model) onTree(msg treeMsg) tea.Cmd {
	m.tree.OnWatch(msg.dirs, msg.closed, msg.nodes)
	for _, n := range msg.nodes {
		m.detail.OnWatch(n)
	}
	if msg.reset {
		m.setStatus(common.LevelWarn, "New session: reloading the tree.")
	}
	var cmds []tea.Cmd
	// A change inside the lock directory shown re-reads the queue now.
	if m.detail.IsLock() && m.client != nil {
		for _, d := range msg.dirs {
			if d.Path == m.detail.Path() {
				cmds = append(cmds, lockCmd(m.client, m.nextID("lock"), d.Path))
			}
		}
	}
	return tea.Batch(cmds...)
}

// expand starts loading p's children.
func (m *Model) expand(p string) tea.Cmd {
	if !m.tree.StartLoad(p) {
		return nil // loaded or loading
	}
	if m.cache == nil {
		return nil
	}
	return expandCmd(m.cache, m.nextID("kids:"+p), p)
}

// collapse forgets p's children (and everything expanded below it).
func (m *Model) collapse(p string) {
	prefix := strings.TrimSuffix(p, "/") + "/"
	for _, q := range m.tree.Collapse(p) {
		delete(m.reqs, "kids:"+q)
	}
	for q := range m.statsWant {
		if strings.HasPrefix(q, prefix) {
			delete(m.statsWant, q)
		}
	}
	if m.cache != nil {
		m.cache.Collapse(p)
	}
}

func (m *Model) onChildren(msg childrenMsg) tea.Cmd {
	p := msg.dir.Path
	if !m.current("kids:"+p, msg.id) {
		return nil // collapsed or re-expanded meanwhile
	}
	delete(m.reqs, "kids:"+p)
	if msg.err != nil {
		gone := errors.Is(msg.err, zk.ErrNoNode)
		switch {
		case gone:
			m.setStatus(common.LevelWarn, p+" was deleted meanwhile.")
		case errors.Is(msg.err, zkview.ErrStale):
		default:
			m.setStatus(common.LevelErr, fmt.Sprintf("Could not list %s: %v", p, msg.err))
		}
		m.tree.LoadFailed(p, gone)
		return nil
	}
	m.tree.Opened(msg.dir)
	if p == m.detail.Path() && msg.dir.LockLike && m.client != nil {
		return lockCmd(m.client, m.nextID("lock"), p)
	}
	return nil
}

func (m *Model) onPath(msg pathMsg) {
	if !m.current("cd", msg.id) {
		return
	}
	delete(m.reqs, "cd") // no :cd in flight (the header's spinner stops)
	m.tree.Opened(msg.dirs...)
	if msg.err != nil {
		if errors.Is(msg.err, zk.ErrNoNode) {
			m.setStatus(common.LevelErr, fmt.Sprintf("%s does not exist.", msg.target))
		} else {
			m.setStatus(common.LevelErr, fmt.Sprintf("Could not open %s: %v", msg.target, msg.err))
		}
		return
	}
	if m.tree.Land(msg.target) {
		m.focus = focusTree
	}
}

func (m *Model) onStats(msg statsMsg) tea.Cmd {
	for _, p := range msg.paths {
		delete(m.statsWant, p)
	}
	m.tree.SetNodes(msg.nodes...)
	for _, n := range msg.nodes {
		m.detail.OnStat(n)
	}
	if msg.err != nil {
		// Let the rows be asked for again on the next change.
		for p := range m.statsWant {
			delete(m.statsWant, p)
		}
		m.setStatus(common.LevelErr, "Could not read the visible nodes: "+msg.err.Error())
	}
	return m.probeLocks(msg.nodes)
}

// statusFor is how long an informational status line stays.
const statusFor = 8 * time.Second

// statsRefreshTicks is how many ticks pass between re-reads of the
// visible rows' stats.
const statsRefreshTicks = 5

// maxProbeChildren bounds the directories probed for a lock recipe: a
// lock's queue is short, and listing a huge directory for a tag is not
// worth it.
const maxProbeChildren = 2000

// probeLocks asks, for the visible rows with children, whether they are
// lock directories (so the tree can tag them with recipe and length).
// Each directory is probed again only when its children changed.
func (m *Model) probeLocks(nodes []common.Node) tea.Cmd {
	if m.client == nil {
		return nil
	}
	var paths []string
	for _, n := range nodes {
		st := n.Stat
		if !n.HasStat || n.Gone || st.NumChildren == 0 || st.NumChildren > maxProbeChildren || st.EphemeralOwner != 0 && !common.KindOf("", st).Container {
			continue
		}
		if v, ok := m.lockProbed[n.Path]; ok && v == st.Pzxid {
			continue
		}
		m.lockProbed[n.Path] = st.Pzxid
		paths = append(paths, n.Path)
	}
	if len(paths) == 0 {
		return nil
	}
	return lockProbeCmd(m.client, paths)
}

func (m *Model) onLockProbe(msg lockProbeMsg) {
	for p, s := range msg.found {
		m.tree.SetLock(p, s)
	}
	for _, p := range msg.none {
		m.tree.DropLock(p)
	}
}

func (m *Model) onSelect(msg selectMsg) tea.Cmd {
	if !m.current("select", msg.id) || msg.node.Path != m.detail.Path() {
		return nil
	}
	if !m.detail.OnSelect(msg.node, msg.acl, msg.err) {
		return nil
	}
	m.tree.SetNodes(msg.node)
	p := msg.node.Path
	if n := msg.node.Stat.NumChildren; msg.node.HasStat && n > 0 && !m.detail.IsLock() && m.client != nil {
		if dir, open := m.tree.Dir(p); !open && n <= maxProbeChildren || open && dir.LockLike {
			return lockCmd(m.client, m.nextID("lock"), p)
		}
	}
	return nil
}

func (m *Model) onLock(msg lockMsg) {
	if !m.current("lock", msg.id) {
		return
	}
	if msg.err != nil {
		if msg.path == m.detail.Path() && m.detail.IsLock() {
			m.detail.SetLockErr(msg.err)
		}
		return
	}
	if !msg.isDir {
		m.tree.DropLock(msg.path)
		if msg.path == m.detail.Path() && m.detail.IsLock() {
			m.detail.SetLock(false)
		}
		return
	}
	m.tree.SetLock(msg.path, tree.LockTag{Kind: msg.queue.Kind, Length: len(msg.queue.Participants)})
	if msg.path == m.detail.Path() {
		m.detail.SetLock(true)
		m.detail.SetLockErr(nil)
		m.lock.SetQueue(msg.queue)
	}
}

func (m *Model) onSearch(msg searchMsg) {
	if !m.current("search", msg.id) {
		return
	}
	m.search.running = false
	m.search.run = nil
	if msg.err != nil {
		m.setStatus(common.LevelErr, fmt.Sprintf("Search below %s failed: %v", msg.root, msg.err))
		return
	}
	m.search.hits = msg.hits
	m.search.scanned = msg.scanned
	m.search.truncated = msg.truncated
	m.search.cursor = 0
	m.mode = modeResults
	note := ""
	switch {
	case msg.cancelled && m.search.query == "locks":
		note = " (stopped early: the list is incomplete)"
	case msg.cancelled:
		note = fmt.Sprintf(" (stopped after %d names: the list is incomplete)", msg.scanned)
	case msg.truncated && m.search.query == "locks":
		note = " (stopped after the scan's node limit: search a narrower path)"
	case msg.truncated:
		note = fmt.Sprintf(" (data read of the first %d nodes only; names of all %d)", searchReadLimit, msg.scanned)
	}
	if m.search.query == "locks" {
		m.setStatus(common.LevelInfo, fmt.Sprintf("%s below %s%s. ⏎ opens one.", plural(len(msg.hits), "lock", "locks"), msg.root, note))
		return
	}
	m.setStatus(common.LevelInfo, fmt.Sprintf("%s for %q below %s%s.", plural(len(msg.hits), "match", "matches"), msg.query, msg.root, note))
}

// onMutation reports a change and refreshes what it touched.
func (m *Model) onMutation(msg mutationMsg) tea.Cmd {
	if msg.op == "delete tree" {
		m.deleting = nil
	}
	if msg.err != nil {
		m.setStatus(common.LevelErr, mutationError(msg))
		if m.cache != nil {
			return m.selectPath(m.tree.CursorPath()) // show the current version
		}
		return nil
	}
	done := map[string]string{"create": "Created", "edit": "Saved", "delete": "Deleted", "delete tree": "Deleted the tree"}[msg.op]
	m.setStatus(common.LevelOK, fmt.Sprintf("%s %s.", done, msg.path))
	if m.cache == nil {
		return nil
	}
	var cmds []tea.Cmd
	if msg.op == "create" {
		m.made.Note(msg.path, msg.flags, msg.ttl)
		cmds = append(cmds, m.cd(msg.path))
	}
	cmds = append(cmds, m.selectPath(m.tree.CursorPath()))
	return tea.Batch(cmds...)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// mutationError is one plain sentence about a failed change and what to do.
func mutationError(msg mutationMsg) string {
	err := msg.err
	switch {
	case errors.Is(err, zkview.ErrReadOnly):
		return "Read-only mode: nothing was changed (started with --read-only or the context is read_only)."
	case errors.Is(err, zk.ErrBadVersion):
		return badVersionText(msg)
	case errors.Is(err, zk.ErrNotEmpty):
		return fmt.Sprintf("%s has children: use D to delete the whole tree.", msg.path)
	case errors.Is(err, zk.ErrNodeExists):
		return fmt.Sprintf("%s already exists.", msg.path)
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Sprintf("%s: the node (or its parent) no longer exists.", msg.path)
	case errors.Is(err, zk.ErrNoAuth):
		return fmt.Sprintf("%s: not allowed by the node's ACL.", msg.path)
	case errors.Is(err, zk.ErrNoChildrenForEphemerals):
		return "Ephemeral nodes cannot have children."
	}
	return fmt.Sprintf("%s failed: %v", msg.op, err)
}

func (m *Model) onEditor(msg editorMsg) tea.Cmd {
	if msg.err != nil {
		m.setStatus(common.LevelErr, fmt.Sprintf("The editor failed (%v); nothing was changed. Set $EDITOR to your editor.", msg.err))
		return removeFile(msg.file)
	}
	return readEdited(msg)
}

func (m *Model) onEdited(msg editedMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.setStatus(common.LevelErr, msg.err.Error())
		return nil
	case !msg.changed:
		m.setStatus(common.LevelInfo, "No change; nothing written.")
		return nil
	}
	m.setStatus(common.LevelInfo, fmt.Sprintf("Writing %s (if still at version %d)…", msg.path, msg.version))
	return setCmd(m.mut, msg.path, msg.data, msg.version)
}

func (m *Model) onContext(msg contextMsg) tea.Cmd {
	if msg.err != nil {
		m.setStatus(common.LevelErr, fmt.Sprintf("Could not open context %s: %v", msg.name, msg.err))
		return nil
	}
	old := m.client
	m.Close() // the tree cache and the state subscription; no I/O
	var closeOld tea.Cmd
	if old != nil {
		closeOld = func() tea.Msg { old.Close(); return nil } // closing a session is a round trip
	}
	m.statsWant = map[string]bool{}
	m.lockProbed = map[string]int64{}
	m.detail.Reset()
	m.attach(msg.client, msg.name)
	m.lock.SetClient(m.client, m.readOnly)
	m.tree.Reset()
	m.setStatus(common.LevelOK, "Switched to context "+msg.name+".")
	return tea.Batch(closeOld, listenConn(m.conn), listenTree(m.cache), introspect(m.client, m.nextID("ensemble"), false), m.cd("/"))
}

// cd expands the way to p and puts the cursor on it.
func (m *Model) cd(p string) tea.Cmd {
	p = cleanPath(p)
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
