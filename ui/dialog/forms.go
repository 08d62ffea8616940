package dialog

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview"
)

// form is what the node forms share: labelled one-line inputs, the field
// with the focus and the last refusal.
type form struct {
	base
	st     *themes.Styles
	keys   common.KeyMap
	path   string
	inputs []textinput.Model
	labels []string
	focus  int // index into inputs (the create form's type chooser is len(inputs))
	err    string
}

func (f *form) addInput(label, placeholder, value string, width int) {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.SetValue(value)
	in.CursorEnd()
	in.SetWidth(max(width, 10))
	f.inputs = append(f.inputs, in)
	f.labels = append(f.labels, label)
}

// Init focuses the first field.
func (f *form) Init() tea.Cmd { return f.focusInput(0) }

func (f *form) focusInput(i int) tea.Cmd {
	var cmd tea.Cmd
	f.focus = i
	for j := range f.inputs {
		if j == i {
			cmd = f.inputs[j].Focus()
		} else {
			f.inputs[j].Blur()
		}
	}
	return cmd
}

// Value is the text of input i.
func (f *form) Value(i int) string { return f.inputs[i].Value() }

// Err is the form's last refusal ("" when none).
func (f *form) Err() string { return f.err }

// Path is the node the form is about.
func (f *form) Path() string { return f.path }

// common keys: esc cancels, ctrl+c quits, tab and shift+tab move between
// fields (fields of them); ok is false for any other key.
func (f *form) commonKey(msg tea.KeyPressMsg, fields int) (Action, tea.Cmd, bool) {
	k := f.keys
	switch {
	case key.Matches(msg, k.Cancel):
		return f.close(Cancelled{}), nil, true
	case key.Matches(msg, k.ForceQuit):
		return Quit{}, nil, true
	case key.Matches(msg, k.NextField):
		if fields > 1 {
			return nil, f.focusInput((f.focus + 1) % fields), true
		}
		return nil, nil, true
	case key.Matches(msg, k.PrevField):
		if fields > 1 {
			return nil, f.focusInput((f.focus + fields - 1) % fields), true
		}
		return nil, nil, true
	}
	return nil, nil, false
}

// typeInto sends a key to the focused input.
func (f *form) typeInto(msg tea.KeyPressMsg) tea.Cmd {
	if f.focus >= len(f.inputs) {
		return nil
	}
	var cmd tea.Cmd
	f.inputs[f.focus], cmd = f.inputs[f.focus].Update(msg)
	f.err = ""
	return cmd
}

// fieldLines draws the inputs, the focused one's label highlighted.
func (f *form) fieldLines() []string {
	var out []string
	for i, in := range f.inputs {
		out = append(out, f.label(f.labels[i], i == f.focus)+" "+in.View())
	}
	return out
}

func (f *form) label(name string, focused bool) string {
	if focused {
		return f.st.Prompt.Render(fmt.Sprintf("%-8s", name))
	}
	return f.st.Key.Render(fmt.Sprintf("%-8s", name))
}

// saveHint and errLine end every form but the plain delete.
func (f *form) tail(body []string) []string {
	st := f.st
	body = append(body, "", st.HelpKey.Render("⏎")+st.HelpDesc.Render(" save   ")+
		st.HelpKey.Render("tab")+st.HelpDesc.Render(" next field   ")+
		st.HelpKey.Render("esc")+st.HelpDesc.Render(" cancel"))
	return f.errLine(body)
}

func (f *form) errLine(body []string) []string {
	if f.err != "" {
		body = append(body, f.st.Error.Render(f.err))
	}
	return body
}

// DeleteNode asks before deleting a node without children.
type DeleteNode struct {
	form
	version int32
}

// NewDelete asks to delete p, only if it is still at version.
func NewDelete(st *themes.Styles, keys common.KeyMap, p string, version int32) *DeleteNode {
	return &DeleteNode{form: form{st: st, keys: keys, path: p}, version: version}
}

// ID implements [Dialog].
func (d *DeleteNode) ID() string { return "delete" }

// Version is the version the node must still be at.
func (d *DeleteNode) Version() int32 { return d.version }

// Update implements [Dialog]: y or ⏎ deletes, n or esc cancels.
func (d *DeleteNode) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	if act, cmd, ok := d.commonKey(km, 0); ok {
		return act, cmd
	}
	switch {
	case key.Matches(km, d.keys.Confirm), key.Matches(km, d.keys.Yes):
		return d.close(Delete{Path: d.path, Version: d.version}), nil
	case key.Matches(km, d.keys.No):
		return d.close(Cancelled{}), nil
	}
	return nil, nil
}

// View implements [Dialog].
func (d *DeleteNode) View(w int) string {
	st := d.st
	body := []string{
		"Delete " + st.Bold.Render(printable.String(d.path)) + "?",
		st.Muted.Render(fmt.Sprintf("Only if it is still at version %d.", d.version)),
		"",
		st.HelpKey.Render("y") + st.HelpDesc.Render(" delete   ") + st.HelpKey.Render("n/esc") + st.HelpDesc.Render(" cancel"),
	}
	lines := d.errLine(body)
	return d.frame(st, w, "Delete node", lines, len(lines)-2)
}

// DeleteTreeForm asks before deleting a node and everything below it: the
// node's name must be typed.
type DeleteTreeForm struct {
	form
	version, children int32
}

// NewDeleteTree asks to delete p (with children) if it is still at
// version; inputW is the width of the confirmation field.
func NewDeleteTree(st *themes.Styles, keys common.KeyMap, p string, version, children int32, inputW int) *DeleteTreeForm {
	d := &DeleteTreeForm{form: form{st: st, keys: keys, path: p}, version: version, children: children}
	_, name := common.SplitPath(p)
	d.addInput("confirm", "type "+printable.String(name)+" to confirm", "", inputW)
	return d
}

// ID implements [Dialog].
func (d *DeleteTreeForm) ID() string { return "delete-tree" }

// Update implements [Dialog]: ⏎ deletes once the name is typed exactly.
func (d *DeleteTreeForm) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	if act, cmd, ok := d.commonKey(km, len(d.inputs)); ok {
		return act, cmd
	}
	if key.Matches(km, d.keys.Confirm) {
		if _, name := common.SplitPath(d.path); strings.TrimSpace(d.inputs[0].Value()) != name {
			d.err = "Type the node's name exactly to confirm."
			return nil, nil
		}
		return d.close(DeleteTree{Path: d.path, Version: d.version}), nil
	}
	return nil, d.typeInto(km)
}

// View implements [Dialog].
func (d *DeleteTreeForm) View(w int) string {
	st := d.st
	body := []string{
		"Delete " + st.Bold.Render(printable.String(d.path)) + " and everything below it",
		st.Warning.Render(fmt.Sprintf("(%d children, and their children).", d.children)),
		"",
	}
	lines := d.tail(append(body, d.fieldLines()...))
	return d.frame(st, w, "Delete tree", lines, len(lines)-len(body))
}

// EditForm edits a node's data (one line of text) in place.
type EditForm struct {
	form
	version int32
}

// NewEdit edits p's data, saved only if p is still at version.
func NewEdit(st *themes.Styles, keys common.KeyMap, p string, version int32, data string, inputW int) *EditForm {
	d := &EditForm{form: form{st: st, keys: keys, path: p}, version: version}
	d.addInput("data", "", data, inputW)
	return d
}

// ID implements [Dialog].
func (d *EditForm) ID() string { return "edit" }

// Update implements [Dialog]: ⏎ saves.
func (d *EditForm) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	if act, cmd, ok := d.commonKey(km, len(d.inputs)); ok {
		return act, cmd
	}
	if key.Matches(km, d.keys.Confirm) {
		return d.close(Edit{Path: d.path, Data: []byte(d.inputs[0].Value()), Version: d.version}), nil
	}
	return nil, d.typeInto(km)
}

// View implements [Dialog].
func (d *EditForm) View(w int) string {
	st := d.st
	body := []string{st.Muted.Render(fmt.Sprintf("Saved only if still at version %d.", d.version)), ""}
	lines := d.tail(append(body, d.fieldLines()...))
	return d.frame(st, w, "Edit data of "+d.path, lines, len(lines)-len(body))
}

// createType is one choice of node type in the create form.
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

// CreateForm makes a child node: name, data, TTL and a type chooser.
type CreateForm struct {
	form
	typ int
}

// NewCreate makes a child of p.
func NewCreate(st *themes.Styles, keys common.KeyMap, p string, inputW int) *CreateForm {
	d := &CreateForm{form: form{st: st, keys: keys, path: p}}
	d.addInput("name", "child name (a path below "+printable.String(p)+" also works)", "", inputW)
	d.addInput("data", "optional text", "", inputW)
	d.addInput("ttl", "TTL types only: e.g. 90s, 10m, 24h", "", inputW)
	return d
}

// ID implements [Dialog].
func (d *CreateForm) ID() string { return "create" }

// Flags are the create flags of the type chosen.
func (d *CreateForm) Flags() int32 { return createTypes[d.typ].flags }

// Type is the index of the type chosen (0 persistent, 1 persistent
// sequential, 2 ephemeral, …).
func (d *CreateForm) Type() int { return d.typ }

// Update implements [Dialog]: ⏎ creates; on the type chooser ←/→ pick.
func (d *CreateForm) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	if act, cmd, ok := d.commonKey(km, len(d.inputs)+1); ok {
		return act, cmd
	}
	k := d.keys
	switch {
	case key.Matches(km, k.Confirm):
		return d.submit(), nil
	case d.focus < len(d.inputs):
		return nil, d.typeInto(km)
	case key.Matches(km, k.ChoicePrev):
		d.typ = (d.typ + len(createTypes) - 1) % len(createTypes)
	case key.Matches(km, k.ChoiceNext):
		d.typ = (d.typ + 1) % len(createTypes)
	}
	return nil, nil
}

func (d *CreateForm) submit() Action {
	name := strings.Trim(strings.TrimSpace(d.inputs[0].Value()), "/")
	if name == "" {
		d.err = "Give the new node a name."
		return nil
	}
	p := cleanPath(zkview.Join(d.path, name))
	t := createTypes[d.typ]
	ttlText := strings.TrimSpace(d.inputs[2].Value())
	ttl, ok := parseTTL(ttlText)
	switch {
	case common.IsTTL(t.flags) && !ok:
		d.err = "Give the TTL as a duration, e.g. 90s, 10m or 24h."
		return nil
	case !common.IsTTL(t.flags) && ttlText != "":
		d.err = "A TTL needs a TTL type: pick one with ←/→, or clear the ttl field."
		return nil
	}
	if !common.IsTTL(t.flags) {
		ttl = 0
	}
	return d.close(Create{Path: p, Data: []byte(d.inputs[1].Value()), Flags: t.flags, TTL: ttl})
}

// View implements [Dialog].
func (d *CreateForm) View(w int) string {
	body := d.fieldLines()
	body = append(body, d.label("type", d.focus == len(d.inputs))+" ‹ "+d.st.Bold.Render(createTypes[d.typ].name)+" ›")
	lines := d.tail(body)
	return d.frame(d.st, w, "New node below "+d.path, lines, len(lines))
}

// maxTTL is the longest TTL ZooKeeper accepts (it keeps it in 40 bits of
// milliseconds).
const maxTTL = time.Duration(1<<40-1) * time.Millisecond

// parseTTL reads the create form's ttl field (ok false when it is no
// duration ZooKeeper accepts).
func parseTTL(s string) (time.Duration, bool) {
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Millisecond || d > maxTTL {
		return 0, false
	}
	return d, true
}

// cleanPath makes p absolute and clean.
func cleanPath(p string) string { return common.CleanPath(p) }
