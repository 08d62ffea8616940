package ui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/tree"
	"github.com/zkscope/zkscope/zkview/treecache"
)

// The replies to the root's ZooKeeper reads (reads.go), applied to the
// model. A reply whose request id is no longer the newest for its key is
// dropped (Model.current).

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
	// A change inside the lock directory shown re-reads the queue now,
	// unless the lock pane reads it itself (its own watch).
	if m.detail.IsLock() && m.client != nil {
		for _, d := range msg.dirs {
			if d.Path == m.detail.Path() && !m.lock.Reads(d.Path) {
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
		case errors.Is(msg.err, treecache.ErrStale):
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

// maxProbeChildren bounds the directories probed for a lock recipe: a
// lock's queue is short, and listing a huge directory for a tag is not
// worth it.
const maxProbeChildren = 2000

// probeLocks asks, for the visible rows with children, whether they are
// lock directories (so the tree can tag them with recipe and length).
// Each directory is probed again only when its children changed; one
// that has none left loses its tag.
func (m *Model) probeLocks(nodes []common.Node) tea.Cmd {
	if m.redis != nil {
		return m.redisProbeNodes(nodes)
	}
	for _, n := range nodes {
		if n.HasStat && !n.Gone && n.Stat.NumChildren == 0 && !m.lock.Reads(n.Path) {
			m.tree.DropLock(n.Path) // emptied: no child says it is a lock any more
		}
	}
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
	if st := msg.node.Stat; msg.node.HasStat && st.NumChildren == 0 && st.EphemeralOwner != 0 && len(m.ens.Watchers(p)) > 0 && m.client != nil {
		return lockCmd(m.client, m.nextID("lock"), p) // a plain ephemeral lock: sessions wait on it
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

// syncLockTag gives the tree's tag of the lock the pane reads (kind,
// queue length, child count) from the pane's own read, which the root does
// not repeat. Once the pane no longer reads a directory, its row counts
// children from the tree's listing again (the pane's count would go
// stale).
func (m *Model) syncLockTag() {
	p := m.detail.Path()
	if !m.lock.Reads(p) {
		p = ""
	}
	if m.countedLock != "" && m.countedLock != p {
		if tag, ok := m.tree.Lock(m.countedLock); ok {
			tag.Children, tag.Counted = 0, false
			m.tree.SetLock(m.countedLock, tag)
		}
		m.countedLock = ""
	}
	if p == "" {
		return
	}
	q := m.lock.Queue()
	want := tree.LockTag{Kind: q.Kind, Length: len(q.Participants)}
	want.Children, want.Counted = m.lock.Children()
	if tag, ok := m.tree.Lock(p); !ok || tag != want {
		m.tree.SetLock(p, want)
	}
	if want.Counted {
		m.countedLock = p
	}
}
