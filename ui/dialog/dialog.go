// Package dialog is the TUI's one dialog system: every confirmation and
// form is a type implementing [Dialog], shown through one [Overlay] stack
// (the front dialog takes the keys; all are drawn, bottom first).
//
// A dialog never does I/O and never changes another component: it returns
// an [Action] saying what it asks for, and the dialog's owner (the root
// model for the node forms, the lock pane for the lock dialogs) acts on it.
// It imports ui/common, lockops and themes; no other ui package.
package dialog

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

// Dialog is one modal box.
type Dialog interface {
	// ID names the dialog ("delete", "take", …).
	ID() string
	// Update handles a key (sent to the front dialog only) or an
	// asynchronous reply (sent to every open dialog; each keeps to its own
	// request ids). It returns what the dialog asks of its owner (nil:
	// nothing) and a command for its own inputs.
	Update(msg tea.Msg) (Action, tea.Cmd)
	// Done reports whether the dialog was answered or cancelled: the
	// overlay then removes it.
	Done() bool
	// View draws the dialog as a box width cells wide.
	View(width int) string
}

// Action is what a dialog asks of its owner: one of the types in
// actions.go, or nil for nothing.
type Action any

// base gives a dialog its Done.
type base struct{ done bool }

// Done implements [Dialog].
func (b *base) Done() bool { return b.done }

// close marks the dialog answered and returns act.
func (b *base) close(act Action) Action {
	b.done = true
	return act
}

// Overlay is the stack of open dialogs. The root model and the lock pane
// share one.
type Overlay struct {
	stack []Dialog
}

// Open puts d in front.
func (o *Overlay) Open(d Dialog) { o.stack = append(o.stack, d) }

// Close removes the front-most dialog with id (no-op when none is open).
func (o *Overlay) Close(id string) {
	for i := len(o.stack) - 1; i >= 0; i-- {
		if o.stack[i].ID() == id {
			o.stack = append(o.stack[:i], o.stack[i+1:]...)
			return
		}
	}
}

// Has reports whether a dialog with id is open.
func (o *Overlay) Has(id string) bool { return o.Find(id) != nil }

// Find returns the front-most open dialog with id (nil when none).
func (o *Overlay) Find(id string) Dialog {
	for i := len(o.stack) - 1; i >= 0; i-- {
		if o.stack[i].ID() == id {
			return o.stack[i]
		}
	}
	return nil
}

// Front is the dialog taking the keys (nil when none is open).
func (o *Overlay) Front() Dialog {
	if len(o.stack) == 0 {
		return nil
	}
	return o.stack[len(o.stack)-1]
}

// Len is the number of open dialogs.
func (o *Overlay) Len() int { return len(o.stack) }

// Update sends a key to the front dialog, any other message to every
// dialog, and removes the dialogs that are done.
func (o *Overlay) Update(msg tea.Msg) (Action, tea.Cmd) {
	if len(o.stack) == 0 {
		return nil, nil
	}
	var act Action
	var cmds []tea.Cmd
	targets := o.stack
	if _, ok := msg.(tea.KeyPressMsg); ok {
		targets = targets[len(targets)-1:]
	}
	for _, d := range append([]Dialog(nil), targets...) {
		a, cmd := d.Update(msg)
		if a != nil {
			act = a
		}
		cmds = append(cmds, cmd)
	}
	kept := o.stack[:0]
	for _, d := range o.stack {
		if !d.Done() {
			kept = append(kept, d)
		}
	}
	o.stack = kept
	return act, tea.Batch(cmds...)
}

// View draws every open dialog, bottom first, centred over body (w cells
// wide, h lines); each box is boxW cells wide.
func (o *Overlay) View(body string, w, h, boxW int) string {
	for _, d := range o.stack {
		body = common.Overlay(body, d.View(boxW), w, h)
	}
	return body
}

// frame draws a dialog box: the title (plain text, escaped here), a blank
// line, the body lines (each cut to the box), w cells wide.
func frame(st *themes.Styles, w int, title string, body []string) string {
	inner := w - 4
	for i, l := range body {
		body[i] = common.Truncate(l, inner)
	}
	return st.Dialog.Width(w).Render(st.DialogTitle.Render(common.Truncate(printable.String(title), inner)) + "\n\n" + strings.Join(body, "\n"))
}

// keyHint is a key and what it does, as the dialogs' last lines show it.
func keyHint(st *themes.Styles, k, desc string) string {
	return st.HelpKey.Render(k) + st.HelpDesc.Render(" "+desc)
}
