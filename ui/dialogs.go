package ui

import (
	"fmt"
	"github.com/zkscope/zkscope/ui/common"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// dialogKind is what a dialog asks for.
type dialogKind int

const (
	dialogDelete dialogKind = iota
	dialogDeleteTree
	dialogCreate
	dialogEdit
)

// createType is one choice of node type in the create dialog.
type createType struct {
	name  string
	flags int32
}

var createTypes = []createType{
	{"persistent", 0},
	{"persistent sequential", zk.FlagSequence},
	{"ephemeral (lives while zkscope runs)", zk.FlagEphemeral},
	{"ephemeral sequential", zk.FlagEphemeral | zk.FlagSequence},
	{"container", zk.FlagContainer},
	{"persistent with TTL", zk.FlagTTL},
	{"persistent sequential with TTL", zk.FlagPersistentSequentialWithTTL},
}

// dialog is a modal confirm or input box.
type dialog struct {
	kind     dialogKind
	path     string
	version  int32
	children int32
	inputs   []textinput.Model
	labels   []string
	focus    int // index into inputs; len(inputs) is the type chooser
	typ      int
	err      string
}

// startEdit opens the dialog for an editing key (or says why not).
func (m *Model) startEdit(msg tea.KeyPressMsg) tea.Cmd {
	if m.readOnly {
		m.setStatus(common.LevelWarn, "Read-only: editing is disabled (--read-only or the context's read_only).")
		return nil
	}
	p := m.cursorPath()
	d := m.detail
	if !d.loaded || d.path != p || d.node.Gone {
		m.setStatus(common.LevelWarn, "Wait until the node is read, then try again.")
		return nil
	}
	st := d.node.Stat
	k := m.keys
	switch {
	case key.Matches(msg, k.Create):
		if common.KindOf(p, st).Ephemeral {
			m.setStatus(common.LevelWarn, "Ephemeral nodes cannot have children.")
			return nil
		}
		dl := &dialog{kind: dialogCreate, path: p}
		dl.addInput("name", "child name (a path below "+p+" also works)", "")
		dl.addInput("data", "optional text", "")
		dl.addInput("ttl", "TTL types only: e.g. 90s, 10m, 24h", "")
		m.dialog = dl
	case key.Matches(msg, k.Edit):
		if m.client == nil {
			return nil
		}
		return prepareEditCmd(p, d.node.Data, st.Version)
	case key.Matches(msg, k.EditInline):
		if !common.Printable(d.node.Data) || strings.Contains(string(d.node.Data), "\n") {
			m.setStatus(common.LevelWarn, "This data is binary or several lines: press e to edit it in $EDITOR.")
			return nil
		}
		dl := &dialog{kind: dialogEdit, path: p, version: st.Version}
		dl.addInput("data", "", string(d.node.Data))
		m.dialog = dl
	case key.Matches(msg, k.Delete):
		if p == "/" || p == "/zookeeper" {
			m.setStatus(common.LevelWarn, p+" cannot be deleted.")
			return nil
		}
		m.dialog = &dialog{kind: dialogDelete, path: p, version: st.Version, children: st.NumChildren}
		if st.NumChildren > 0 {
			m.dialog.kind = dialogDeleteTree
		}
	case key.Matches(msg, k.DeleteTree):
		if p == "/" || p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/") {
			m.setStatus(common.LevelWarn, p+" cannot be deleted.")
			return nil
		}
		m.dialog = &dialog{kind: dialogDeleteTree, path: p, version: st.Version, children: st.NumChildren}
	}
	if m.dialog == nil {
		return nil
	}
	if m.dialog.kind == dialogDeleteTree {
		_, name := common.SplitPath(p)
		m.dialog.addInput("confirm", "type "+name+" to confirm", "")
	}
	m.mode = modeDialog
	m.dialog.setWidth(m.dialogWidth() - 16)
	return m.dialog.focusInput(0)
}

func (d *dialog) addInput(label, placeholder, value string) {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.SetValue(value)
	in.CursorEnd()
	d.inputs = append(d.inputs, in)
	d.labels = append(d.labels, label)
}

func (d *dialog) setWidth(w int) {
	for i := range d.inputs {
		d.inputs[i].SetWidth(max(w, 10))
	}
}

func (d *dialog) focusInput(i int) tea.Cmd {
	var cmd tea.Cmd
	d.focus = i
	for j := range d.inputs {
		if j == i {
			cmd = d.inputs[j].Focus()
		} else {
			d.inputs[j].Blur()
		}
	}
	return cmd
}

func (m *Model) closeDialog() {
	m.dialog = nil
	m.mode = modeNormal
}

func (m *Model) handleDialogKey(msg tea.KeyPressMsg) tea.Cmd {
	dl := m.dialog
	if dl == nil {
		m.mode = modeNormal
		return nil
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		m.closeDialog()
		m.setStatus(common.LevelInfo, "Cancelled; nothing was changed.")
		return nil
	case key.Matches(msg, k.ForceQuit):
		return m.quit()
	case key.Matches(msg, k.NextField):
		if n := dl.fields(); n > 1 {
			return dl.focusInput((dl.focus + 1) % n)
		}
		return nil
	case key.Matches(msg, k.PrevField):
		if n := dl.fields(); n > 1 {
			return dl.focusInput((dl.focus + n - 1) % n)
		}
		return nil
	case key.Matches(msg, k.Confirm):
		return m.submitDialog()
	}
	if dl.kind == dialogDelete {
		switch {
		case key.Matches(msg, k.Yes):
			return m.submitDialog()
		case key.Matches(msg, k.No):
			m.closeDialog()
			m.setStatus(common.LevelInfo, "Cancelled; nothing was changed.")
		}
		return nil
	}
	if dl.kind == dialogCreate && dl.focus == len(dl.inputs) {
		switch {
		case key.Matches(msg, k.ChoicePrev):
			dl.typ = (dl.typ + len(createTypes) - 1) % len(createTypes)
		case key.Matches(msg, k.ChoiceNext):
			dl.typ = (dl.typ + 1) % len(createTypes)
		}
		return nil
	}
	if dl.focus < len(dl.inputs) {
		var cmd tea.Cmd
		dl.inputs[dl.focus], cmd = dl.inputs[dl.focus].Update(msg)
		dl.err = ""
		return cmd
	}
	return nil
}

// fields counts the focusable fields (the create dialog has a type chooser).
func (d *dialog) fields() int {
	if d.kind == dialogCreate {
		return len(d.inputs) + 1
	}
	return len(d.inputs)
}

func (m *Model) submitDialog() tea.Cmd {
	dl := m.dialog
	switch dl.kind {
	case dialogDelete:
		m.closeDialog()
		m.setStatus(common.LevelInfo, fmt.Sprintf("Deleting %s (if still at version %d)…", dl.path, dl.version))
		return deleteCmd(m.mut, dl.path, dl.version)
	case dialogDeleteTree:
		_, name := common.SplitPath(dl.path)
		if strings.TrimSpace(dl.inputs[0].Value()) != name {
			dl.err = "Type the node's name exactly to confirm."
			return nil
		}
		m.closeDialog()
		m.setStatus(common.LevelInfo, fmt.Sprintf("Deleting %s and everything below it…", dl.path))
		return m.beginDeleteTree(dl.path, dl.version)
	case dialogEdit:
		data := dl.inputs[0].Value()
		m.closeDialog()
		m.setStatus(common.LevelInfo, fmt.Sprintf("Writing %s (if still at version %d)…", dl.path, dl.version))
		return setCmd(m.mut, dl.path, []byte(data), dl.version)
	case dialogCreate:
		name := strings.Trim(strings.TrimSpace(dl.inputs[0].Value()), "/")
		if name == "" {
			dl.err = "Give the new node a name."
			return nil
		}
		p := cleanPath(zkview.Join(dl.path, name))
		t := createTypes[dl.typ]
		ttlText := strings.TrimSpace(dl.inputs[2].Value())
		ttl, ok := parseTTL(ttlText)
		switch {
		case common.IsTTL(t.flags) && !ok:
			dl.err = "Give the TTL as a duration, e.g. 90s, 10m or 24h."
			return nil
		case !common.IsTTL(t.flags) && ttlText != "":
			dl.err = "A TTL needs a TTL type: pick one with ←/→, or clear the ttl field."
			return nil
		}
		m.closeDialog()
		m.setStatus(common.LevelInfo, "Creating "+p+"…")
		if common.IsTTL(t.flags) {
			return createTTLCmd(m.client, p, []byte(dl.inputs[1].Value()), t.flags, ttl)
		}
		return createCmd(m.mut, p, []byte(dl.inputs[1].Value()), t.flags)
	}
	return nil
}

// dialogView draws the dialog box.
func (m *Model) dialogView() string {
	dl := m.dialog
	st := m.st
	w := m.dialogWidth()
	inner := w - 4
	var title string
	var body []string
	switch dl.kind {
	case dialogDelete:
		title = "Delete node"
		body = append(body,
			"Delete "+st.Bold.Render(dl.path)+"?",
			st.Muted.Render(fmt.Sprintf("Only if it is still at version %d.", dl.version)),
			"",
			st.HelpKey.Render("y")+st.HelpDesc.Render(" delete   ")+st.HelpKey.Render("n/esc")+st.HelpDesc.Render(" cancel"))
	case dialogDeleteTree:
		title = "Delete tree"
		body = append(body,
			"Delete "+st.Bold.Render(dl.path)+" and everything below it",
			st.Warning.Render(fmt.Sprintf("(%d children, and their children).", dl.children)),
			"")
	case dialogEdit:
		title = "Edit data of " + dl.path
		body = append(body, st.Muted.Render(fmt.Sprintf("Saved only if still at version %d.", dl.version)), "")
	case dialogCreate:
		title = "New node below " + dl.path
	}
	for i, in := range dl.inputs {
		label := st.Key.Render(fmt.Sprintf("%-8s", dl.labels[i]))
		if i == dl.focus {
			label = st.Prompt.Render(fmt.Sprintf("%-8s", dl.labels[i]))
		}
		body = append(body, label+" "+in.View())
	}
	if dl.kind == dialogCreate {
		label := st.Key.Render(fmt.Sprintf("%-8s", "type"))
		if dl.focus == len(dl.inputs) {
			label = st.Prompt.Render(fmt.Sprintf("%-8s", "type"))
		}
		body = append(body, label+" ‹ "+st.Bold.Render(createTypes[dl.typ].name)+" ›")
	}
	if dl.kind != dialogDelete {
		body = append(body, "", st.HelpKey.Render("⏎")+st.HelpDesc.Render(" save   ")+
			st.HelpKey.Render("tab")+st.HelpDesc.Render(" next field   ")+
			st.HelpKey.Render("esc")+st.HelpDesc.Render(" cancel"))
	}
	if dl.err != "" {
		body = append(body, st.Error.Render(dl.err))
	}
	for i, l := range body {
		body[i] = common.Truncate(l, inner)
	}
	box := st.Dialog.Width(w).Render(st.DialogTitle.Render(common.Truncate(title, inner)) + "\n\n" + strings.Join(body, "\n"))
	return box
}

func (m *Model) dialogWidth() int {
	return min(max(m.width-10, 40), 72)
}

var _ = lipgloss.Width
