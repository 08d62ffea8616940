package themes

import (
	"image/color"
	"math"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

func TestPick(t *testing.T) {
	cases := []struct {
		name    string
		dark    bool
		noColor bool
		want    string
	}{
		{"", true, false, Dark},
		{"auto", false, false, Light},
		{"AUTO", true, false, Dark},
		{" dark ", false, false, Dark},
		{"light", true, false, Light},
		{"high-contrast", true, false, HighContrast},
		{"high_contrast", false, false, HighContrast},
		{"none", true, false, None},
		{"dark", true, true, None}, // NO_COLOR wins over any theme
		{"high-contrast", true, true, None},
	}
	for _, c := range cases {
		p, err := Pick(c.name, c.dark, c.noColor)
		if err != nil {
			t.Fatalf("Pick(%q): %v", c.name, err)
		}
		if p.Name != c.want {
			t.Errorf("Pick(%q, dark=%v, noColor=%v) = %s, want %s", c.name, c.dark, c.noColor, p.Name, c.want)
		}
	}
	if err := Valid("solarized"); err == nil || !strings.Contains(err.Error(), "high-contrast") {
		t.Fatalf("Valid(solarized) = %v, want an error listing the themes", err)
	}
}

func TestNoColorEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if NoColorEnv(env(nil)) {
		t.Error("NO_COLOR unset: colours expected")
	}
	if NoColorEnv(env(map[string]string{"NO_COLOR": ""})) {
		t.Error("NO_COLOR empty: the convention says colours stay")
	}
	if !NoColorEnv(env(map[string]string{"NO_COLOR": "1"})) {
		t.Error("NO_COLOR=1: no colours expected")
	}
}

// TestNoneHasNoColours: the none palette's styles set no colour at all,
// only attributes, so nothing depends on the terminal's colours.
func TestNoneHasNoColours(t *testing.T) {
	p, _ := Pick(None, true, false)
	s := New(p)
	for name, st := range map[string]lipgloss.Style{
		"Base": s.Base, "RowSelected": s.RowSelected, "Header": s.Header, "Error": s.Error,
		"Ephemeral": s.Ephemeral, "Lock": s.Lock, "Badge": s.Badge, "PaneFocused": s.PaneFocused,
	} {
		if _, ok := st.GetForeground().(lipgloss.NoColor); !ok && st.GetForeground() != nil {
			t.Errorf("%s has foreground %v", name, st.GetForeground())
		}
		if _, ok := st.GetBackground().(lipgloss.NoColor); !ok && st.GetBackground() != nil {
			t.Errorf("%s has background %v", name, st.GetBackground())
		}
	}
	if !s.RowSelected.GetReverse() {
		t.Error("without colours the cursor row must be reversed")
	}
}

// TestContrast: text colours stay readable on the background they are
// meant for (WCAG contrast ratio ≥ 4.5 for text, ≥ 3 for faint text), and
// the cursor row is readable on its own background.
func TestContrast(t *testing.T) {
	black, darkGrey := color.RGBA{0, 0, 0, 255}, color.RGBA{0x28, 0x2c, 0x34, 255}
	white := color.RGBA{255, 255, 255, 255}
	for _, c := range []struct {
		theme string
		bgs   []color.Color
	}{
		{Dark, []color.Color{black, darkGrey}},
		{Light, []color.Color{white}},
		{HighContrast, []color.Color{black}},
	} {
		p, _ := Pick(c.theme, true, false)
		text := map[string]color.Color{
			"Fg": p.Fg, "Muted": p.Muted, "Accent": p.Accent, "OK": p.OK, "Warn": p.Warn, "Err": p.Err, "Info": p.Info,
			"Persistent": p.Persistent, "Ephemeral": p.Ephemeral, "Sequential": p.Sequential, "Container": p.Container,
			"TTL": p.TTL, "Lock": p.Lock, "Holder": p.Holder, "Waiter": p.Waiter,
		}
		for _, bg := range c.bgs {
			for name, fg := range text {
				if r := contrast(fg, bg); r < 4.5 {
					t.Errorf("%s: %s on %v has contrast %.2f, want ≥ 4.5", c.theme, name, bg, r)
				}
			}
			if r := contrast(p.Subtle, bg); r < 2.5 {
				t.Errorf("%s: Subtle on %v has contrast %.2f, want ≥ 2.5", c.theme, bg, r)
			}
		}
		if r := contrast(p.SelFg, p.SelBg); r < 4.5 {
			t.Errorf("%s: the cursor row has contrast %.2f, want ≥ 4.5", c.theme, r)
		}
		if r := contrast(p.Fg, p.SelBlurBg); r < 4.5 {
			t.Errorf("%s: the unfocused cursor row has contrast %.2f, want ≥ 4.5", c.theme, r)
		}
	}
}

func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	ch := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(r) + 0.7152*ch(g) + 0.0722*ch(b)
}

func BenchmarkNew(b *testing.B) {
	p, _ := Pick(Dark, true, false)
	for i := 0; i < b.N; i++ {
		_ = New(p)
	}
}
