package detail

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
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
