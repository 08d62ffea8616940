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
	"fmt"
	"regexp"
	"strings"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

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

// base gives a dialog its Done and its fitting: how high its box may be
// and how far its body is scrolled (see [base.frame]).
type base struct {
	done bool
	// maxH is the most lines the box may take (0: any).
	maxH int
	// off is the first body line shown while the body scrolls (scrolled:
	// moved by the keys, else the default: the top, or the end when all
	// of the box scrolls); maxOff and page are the last drawing's.
	off, maxOff, page int
	scrolled          bool
}

// fitter is a dialog whose box fits a height (every dialog, by base).
type fitter interface {
	setMaxHeight(h int)
	scrollKey(msg tea.KeyPressMsg) bool
}

func (b *base) setMaxHeight(h int) { b.maxH = h }

// scrollKey scrolls the body a page on pgup/pgdn while it does not fit;
// it reports whether it took the key.
func (b *base) scrollKey(msg tea.KeyPressMsg) bool {
	step := 0
	switch {
	case key.Matches(msg, common.DialogScroll.Up):
		step = -max(b.page, 1)
	case key.Matches(msg, common.DialogScroll.Down):
		step = max(b.page, 1)
	default:
		return false
	}
	if b.maxOff > 0 {
		b.off, b.scrolled = min(max(b.off+step, 0), b.maxOff), true
	}
	return true
}

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
	h     int // the height the boxes fit in (0: any)
}

// Open puts d in front.
func (o *Overlay) Open(d Dialog) {
	if f, ok := d.(fitter); ok {
		f.setMaxHeight(o.h)
	}
	o.stack = append(o.stack, d)
}

// SetHeight sets the lines every box fits in (the body's height): a
// taller one scrolls.
func (o *Overlay) SetHeight(h int) {
	o.h = h
	for _, d := range o.stack {
		if f, ok := d.(fitter); ok {
			f.setMaxHeight(h)
		}
	}
}

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
	if km, ok := msg.(tea.KeyPressMsg); ok {
		targets = targets[len(targets)-1:]
		if f, ok := targets[0].(fitter); ok && f.scrollKey(km) {
			return nil, nil
		}
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

// frame draws a dialog box w cells wide: the title, a blank line and
// body, a line wider than the box wrapped (nothing is cut; a field's value
// goes on under the value). The last keep lines of body are what
// the dialog asks (the prompt, its input, the keys, the refusal). A box
// taller than maxH is made to fit: first its blank lines go; then the
// rest of body scrolls (pgup/pgdn) in the lines left above the last keep,
// which stay in view. When they leave too little room, the first of them
// scroll too and the box opens scrolled to its end, so all it asks shows.
func (b *base) frame(st *themes.Styles, w int, title string, body []string, keep int) string {
	inner := w - 4
	body, keep = wrapBody(body, keep, inner)
	lines := append([]string{st.DialogTitle.Render(common.Truncate(printable.String(title), inner)), ""}, body...)
	if avail := b.maxH - 2; b.maxH > 0 && len(lines) > avail { // the border takes 2
		lines = b.fit(st, lines[0], body, min(keep, len(body)), avail)
	} else {
		b.maxOff = 0
	}
	return st.Dialog.Width(w).Render(strings.Join(lines, "\n"))
}

// fit is the box's lines in avail lines: title, the scrolled window of
// body with a line saying what is above and below it, the kept lines.
func (b *base) fit(st *themes.Styles, title string, body []string, keep, avail int) []string {
	scroll, kept := dropBlank(body[:len(body)-keep]), dropBlank(body[len(body)-keep:])
	if 1+len(scroll)+len(kept) <= avail {
		b.maxOff = 0
		return append(append([]string{title}, scroll...), kept...)
	}
	rows, fromEnd := avail-1-len(kept), false
	for rows < 3 && len(kept) > 1 { // a window of one line and its marker is too little
		scroll, kept, rows, fromEnd = append(scroll, kept[0]), kept[1:], rows+1, true
	}
	shown := max(rows-1, 1) // the marker line takes one
	b.maxOff, b.page = max(len(scroll)-shown, 0), shown
	if !b.scrolled && fromEnd {
		b.off = b.maxOff
	}
	b.off = min(b.off, b.maxOff)
	end := min(b.off+shown, len(scroll))
	var more []string
	if b.off > 0 {
		more = append(more, fmt.Sprintf("↑ %d more", b.off))
	}
	below := len(scroll) - end
	if below > 0 {
		more = append(more, fmt.Sprintf("↓ %d more", below))
	}
	marker := st.Muted.Render(strings.Join(more, " · ") + " · pgup/pgdn scroll")
	out := []string{title}
	if below == 0 { // the marker where the hidden lines are
		out = append(out, marker)
	}
	out = append(out, scroll[b.off:end]...)
	if below > 0 {
		out = append(out, marker)
	}
	return append(out, kept...)
}

// wrapBody wraps the lines of body wider than inner and counts the lines
// its last keep became.
func wrapBody(body []string, keep, inner int) ([]string, int) {
	out := make([]string, 0, len(body))
	kept := 0
	for i, l := range body {
		n := len(out)
		if ansi.StringWidth(l) <= inner {
			out = append(out, l)
		} else {
			out = append(out, wrapLine(l, inner)...)
		}
		if i >= len(body)-keep {
			kept += len(out) - n
		}
	}
	return out, kept
}

// fieldLabel is the label of a field line ("owner    "): a word and the
// spaces that pad it.
var fieldLabel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]+ {2,}`) }) // compiled when first used, not at every start

// wrapLine wraps l to inner cells; a field line's value goes on under the
// value. Each line ends its styles (a style running on would colour the
// box's edge).
func wrapLine(l string, inner int) []string {
	indent := 0
	if m := fieldLabel().FindString(ansi.Strip(l)); m != "" && len(m) < inner/2 {
		indent = len(m)
	}
	first := strings.SplitN(ansi.Wrap(l, inner, ""), "\n", 2)
	out := []string{first[0]}
	if len(first) == 2 {
		pad := strings.Repeat(" ", indent)
		for _, r := range strings.Split(ansi.Wrap(first[1], inner-indent, ""), "\n") {
			out = append(out, pad+r)
		}
	}
	for i, o := range out {
		if strings.Contains(o, "\x1b") {
			out[i] = o + ansi.ResetStyle
		}
	}
	return out
}

// dropBlank is lines without the empty ones (the spacing a box drops
// first when it does not fit).
func dropBlank(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// keyHint is a key and what it does, as the dialogs' last lines show it.
func keyHint(st *themes.Styles, k, desc string) string {
	return st.HelpKey.Render(k) + st.HelpDesc.Render(" "+desc)
}
