package printable

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestJSONSameDocument: what the writer passes on decodes to the same
// value, however the encoder's output is split into writes, and holds
// none of the runes String escapes.
func TestJSONSameDocument(t *testing.T) {
	for _, s := range []string{
		"plain",
		"hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end",
		"c1 \u009b31m del \x7f bidi \u202eevil\u2069 zw\u200b\ufeff tag \U000e0041 日本 👩\u200d💻",
	} {
		enc, err := json.Marshal(map[string]string{"k": s})
		if err != nil {
			t.Fatal(err)
		}
		for split := 0; split <= len(enc); split++ {
			var out bytes.Buffer
			w := JSON(&out)
			w.Write(enc[:split])
			w.Write(enc[split:])
			var back map[string]string
			if err := json.Unmarshal(out.Bytes(), &back); err != nil || back["k"] != s {
				t.Fatalf("split %d: %q decodes to %q, %v", split, out.String(), back["k"], err)
			}
			if !utf8.Valid(out.Bytes()) || String(out.String()) != out.String() {
				t.Fatalf("split %d: %q left runes to escape", split, out.String())
			}
		}
	}
}

// TestPlainJSONPrefix: the word-at-a-time scan stops where a byte-at-a-time
// one does, for DEL and every high byte at every offset.
func TestPlainJSONPrefix(t *testing.T) {
	for n := 0; n < 20; n++ {
		for at := 0; at <= n; at++ {
			for _, c := range []byte{0x7f, 0x80, 0xc3, 0xff, 'a'} {
				b := []byte(strings.Repeat("x", n))
				if at < n {
					b[at] = c
				}
				want := 0
				for want < len(b) && b[want] < 0x7f {
					want++
				}
				if got := plainJSONPrefix(b); got != want {
					t.Fatalf("plainJSONPrefix(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}
