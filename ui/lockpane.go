package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/themes"
)

// LockPane shows the decoded queue of the lock directory under the cursor
// in the detail area. This is a minimal placeholder; the lock pane's owner
// replaces it (keep the method set: the root model calls newLockPane,
// SetSize, SetQueue, Update and View).
type LockPane struct {
	st    *themes.Styles
	queue lockops.Queue
	w, h  int
}

// newLockPane builds an empty pane drawing with st (a pointer the root
// model updates in place when the theme changes).
func newLockPane(st *themes.Styles) *LockPane { return &LockPane{st: st} }

// SetSize sets the pane's inner size in cells.
func (p *LockPane) SetSize(w, h int) { p.w, p.h = w, h }

// SetQueue replaces the queue shown (a fresh decode of the directory).
func (p *LockPane) SetQueue(q lockops.Queue) { p.queue = q }

// Update receives every message the root model does not handle itself, and
// key presses while the detail area (showing this pane) has focus.
func (p *LockPane) Update(msg tea.Msg) tea.Cmd { return nil }

// View draws the queue.
func (p *LockPane) View() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s\n", p.st.Section.Render("lock"), p.queue.Kind)
	for _, x := range p.queue.Participants {
		s := p.st.Waiter
		if x.State == lockops.StateHolding {
			s = p.st.Holder
		}
		fmt.Fprintf(&b, "%s %s\n", s.Render(string(x.State)), x.Name)
	}
	return b.String()
}
