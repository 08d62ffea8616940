package common

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// KeyMap is every key binding of the TUI; help is generated from it.
type KeyMap struct {
	// Movement.
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Expand, Collapse, Toggle, Parent        key.Binding

	// Panes and views.
	Focus, Viewer, Refresh key.Binding
	// Yank copies the path under the cursor to the clipboard (OSC 52).
	Yank key.Binding
	// Sort cycles the sort key of the session view.
	Sort key.Binding

	// Overlays.
	Filter, Search, Command, Help key.Binding
	// PrevQuery brings the last query back into the empty `f` prompt;
	// Complete completes the `:` line.
	PrevQuery, Complete key.Binding

	// Editing.
	Create, Edit, EditInline, Delete, DeleteTree key.Binding

	// Dialogs and inputs.
	Confirm, Cancel, Yes, No key.Binding
	NextField, PrevField     key.Binding
	ChoicePrev, ChoiceNext   key.Binding

	// Quit is q (not while typing); ForceQuit (ctrl+c) works everywhere.
	Quit, ForceQuit key.Binding

	// Lock holds the lock pane's bindings (take, release, revoke,
	// force-delete), shown in help while a lock is on screen.
	Lock LockKeyMap

	// detail is true while the detail pane has the focus (the short help
	// depends on it).
	detail bool
	// lock is true while the detail area shows a lock queue.
	lock bool
	// editing is false in read-only mode (the editing keys are hidden).
	editing bool
	// db is true on a database server, where find, the data viewer and
	// the session view do not work (nor editing or the lock actions).
	db bool
}

// DialogScroll are the keys that scroll a dialog taller than the room it
// has (ui/dialog's overlay takes them before the dialog; no dialog uses
// them otherwise).
var DialogScroll = struct{ Up, Down key.Binding }{
	Up:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up")),
	Down: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down")),
}

// DefaultKeyMap returns zkscope's bindings: vim keys and arrows.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u", "ctrl+b"), key.WithHelp("pgup/^u", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "ctrl+f"), key.WithHelp("pgdn/^d", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),
		Expand:   key.NewBinding(key.WithKeys("right", "l", "enter"), key.WithHelp("→/l/⏎", "expand")),
		Collapse: key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "collapse")),
		Toggle:   key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "toggle")),
		Parent:   key.NewBinding(key.WithKeys("backspace", "-"), key.WithHelp("-", "parent")),

		Focus:   key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "switch pane")),
		Viewer:  key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "data viewer")),
		Refresh: key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "refresh")),
		Yank:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy path")),
		Sort:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort (:sessions)")),

		Filter:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Search:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "find below")),
		PrevQuery: key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "last query")),
		Complete:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		Command:   key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),

		Create:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new child")),
		Edit:       key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit in $EDITOR")),
		EditInline: key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "edit inline")),
		Delete:     key.NewBinding(key.WithKeys("d", "delete"), key.WithHelp("d", "delete")),
		DeleteTree: key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "delete tree")),

		Confirm:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("⏎", "confirm")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Yes:        key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:         key.NewBinding(key.WithKeys("n", "N", "q"), key.WithHelp("n", "no")),
		NextField:  key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab", "next field")),
		PrevField:  key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab", "previous field")),
		ChoicePrev: key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←", "previous choice")),
		ChoiceNext: key.NewBinding(key.WithKeys("right", "l", "space"), key.WithHelp("→", "next choice")),

		Quit:      key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),

		Lock:    DefaultLockKeyMap(),
		editing: true,
	}
}

// SetContext tells the key map what is on screen, which decides the help:
// whether the detail pane has the focus, whether it shows a lock queue,
// whether editing is allowed (not in read-only mode, not on Redis or a
// database), whether the lock actions are (not in read-only mode, not on
// a database) and whether the server is a database (db: only the keys
// that work there are shown).
func (k *KeyMap) SetContext(detailFocused, lock, editing, acting, db bool) {
	k.detail, k.lock, k.editing, k.db = detailFocused, lock, editing && !db, db
	k.Lock.readOnly, k.Lock.db = !acting || db, db
}

// ShortHelp implements [help.KeyMap]: the footer, which depends on focus.
func (k KeyMap) ShortHelp() []key.Binding {
	switch {
	case k.detail && k.lock:
		return append(append([]key.Binding{k.Focus}, k.Lock.ShortHelp()...), k.Up, k.Down, k.Help, k.Quit)
	case k.lock:
		return append(append([]key.Binding{k.Down, k.Collapse, k.Focus}, k.Lock.ShortHelp()...), k.Help, k.Quit)
	case k.detail && k.db:
		return []key.Binding{k.Up, k.Down, k.Focus, k.Help, k.Quit}
	case k.detail:
		return []key.Binding{k.Up, k.Down, k.Viewer, k.Focus, k.Help, k.Quit}
	case k.db:
		return []key.Binding{k.Down, k.Expand, k.Collapse, k.Filter, k.Command, k.Help, k.Quit}
	}
	b := []key.Binding{k.Down, k.Expand, k.Collapse, k.Filter, k.Search, k.Command, k.Viewer}
	if k.editing {
		b = append(b, k.Create, k.Edit, k.Delete)
	}
	return append(b, k.Help, k.Quit)
}

// FullHelp implements [help.KeyMap]: the `?` screen, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	cols := [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Expand, k.Collapse, k.Toggle, k.Parent, k.Focus, k.Viewer, k.Refresh, k.Yank, k.Sort},
		{k.Filter, k.Search, k.Command, k.Help, k.Cancel, k.Quit},
	}
	if k.db { // no data viewer, :sessions (its sort) or find
		cols[1] = []key.Binding{k.Expand, k.Collapse, k.Toggle, k.Parent, k.Focus, k.Refresh, k.Yank}
		cols[2] = []key.Binding{k.Filter, k.Command, k.Help, k.Cancel, k.Quit}
	}
	if k.editing {
		cols = append(cols, []key.Binding{k.Create, k.Edit, k.EditInline, k.Delete, k.DeleteTree})
	}
	return append(cols, k.Lock.FullHelp()...)
}

var _ help.KeyMap = KeyMap{}
