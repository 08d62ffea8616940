package printable

import (
	"encoding/binary"
	"io"
	"unicode/utf8"
)

// JSON returns a writer that passes JSON text on to w with the runes
// [String] escapes and JSON encoders leave as they are — DEL, the C1
// controls, the format characters (encoding/json escapes only C0,
// U+2028 and U+2029) — written as \u escapes. Outside its strings JSON
// text is ASCII without DEL, so every such rune is in a string and the
// escape is the same string to any JSON reader: the document does not
// change, only nothing in it is left for a terminal to act on.
//
// A rune split across two writes is written with the second; a
// document ends in ASCII, so nothing is held back after it.
func JSON(w io.Writer) io.Writer { return &jsonWriter{w: w} }

type jsonWriter struct {
	w       io.Writer
	partial [utf8.UTFMax]byte // the start of a rune the last write ended in
	n       int
	out     []byte
}

func (j *jsonWriter) Write(p []byte) (int, error) {
	total := len(p)
	if j.n > 0 {
		need := runeLen(j.partial[0]) - j.n
		take := min(need, len(p))
		copy(j.partial[j.n:], p[:take])
		j.n += take
		p = p[take:]
		if take < need {
			return total, nil
		}
		if err := j.write(j.partial[:j.n]); err != nil {
			return 0, err
		}
		j.n = 0
	}
	end := len(p) - incompleteTail(p)
	if err := j.write(p[:end]); err != nil {
		return 0, err
	}
	j.n = copy(j.partial[:], p[end:])
	return total, nil
}

// write writes b, its escaped runes as \u escapes.
func (j *jsonWriter) write(b []byte) error {
	start := 0
	j.out = j.out[:0]
	for i := plainJSONPrefix(b); i < len(b); {
		c := b[i]
		if c < 0x7f {
			i++
			continue
		}
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(b[i:])
		}
		if r == 0x7f || r >= utf8.RuneSelf && !(r == utf8.RuneError && n == 1) && escaped(r) {
			j.out = append(j.out, b[start:i]...)
			j.out = appendJSONEscape(j.out, r)
			start = i + n
		}
		i += n
	}
	if start == 0 {
		_, err := j.w.Write(b)
		return err
	}
	j.out = append(j.out, b[start:]...)
	_, err := j.w.Write(j.out)
	return err
}

// plainJSONPrefix is how many bytes at the start of b are below DEL (0x7f),
// which write passes on as they are: eight at a time (a JSON document of
// megabytes is mostly ASCII).
func plainJSONPrefix(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		// A byte of 0x80 or more has its high bit set, and only 0x7f
		// reaches it by adding one (the carry of 0xff is caught already).
		if w := binary.LittleEndian.Uint64(b[i:]); (w|(w+ones))&highs != 0 {
			break
		}
	}
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	return i
}

// appendJSONEscape appends r as JSON's \u escape (a surrogate pair above
// U+FFFF).
func appendJSONEscape(b []byte, r rune) []byte {
	if r > 0xffff {
		r -= 0x10000
		b = appendU(b, 0xd800+(r>>10))
		return appendU(b, 0xdc00+(r&0x3ff))
	}
	return appendU(b, r)
}

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// incompleteTail is how many bytes at the end of p begin a rune that
// continues in the next write (0 when none).
func incompleteTail(p []byte) int {
	for k := 1; k < utf8.UTFMax && k <= len(p); k++ {
		c := p[len(p)-k]
		switch {
		case c < utf8.RuneSelf:
			return 0
		case c >= 0xc0: // a rune's first byte
			if runeLen(c) > k {
				return k
			}
			return 0
		}
	}
	return 0
}

// runeLen is the length of the rune whose first byte is c (1 for a byte
// no rune begins with).
func runeLen(c byte) int {
	switch {
	case c >= 0xf8:
		return 1
	case c >= 0xf0:
		return 4
	case c >= 0xe0:
		return 3
	case c >= 0xc0:
		return 2
	}
	return 1
}
