package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// The program calls View after every message. Under a burst of messages
// (a lock churning hundreds of times a second, a flood of watch events)
// drawing the whole screen each time would cost more than the work, so
// while running (Run) the screen is drawn at most frameRate times a
// second: a View within a frame of the last drawing returns that drawing,
// and a frameMsg then follows so the latest state is drawn a frame later.
// Key presses and resizes draw at once.

// frameCache is the last drawing and when it was made.
type frameCache struct {
	at      time.Time
	view    tea.View
	valid   bool
	pending bool // a frameMsg is on its way
}

// frameMsg asks for a fresh drawing.
type frameMsg struct{}

// frameInterval is one frame.
const frameInterval = time.Second / frameRate

// cachedView returns the last drawing when it is less than a frame old,
// else draws with draw. Without a cache (tests, no program) it always
// draws.
func (f *frameCache) cachedView(draw func() tea.View) tea.View {
	if f == nil {
		return draw()
	}
	if f.valid && time.Since(f.at) < frameInterval {
		return f.view
	}
	f.view, f.at, f.valid = draw(), time.Now(), true
	return f.view
}

// afterUpdate is called after each message: it makes the next View draw
// afresh when msg is one the user waits on (or the frame that was due),
// else makes sure a frameMsg comes to draw what the cached drawing
// leaves out.
func (f *frameCache) afterUpdate(msg tea.Msg, cmd tea.Cmd) tea.Cmd {
	if f == nil {
		return cmd
	}
	switch msg.(type) {
	case frameMsg:
		f.pending, f.valid = false, false
		return cmd
	case tea.KeyPressMsg, tea.WindowSizeMsg, tea.MouseMsg, tea.PasteMsg:
		f.valid = false
		return cmd
	}
	if !f.valid || f.pending {
		return cmd
	}
	f.pending = true
	wait := max(frameInterval-time.Since(f.at), time.Millisecond)
	return tea.Batch(cmd, tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{} }))
}
