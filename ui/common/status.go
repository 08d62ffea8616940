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
}

// TickMsg is the root model's one-second tick: it ages the status line,
// and the components (the lock pane) move their clocks on with it.
type TickMsg struct{ At time.Time }
