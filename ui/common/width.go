package common

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Width is the width in cells of s, one line drawn with ANSI styles, as
// ansi.StringWidth measures it. The lines the panes draw (ASCII, the
// box-drawing, arrow and shape symbols, SGR sequences) it counts itself,
// a rune at a time, which is several times quicker; at anything else (a
// control character, another escape sequence, a rune outside those
// blocks: a wide one, a combining mark, a variation selector) it leaves
// the whole line to ansi.StringWidth.
func Width(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2 // a CSI sequence: parameters, then a final byte
			for j < len(s) && s[j] >= 0x20 && s[j] < 0x40 {
				j++
			}
			if j == len(s) || s[j] < 0x40 || s[j] > 0x7e {
				return ansi.StringWidth(s)
			}
			i = j + 1
		case c < 0x20 || c == 0x7f:
			return ansi.StringWidth(s)
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !narrowSymbol(r) {
				return ansi.StringWidth(s)
			}
			n++
			i += size
		}
	}
	return n
}

// narrowSymbol reports whether r is one cell wide and begins a grapheme
// of its own (TestWidthAgreesWithANSI checks each against
// ansi.StringWidth): Latin-1 and Latin Extended letters, general
// punctuation's dashes, bullets and ellipsis, arrows, box drawing, block
// elements, geometric shapes, and the dingbats the panes mark with.
func narrowSymbol(r rune) bool {
	switch {
	case r >= 0xa0 && r < 0x300:
		return r != 0xad // (the soft hyphen is zero-width)
	case r >= 0x2010 && r <= 0x2027, r >= 0x2190 && r <= 0x21ff, r >= 0x2500 && r <= 0x25ff:
		return r != 0x25fd && r != 0x25fe // (two emoji squares)
	}
	switch r {
	case '✓', '✔', '✕', '✗', '✘':
		return true
	}
	return false
}
