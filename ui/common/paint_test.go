package common

import (
	"reflect"
	"testing"

	"charm.land/lipgloss/v2"

	"github.com/zkscope/zkscope/themes"
)

// TestPainterDrawsAsLipgloss: every style of every theme, through the
// Painter, draws what lipgloss draws, before and after a theme change.
func TestPainterDrawsAsLipgloss(t *testing.T) {
	texts := []string{"", "x", "held 3s", "  W3 ──watches ✓──▶ H1", "two\nlines", "tab\there", "\x1b[1mbold\x1b[0m", "trailing  ", "    ✕ exclusive _c_0000…-lock-0000000001", "ünï ✕"}
	var st themes.Styles
	pt := NewPainter(&st)
	fast, perRune := 0, 0
	for _, name := range []string{themes.Dark, themes.Light, themes.HighContrast, themes.None, themes.Dark} {
		p, err := themes.Pick(name, true, name == themes.None)
		if err != nil {
			t.Fatal(err)
		}
		st = themes.New(p) // in place, as the root model does
		v := reflect.ValueOf(&st).Elem()
		for i := range v.NumField() {
			s, ok := v.Field(i).Addr().Interface().(*lipgloss.Style)
			if !ok {
				continue
			}
			for _, text := range texts {
				if got, want := pt.Render(s, text), s.Render(text); got != want {
					t.Errorf("%s %s.Render(%q) = %q, lipgloss draws %q", name, v.Type().Field(i).Name, text, got, want)
				}
			}
			if pt.paints[s].fast {
				fast++
			}
			if pt.paints[s].perRune {
				perRune++
			}
		}
	}
	if fast == 0 {
		t.Error("no style took the fast way")
	}
	if perRune == 0 {
		t.Error("no style took the way a character at a time (the struck ones)")
	}
}
