package dialog

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

// RevokeWait is how long a revocation waits for the holder to let go (the
// revoke dialog says so).
const RevokeWait = 10 * time.Second

// LockView is what the lock dialogs read of the lock pane while they are
// drawn: its clock and the labels of the queue shown.
type LockView interface {
	// Now is the pane's clock (moved on by the ticks).
	Now() time.Time
	// NodeRefs names nodes of the shown queue ("W1 (0000000004)").
	NodeRefs(nodes []string) []string
	// WaiterEvictNext says what deleting the waiting node changes.
	WaiterEvictNext(node string) string
}

// lockBase is what the lock dialogs share.
type lockBase struct {
	base
	st   *themes.Styles
	keys common.LockKeyMap
	err  string
}

// Err is the dialog's last refusal ("" when none).
func (d *lockBase) Err() string { return d.err }

// wrapped wraps text (plain, escaped here: it quotes names and the
// servers' errors) to inner cells, each line in style s.
func wrapped(s lipgloss.Style, text string, inner int) []string {
	var out []string
	for _, l := range strings.Split(ansi.Wordwrap(printable.String(text), inner, ""), "\n") {
		out = append(out, s.Render(l))
	}
	return out
}

func (d *lockBase) hint(k, desc string) string { return keyHint(d.st, k, desc) }

func (d *lockBase) field(label, value string) string {
	return d.st.Key.Render(fmt.Sprintf("%-8s", label)) + " " + value
}

// lockFrame ends the body with the refusal, if any, and draws the box;
// the last keep lines of body, and the refusal, stay in view (frame).
func (d *lockBase) lockFrame(w int, title string, body []string, keep int) string {
	if d.err != "" {
		body = append(body, d.st.Error.Render(d.err))
		keep++
	}
	return d.frame(d.st, w, title, body, keep)
}

func newLockInput(placeholder string) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.SetWidth(44)
	return in
}

// prefill is a field's first value when it is a server's name (a lock's
// path, a Redis key): the field shows it escaped ([printable.String]) and,
// while that is left as it is, stands for the name itself.
type prefill struct{ raw, shown string }

func newPrefill(raw string) prefill { return prefill{raw: raw, shown: printable.String(raw)} }

// value is what a field holding typed asks for.
func (p prefill) value(typed string) string {
	if typed == p.shown {
		return p.raw
	}
	return typed
}

func clientSuffix(addr string) string {
	if addr == "" {
		return ""
	}
	return " from " + printable.String(addr)
}
