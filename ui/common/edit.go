package common

// A node's data edited in an editor: the temp file's suffix, the saved
// file read back, binary data as a hex dump.

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// EditSuffix keeps the node name's extension (".json") on the temp file,
// so the editor picks its syntax; anything unusual becomes ".txt".
func EditSuffix(p string) string {
	ext := path.Ext(p)
	if len(ext) < 2 || len(ext) > 9 {
		return ".txt"
	}
	for _, r := range ext[1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ".txt"
		}
	}
	return ext
}

// EditedData is what the saved file means for the node: the bytes to
// write and whether they differ from orig. hex: the file is a dump.
func EditedData(orig, saved []byte, hex bool) (data []byte, changed bool, err error) {
	if hex {
		data, err = ParseHexDump(saved)
		if err != nil {
			return nil, false, fmt.Errorf("the hex dump does not parse: %w", err)
		}
	} else {
		data = saved
		if !bytes.HasSuffix(orig, []byte("\n")) && bytes.HasSuffix(data, []byte("\n")) {
			data = data[:len(data)-1] // the editor's final newline
		}
	}
	return data, !bytes.Equal(data, orig), nil
}

// hexBytesPerLine is the width of a hex dump line.
const hexBytesPerLine = 16

// HexDump renders data for editing: a comment header, then lines of an
// offset, hex bytes and the printable ASCII after a '#'.
func HexDump(p string, data []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s holds binary data (%d bytes), shown as hex for editing.\n", p, len(data))
	b.WriteString("# Edit the hex bytes (two digits each, any spacing). The offset before ':'\n")
	b.WriteString("# and everything after '#' are ignored. Save unchanged to write nothing.\n")
	for off := 0; off < len(data); off += hexBytesPerLine {
		line := data[off:min(off+hexBytesPerLine, len(data))]
		fmt.Fprintf(&b, "%08x:", off)
		for _, c := range line {
			fmt.Fprintf(&b, " %02x", c)
		}
		b.WriteString(strings.Repeat("   ", hexBytesPerLine-len(line)))
		b.WriteString("  # ")
		for _, c := range line {
			if c >= 0x20 && c < 0x7f {
				b.WriteByte(c)
			} else {
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// ParseHexDump reads back a dump written by [HexDump] and edited: per
// line, everything from '#' on is a comment, a leading "offset:" is
// skipped, and every other word must be whole hex bytes ("7b" or "7b22").
// Anything else is an error naming the line.
func ParseHexDump(dump []byte) ([]byte, error) {
	var out []byte
	for i, line := range strings.Split(string(dump), "\n") {
		if c := strings.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		words := strings.Fields(line)
		if len(words) > 0 && strings.HasSuffix(words[0], ":") {
			if off := strings.TrimSuffix(words[0], ":"); off == "" || !isHex(off) {
				return nil, fmt.Errorf("line %d: %q is not an offset", i+1, words[0])
			}
			words = words[1:]
		}
		for _, w := range words {
			if len(w)%2 != 0 || !isHex(w) {
				return nil, fmt.Errorf("line %d: %q is not hex bytes", i+1, w)
			}
			for j := 0; j < len(w); j += 2 {
				out = append(out, unhex(w[j])<<4|unhex(w[j+1]))
			}
		}
	}
	return out, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
