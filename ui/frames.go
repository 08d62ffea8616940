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
//
// While the lock pane churns (its reads come back to back, at most one
// per loadEvery), each queue it reads is drawn at once, as it arrives:
// the queue is what the person watches, and it never waits for a frame.
// Everything else (watch events on the tree, the node's stat, the header
// and status lines) waits at most churnFrameInterval: those drawings
// draw only the lock pane again, the screen around it kept from the last
// whole drawing, so a churning lock costs about one drawing of its pane
// per read instead of frameRate drawings of the screen.

// frameCache is the last drawing and when it was made.
type frameCache struct {
	at      time.Time
	view    tea.View
	valid   bool
	pending bool // a frameMsg is on its way
	// stale says a message changed the model after the last drawing.
	stale bool
	// churning: the lock pane's queue is changing (see lockPane).
	churning bool
	// kept is the screen around the lock pane at keptAt, drawn again
	// at most every churnFrameInterval while the pane churns.
	kept    *chrome
	keptAt  time.Time
	partial bool // the last drawing kept the chrome
}

// chrome is the screen around the detail pane: the header, breadcrumb,
// tree pane, status and footer lines.
type chrome struct{ header, crumb, tree, status, footer string }

// chromeKept is the chrome of an earlier drawing when it may be shown
// again (the lock pane churns and it is younger than churnFrameInterval),
// else nil: a churning queue's drawings redraw only the lock pane.
func (f *frameCache) chromeKept() *chrome {
	if f == nil || !f.churning || f.kept == nil || time.Since(f.keptAt) >= churnFrameInterval {
		return nil
	}
	f.partial = true
	return f.kept
}

// keepChrome keeps c, just drawn.
func (f *frameCache) keepChrome(c *chrome) {
	if f != nil {
		f.kept, f.keptAt = c, time.Now()
	}
}

// frameMsg asks for a fresh drawing.
type frameMsg struct{}

// frameInterval is one frame.
const frameInterval = time.Second / frameRate

// churnFrameInterval is one frame for what is not the lock pane's queue
// while that queue churns.
const churnFrameInterval = 250 * time.Millisecond

// interval is the shortest time between two drawings for messages that
// do not draw at once.
func (f *frameCache) interval() time.Duration {
	if f.churning {
		return churnFrameInterval
	}
	return frameInterval
}

// cachedView returns the last drawing when nothing changed since or it
// is less than a frame old, else draws with draw. Without a cache (tests,
// no program) it always draws.
func (f *frameCache) cachedView(draw func() tea.View) tea.View {
	if f == nil {
		return draw()
	}
	if f.valid && (!f.stale || time.Since(f.at) < f.interval()) {
		return f.view
	}
	f.partial = false
	f.view, f.at, f.valid = draw(), time.Now(), true
	f.stale = f.partial // drawn around a kept chrome: the frame due draws it all
	return f.view
}

// lockPane tells the cache, after each message, whether the lock pane is
// churning and whether the message put a new queue on the pane (then the
// next View draws at once).
func (f *frameCache) lockPane(churning, newQueue bool) {
	if f == nil {
		return
	}
	f.churning = churning
	if newQueue {
		f.valid = false
	}
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
		f.pending = false
		if f.stale {
			f.valid, f.kept = false, nil // else a drawing since covered it
		}
		return cmd
	case tea.KeyPressMsg, tea.WindowSizeMsg, tea.MouseMsg, tea.PasteMsg:
		f.valid, f.kept = false, nil
		return cmd
	}
	if !f.valid {
		return cmd
	}
	f.stale = true
	if f.pending {
		return cmd
	}
	f.pending = true
	wait := max(f.interval()-time.Since(f.at), time.Millisecond)
	return tea.Batch(cmd, tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{} }))
}
