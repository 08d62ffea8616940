package common

import (
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/zkscope/zkscope/themes"
)

// Painter draws single lines of plain text in the theme's styles as cheaply
// as joining strings. lipgloss's Render measures, pads and styles every
// call (about 10 µs); a row of a busy lock's queue has a dozen styled
// pieces and is drawn up to ten times a second. A style that only colours
// (no width, padding, margin, border or transform) draws any line of
// plain text as the same escape sequences around it, so the Painter takes
// them once per style and theme and puts them around the text. Anything
// else (several lines, tabs, text already styled, a style whose output is
// not a plain wrapping) goes to lipgloss.
//
// The zero Painter is not usable: make one with [NewPainter] for the
// styles the component draws with (the root's, changed in place on a
// theme change: the Painter notices and starts over).
type Painter struct {
	st     *themes.Styles
	theme  string
	plain  bool
	paints map[*lipgloss.Style]paint
}

// paint is one style's escape sequences around a line (fast), or around
// each character of it (perRune: a struck style, which lipgloss draws a
// character at a time), or none.
type paint struct {
	pre, post string
	fast      bool
	perRune   bool
}

// NewPainter returns a Painter for st.
func NewPainter(st *themes.Styles) *Painter {
	return &Painter{st: st}
}

// Render is s.Render(text) for s a style of the Painter's Styles (a
// pointer to its field, e.g. &st.Muted).
func (p *Painter) Render(s *lipgloss.Style, text string) string {
	if p.paints == nil || p.theme != p.st.Palette.Name || p.plain != p.st.NoColor {
		p.paints = map[*lipgloss.Style]paint{}
		p.theme, p.plain = p.st.Palette.Name, p.st.NoColor
	}
	pt, ok := p.paints[s]
	if !ok {
		pt = paintOf(*s)
		p.paints[s] = pt
	}
	switch {
	case pt.perRune && text != "" && eachRuneAlone(text):
		var b strings.Builder
		b.Grow(len(text) * (len(pt.pre) + len(pt.post) + 1))
		for _, r := range text {
			b.WriteString(pt.pre)
			b.WriteRune(r)
			b.WriteString(pt.post)
		}
		return b.String()
	case !pt.fast || text == "" || strings.ContainsAny(text, "\n\r\t\x1b"):
		return s.Render(text)
	}
	return pt.pre + text + pt.post
}

// eachRuneAlone says whether every character of text is one rune drawn
// one cell wide: printable ASCII and the few symbols the panes draw
// (anything else, which may join the next rune or be wide, goes to
// lipgloss).
func eachRuneAlone(text string) bool {
	for _, r := range text {
		if (r < 0x20 || r > 0x7e) && r != '✕' && r != '…' {
			return false
		}
	}
	return true
}

// paintSamples are the lines a style must draw as a plain wrapping for
// its paint to be used: words, spaces at either end (underlined or struck
// styles draw spaces apart), wide and long text (a width or a maximum
// width pads or cuts).
var paintSamples = []string{"a", "a b", " lead", "trail ", "W3 ──watches ✓──▶ H1 · 日本", strings.Repeat("long words ", 100)}

func paintOf(s lipgloss.Style) paint {
	const mark = "Q"
	out := s.Render(mark)
	i := strings.Index(out, mark)
	if i < 0 || strings.Count(out, mark) != 1 {
		return paint{}
	}
	pt := paint{pre: out[:i], post: out[i+len(mark):], fast: true}
	for _, sample := range paintSamples {
		if s.Render(sample) != pt.pre+sample+pt.post {
			pt.fast = false
			break
		}
	}
	if pt.fast {
		return pt
	}
	for _, sample := range perRuneSamples {
		var b strings.Builder
		for _, r := range sample {
			b.WriteString(pt.pre + string(r) + pt.post)
		}
		if s.Render(sample) != b.String() {
			return paint{}
		}
	}
	pt.perRune = true
	return pt
}

// perRuneSamples are the lines a style must draw a character at a time
// for its paint to be used that way (eachRuneAlone's characters).
var perRuneSamples = []string{"a", "ab", " a b ", "    ✕ exclusive _c_0000…-lock-01 ", strings.Repeat("long words ", 100)}
