package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
)

// startEdit opens the form for an editing key (or says why not).
func (m *Model) startEdit(msg tea.KeyPressMsg) tea.Cmd {
	if m.readOnly {
		m.setStatus(common.LevelWarn, "Read-only: editing is disabled (--read-only or the context's read_only).")
		return nil
	}
	p := m.tree.CursorPath()
	node := m.detail.Node()
	if !m.detail.Loaded() || m.detail.Path() != p || node.Gone {
		m.setStatus(common.LevelWarn, "Wait until the node is read, then try again.")
		return nil
	}
	st := node.Stat
	k := m.keys
	inputW := m.dialogWidth() - 16
	var form interface {
		dialog.Dialog
		Init() tea.Cmd
	}
	switch {
	case key.Matches(msg, k.Create):
		if common.KindOf(p, st).Ephemeral {
			m.setStatus(common.LevelWarn, "Ephemeral nodes cannot have children.")
			return nil
		}
		form = dialog.NewCreate(m.st, k, p, inputW)
	case key.Matches(msg, k.Edit):
		if m.client == nil {
			return nil
		}
		return prepareEditCmd(p, node.Data, st.Version)
	case key.Matches(msg, k.EditInline):
		if !printable.Clean(string(node.Data)) { // binary, several lines, escapes shown
			m.setStatus(common.LevelWarn, "This data is binary, several lines or has characters shown escaped: press e to edit it in $EDITOR.")
			return nil
		}
		form = dialog.NewEdit(m.st, k, p, st.Version, string(node.Data), inputW)
	case key.Matches(msg, k.Delete) && (p == "/" || p == "/zookeeper"),
		key.Matches(msg, k.DeleteTree) && (p == "/" || p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/")):
		m.setStatus(common.LevelWarn, p+" cannot be deleted.")
		return nil
	case key.Matches(msg, k.Delete) && st.NumChildren == 0:
		form = dialog.NewDelete(m.st, k, p, st.Version)
	case key.Matches(msg, k.Delete, k.DeleteTree):
		form = dialog.NewDeleteTree(m.st, k, p, st.Version, st.NumChildren, inputW)
	default:
		return nil
	}
	m.mode = modeDialog
	m.dialogs.Open(form)
	return form.Init()
}

// onDialogAction acts on what a dialog asked: the lock pane takes its
// own dialogs' actions, the root the node forms'.
func (m *Model) onDialogAction(act dialog.Action) tea.Cmd {
	if act == nil {
		return nil
	}
	if cmd, ok := m.lock.HandleAction(act); ok {
		return cmd
	}
	if _, ok := act.(dialog.Quit); ok {
		return m.quit()
	}
	m.mode = modeNormal // every other action closed a node form
	switch a := act.(type) {
	case dialog.Cancelled:
		m.setStatus(common.LevelInfo, "Cancelled; nothing was changed.")
	case dialog.Delete:
		m.setStatus(common.LevelInfo, fmt.Sprintf("Deleting %s (if still at version %d)…", a.Path, a.Version))
		return deleteCmd(m.mut, a.Path, a.Version)
	case dialog.DeleteTree:
		m.setStatus(common.LevelInfo, fmt.Sprintf("Deleting %s and everything below it…", a.Path))
		return m.beginDeleteTree(a.Path, a.Version)
	case dialog.Edit:
		m.setStatus(common.LevelInfo, fmt.Sprintf("Writing %s (if still at version %d)…", a.Path, a.Version))
		return setCmd(m.mut, a.Path, a.Data, a.Version)
	case dialog.Create:
		m.setStatus(common.LevelInfo, "Creating "+a.Path+"…")
		if common.IsTTL(a.Flags) {
			return createTTLCmd(m.client, a.Path, a.Data, a.Flags, a.TTL)
		}
		return createCmd(m.mut, a.Path, a.Data, a.Flags)
	}
	return nil
}

// dialogWidth is the width of every dialog box.
func (m *Model) dialogWidth() int {
	return min(max(m.width-10, 40), 72)
}
