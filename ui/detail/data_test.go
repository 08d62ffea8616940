package detail

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/printable"
)

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func TestDataViewers(t *testing.T) {
	d := decodeData(gz(`{"a":1}`))
	if !d.gzip || !d.json || d.binary {
		t.Fatalf("gzip json: %+v", d)
	}
	lines, used := formatData(d, ViewerAuto, 40)
	if used != ViewerJSON || len(lines) != 3 {
		t.Fatalf("auto: %v %q", used, lines)
	}
	if _, used := formatData(decodeData([]byte{0, 1, 2}), ViewerAuto, 80); used != ViewerHex {
		t.Fatalf("binary: %v", used)
	}
	lines, _ = formatData(decodeData([]byte("hello")), ViewerBase64, 80)
	if lines[0] != "aGVsbG8=" {
		t.Fatalf("base64: %q", lines)
	}
	lines = hexLines([]byte("0123456789abcdefXYZ"), 80)
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "0123456789abcdef") {
		t.Fatalf("hex: %q", lines)
	}
}

// TestWrappedLinesKeepTheirOrder: a line wrapped into several must not
// take the place of the lines after it (a long text showed lines twice
// and lost the rest).
func TestWrappedLinesKeepTheirOrder(t *testing.T) {
	in := strings.Repeat("a", 100) + "\n" + strings.Repeat("b", 50) + "\nc"
	lines, _ := formatData(decodeData([]byte(in)), ViewerText, 40)
	want := []string{strings.Repeat("a", 40), strings.Repeat("a", 40), strings.Repeat("a", 20), strings.Repeat("b", 40), strings.Repeat("b", 10), "c"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q, want %q", lines, want)
	}
}

// TestViewersEscapeData: every viewer shows control bytes, C1 codes,
// bidi controls and bytes that are not UTF-8 as escapes, valid JSON's
// strings included.
func TestViewersEscapeData(t *testing.T) {
	for _, data := range []string{
		"hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end",
		`{"name":"` + "\u009b2J \u202eevil" + `","n":1}`,
		"bad \xff\xfe utf8 \x9b31m\r\n\tnext",
	} {
		for v := ViewerAuto; v < viewerCount; v++ {
			lines, used := formatData(decodeData([]byte(data)), v, 40)
			for _, l := range lines {
				if !printable.Clean(l) {
					t.Errorf("%s viewer (%s) of %q: line %q", v, used, data, l)
				}
			}
		}
	}
}
