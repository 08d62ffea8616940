package dialog

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

// ProblemText is one problem as the problems dialog shows it: its badge,
// drawn by the lock pane in its severity's colour, and its detail (plain
// text, which may quote a server's: the dialog escapes it).
type ProblemText struct {
	Badge, Detail string
}

// Problems shows a lock node's problems, and the lock's own, in full: the
// footer of the lock pane has room for the first one's start only. It
// asks nothing; ⏎, esc, space or q close it, pgup/pgdn scroll it.
type Problems struct {
	lockBase
	title, node string
	items       []ProblemText
}

// NewProblems shows items under title; node is the node they are about
// ("" the lock as a whole).
func NewProblems(st *themes.Styles, keys common.LockKeyMap, title, node string, items []ProblemText) *Problems {
	return &Problems{lockBase: lockBase{st: st, keys: keys}, title: title, node: node, items: items}
}

// ID implements [Dialog].
func (d *Problems) ID() string { return "problems" }

// Update implements [Dialog].
func (d *Problems) Update(msg tea.Msg) (Action, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok && key.Matches(km, d.keys.Dismiss) {
		d.done = true
	}
	return nil, nil
}

// View implements [Dialog].
func (d *Problems) View(w int) string {
	st, inner := d.st, w-4
	var body []string
	if d.node != "" {
		body = append(body, d.field("node", printable.String(d.node)), "")
	}
	if len(d.items) == 0 {
		body = append(body, st.Muted.Render("No problem found."))
	}
	for i, it := range d.items {
		if i > 0 {
			body = append(body, "")
		}
		body = append(body, it.Badge)
		body = append(body, wrapped(st.Base, printable.String(it.Detail), inner)...) // may quote names, data, tokens
	}
	body = append(body, "", d.hint("⏎", "close"))
	return d.lockFrame(w, d.title, body, 1)
}
