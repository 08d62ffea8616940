package ui

// The TUI on a database server (--server postgres://… or mysql://…): the
// tree is ui/dbtree's (the server → its lock namespaces → the locks held
// or waited on, read every dbtree.Every), the lock pane reads a lock
// through its loader seam. Read-only: taking and evicting stay `zkscope
// lock` and `zkscope evict`.

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops/dblock"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dbtree"
	"github.com/zkscope/zkscope/zkview"
)

// DBOptions open the TUI on a database server instead of ZooKeeper.
type DBOptions struct {
	Client *dbview.Client
}

// attachDB makes o's server the model's source (at start).
func (m *Model) attachDB(o DBOptions) {
	m.db = dbtree.New(o.Client, dbtree.Every, dblock.DiagnoseOptions{})
	m.cache = m.db
	m.state = zkview.ConnEvent{State: zkview.StateConnected, Server: o.Client.Server()}
}

// startDB gives the lock pane its reading (New calls it once the panes
// exist).
func (m *Model) startDB() {
	if m.db == nil {
		return
	}
	m.lock.SetLoader(m.db.ReadLock, true)
	m.lock.SetDBNote("Database locks are taken with zkscope lock KEY -- CMD and ended with zkscope evict KEY, not in the TUI.")
}

// dbSelect tags p when it is a lock (its pane opens) and reads it.
func (m *Model) dbSelect(p string) tea.Cmd {
	if q, ok := m.db.IsLock(p); ok {
		m.tree.SetLock(p, lockTagOf(q))
		m.detail.SetLock(true)
	}
	return selectCmd(m.cache, nil, m.nextID("select"), p)
}

// dbTag tags the locks among paths as of the last read, and says when
// the read failed.
func (m *Model) dbTag(paths []string) tea.Cmd {
	for _, p := range paths {
		if q, ok := m.db.IsLock(p); ok {
			m.tree.SetLock(p, lockTagOf(q))
		} else {
			m.tree.DropLock(p)
		}
	}
	if err := m.db.Err(); err != nil {
		m.setStatus(common.LevelErr, printable.String(err.Error()))
	}
	return nil
}

// dbKey handles the keys that make no sense on a database server; false:
// the usual handling applies.
func (m *Model) dbKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case m.db == nil:
		return nil, false
	case key.Matches(msg, k.Create, k.Edit, k.EditInline, k.Delete, k.DeleteTree, k.Viewer):
		m.setStatus(common.LevelWarn, "A database server's locks are not edited here: zkscope lock and zkscope evict act on them.")
	case key.Matches(msg, k.Search):
		m.setStatus(common.LevelInfo, "On a database server every lock is in the tree: / filters it.")
	case key.Matches(msg, k.Lock.Session):
		m.setStatus(common.LevelInfo, "A database lock's session is its holder's pid or connection id, shown in the lock pane.")
	default:
		return nil, false
	}
	return nil, true
}

// dbCommand refuses the `:` commands of ZooKeeper on a database server.
func (m *Model) dbCommand(name string) (tea.Cmd, bool) {
	if m.db == nil || !strings.Contains(" ctx context locks ensemble members sessions ", " "+name+" ") {
		return nil, false
	}
	m.setStatus(common.LevelInfo, ":"+name+" is for ZooKeeper; on a database server the tree lists every lock and / filters it.")
	return nil, true
}

// dbHelpLines are the `?` screen's words on a database server.
func (m *Model) dbHelpLines(wrap func(string) []string) []string {
	if m.db == nil {
		return nil
	}
	lines := []string{"", m.st.Section.Render("On a database server")}
	for _, l := range wrap(dbtree.Help) {
		lines = append(lines, "  "+l)
	}
	return lines
}
