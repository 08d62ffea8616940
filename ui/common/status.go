package common

import (
	"time"

	"charm.land/lipgloss/v2"

	"github.com/zkscope/zkscope/themes"
)

// Level colours a one-line message (the status line, the lock pane's note).
type Level int

// The levels, mildest first.
const (
	LevelInfo Level = iota
	LevelOK
	LevelWarn
	LevelErr
)

// Style is the style a message of this level is drawn in.
func (l Level) Style(st *themes.Styles) lipgloss.Style {
	switch l {
	case LevelOK:
		return st.Success
	case LevelWarn:
		return st.Warning
	case LevelErr:
		return st.Error
	}
	return st.Info
}

// Status is a one-line message and when it was set.
type Status struct {
	Text  string
	Level Level
	At    time.Time
	// About is the lock or node the message is about ("" the whole
	// program): it goes when the view moves to another.
	About string
}

// InfoFor is how long an informational message (info, ok) stays.
const InfoFor = 8 * time.Second

// Sticky reports whether s stays until the next key (a warning or an
// error: the operator has to have seen it); informational messages go
// after InfoFor.
func (s Status) Sticky() bool { return s.Level >= LevelWarn }

// Expired reports whether s is an informational message shown InfoFor by
// now.
func (s Status) Expired(now time.Time) bool {
	return s.Text != "" && !s.Sticky() && now.Sub(s.At) >= InfoFor
}

// TickMsg is the root model's one-second tick: it ages the status line,
// and the components (the lock pane) move their clocks on with it.
type TickMsg struct{ At time.Time }
