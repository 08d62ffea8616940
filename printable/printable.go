// Package printable turns text that came from a server (node names and
// data, ACL ids, client addresses, Redis keys and values, error messages
// quoting them) into text a terminal only prints: nothing in it can move
// the cursor, retitle the window, recolour the screen, hide text or
// reorder it. Everything zkscope shows of a server's text goes through
// [String] (one line) or [Text] (several lines).
//
// It is a leaf: it imports nothing of the module, so every layer (the
// commands, lockops' tables, the TUI's components) can use it.
package printable

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s with every rune a terminal would act on, or that would
// hide or reorder what is shown, replaced by a visible escape:
//
//   - C0 controls and DEL, newline and tab included (one line stays one
//     line): \x1b, \x0a, \x7f;
//   - bytes that are not UTF-8: \xff;
//   - C1 controls (U+0080–U+009F: CSI, OSC, NEL …): \u009b;
//   - the invisible format characters of Unicode category Cf: the
//     bidirectional embeddings, overrides and isolates (U+202A–U+202E,
//     U+2066–U+2069) and marks (U+200E, U+200F, U+061C), which make a
//     terminal draw text in another order than it is; the zero-width
//     space, word joiner and byte order mark, which hide text; soft
//     hyphen, tag characters and the rest of the category. The zero-width
//     joiner and non-joiner (U+200C, U+200D) stay: they join emoji and
//     shape scripts, and change nothing around them;
//   - the line and paragraph separators U+2028 and U+2029: \u2028.
//
// Runes above U+FFFF are written \U000e0001. A backslash stays as it is,
// so a name holding the four characters \x1b reads the same as a name
// holding ESC: the point is that neither reaches the terminal as ESC
// (the JSON outputs tell the two apart). Text with nothing to escape is
// returned as it is, without allocating; plain ASCII is checked a byte at
// a time.
func String(s string) string { return escape(s, false) }

// Text is [String] keeping newlines and tabs: for output of several lines
// (`get` on a terminal). A carriage return is escaped (it would let a
// line overwrite the one before).
func Text(s string) string { return escape(s, true) }

// Bytes is [String] of b.
func Bytes(b []byte) string { return String(string(b)) }

// Clean reports whether [String] leaves s as it is.
func Clean(s string) bool { return firstEscaped(s, false) < 0 }

func escape(s string, keepLines bool) string {
	i := firstEscaped(s, keepLines)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f, keepLines && (c == '\n' || c == '\t'):
			b.WriteByte(c)
			i++
			continue
		case c < utf8.RuneSelf:
			writeByte(&b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			writeByte(&b, c)
		case escaped(r):
			writeRune(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// firstEscaped is the index of the first byte String (or Text) escapes,
// -1 when none.
func firstEscaped(s string, keepLines bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || keepLines && (c == '\n' || c == '\t') {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return i
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || escaped(r) {
			return i
		}
		i += n
	}
	return -1
}

// escaped reports whether a rune of U+0080 or above is escaped.
func escaped(r rune) bool {
	switch {
	case r < 0xa0: // C1 controls
		return true
	case r == 0x200c || r == 0x200d: // zero-width non-joiner and joiner
		return false
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

const hexDigits = "0123456789abcdef"

func writeByte(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&0xf])
}

func writeRune(b *strings.Builder, r rune) {
	h := strconv.FormatInt(int64(r), 16)
	if r > 0xffff {
		b.WriteString(`\U`)
		b.WriteString(strings.Repeat("0", 8-len(h)))
	} else {
		b.WriteString(`\u`)
		b.WriteString(strings.Repeat("0", 4-len(h)))
	}
	b.WriteString(h)
}
