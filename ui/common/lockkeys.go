package common

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// LockKeyMap is the lock pane's bindings: moving over the queue and the
// lock actions. The root [KeyMap] shows them in its help while a lock is
// shown.
type LockKeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding

	// Take joins the queue of the lock under the cursor (or a new lock at
	// the path under the cursor); Release lets go of ours (or stops
	// waiting); Revoke asks the selected holder to let go (Curator
	// revocable locks); ForceDelete deletes the selected node after a
	// typed confirmation.
	Take, Release, Revoke, ForceDelete key.Binding
	// Session opens the session view (`:sessions`) on the selected
	// node's session; Problems shows the selected node's problems, and
	// the lock's, in full (so does ⏎ in the pane).
	Session, Problems key.Binding
	// Timeline toggles the strip of holders over time; Older and Newer
	// step through the lock's past states (ui/lockpane/timeline.go).
	Timeline, Older, Newer key.Binding

	// In the lock dialogs: Confirm (enter), Yes/No answer a question
	// (No also q), Cancel (esc), Dismiss closes an alert, NextField and
	// PrevField move between the take dialog's fields, ChoosePrev and
	// ChooseNext change its mode and recipe, ForceQuit (ctrl+c) quits from
	// the quit question at once (closing the session deletes our node).
	Confirm, Yes, No, Cancel, Dismiss key.Binding
	NextField, PrevField              key.Binding
	ChoosePrev, ChooseNext, ForceQuit key.Binding

	// readOnly hides the lock actions from the help (they are refused).
	readOnly bool
	// db hides the session view's key too (a database lock's session is
	// the pid or connection id the pane shows).
	db bool
}

// DefaultLockKeyMap returns the lock pane's bindings. They avoid the root
// model's keys (r is refresh, d delete, e edit).
func DefaultLockKeyMap() LockKeyMap {
	return LockKeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous node")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next node")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "first node")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "last node")),

		Take:        key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "take lock")),
		Release:     key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "release/stop waiting")),
		Revoke:      key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "revoke holder")),
		ForceDelete: key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "force-delete node")),
		Session:     key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "its session")),
		Problems:    key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "problems in full")),
		Timeline:    key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "timeline")),
		Older:       key.NewBinding(key.WithKeys("["), key.WithHelp("[", "older state")),
		Newer:       key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "newer state")),

		Confirm:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("⏎", "confirm")),
		Yes:        key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:         key.NewBinding(key.WithKeys("n", "N", "q"), key.WithHelp("n", "no")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Dismiss:    key.NewBinding(key.WithKeys("enter", "esc", "space", "q"), key.WithHelp("⏎", "understood")),
		NextField:  key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab", "next field")),
		PrevField:  key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab", "previous field")),
		ChoosePrev: key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←", "previous choice")),
		ChooseNext: key.NewBinding(key.WithKeys("right", "l", "space"), key.WithHelp("→", "next choice")),
		ForceQuit:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit now")),
	}
}

// ShortHelp implements [help.KeyMap]: the lock actions (none in read-only
// mode), the session and the problems.
func (k LockKeyMap) ShortHelp() []key.Binding {
	return append(k.actions(), k.inspect()...)
}

// FullHelp implements [help.KeyMap].
func (k LockKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{append(k.actions(), k.inspect()...), {k.Timeline, k.Older, k.Newer}}
}

// inspect are the bindings that show more of the selected participant:
// its session (not on a database) and its problems.
func (k LockKeyMap) inspect() []key.Binding {
	if k.db {
		return []key.Binding{k.Problems}
	}
	return []key.Binding{k.Session, k.Problems}
}

// actions are the bindings that change a lock: none in read-only mode.
func (k LockKeyMap) actions() []key.Binding {
	if k.readOnly {
		return nil
	}
	return []key.Binding{k.Take, k.Release, k.Revoke, k.ForceDelete}
}

var _ help.KeyMap = LockKeyMap{}
