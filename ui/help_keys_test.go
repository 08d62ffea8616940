package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// TestHelpScrollsWhenShort: at 60×15 the `?` screen does not fit; j, pgdn
// and G scroll it to the commands at the end, other keys go back, and
// every frame keeps the terminal's size.
func TestHelpScrollsWhenShort(t *testing.T) {
	m := fixture(t, 60, 15, "dark")
	m = pressKeys(t, m, "?")
	first := screen(m)
	checkSize(t, first, 60, 15)
	if !strings.Contains(first, "scroll") || strings.Contains(first, ":cd /path") {
		t.Fatalf("first help page at 60×15:\n%s", first)
	}
	m = pressKeys(t, m, "j")
	if m.helpScroll != 1 || m.mode != modeHelp {
		t.Fatalf("j: scroll %d mode %v", m.helpScroll, m.mode)
	}
	m = pressKeys(t, m, "G")
	last := screen(m)
	checkSize(t, last, 60, 15)
	if !strings.Contains(last, ":cd /path") {
		t.Fatalf("G did not reach the commands:\n%s", last)
	}
	golden.RequireEqual(t, []byte(last))
	m = pressKeys(t, m, "j") // past the end: stays
	if screen(m) != last {
		t.Fatal("scrolled past the end")
	}
	m = pressKeys(t, m, "x")
	if m.mode != modeNormal || m.helpScroll != 0 {
		t.Fatalf("x did not go back (mode %v, scroll %d)", m.mode, m.helpScroll)
	}
	// At 140×40 it fits: any key goes back at once.
	m = pressKeys(t, fixture(t, 140, 40, "dark"), "?", "j")
	if m.mode != modeNormal {
		t.Fatal("j on a help screen that fits did not go back")
	}
}

// TestHelpKeepsCommandsWhole: at every width from the smallest, the `?`
// screen keeps each command with its arguments on one line:
// "high-contrast" is never broken at its hyphen.
func TestHelpKeepsCommandsWhole(t *testing.T) {
	for w := minWidth; w <= 160; w++ {
		m := pressKeys(t, fixture(t, w, minHeight, "dark"), "?")
		text := ansi.Strip(strings.Join(m.helpLines(), "\n"))
		for _, want := range []string{":theme dark|light|high-contrast|none", ":sessions [path]", ":locks [path]"} {
			if !strings.Contains(text, want) {
				t.Fatalf("at %d columns the help breaks %q:\n%s", w, want, text)
			}
		}
	}
}
