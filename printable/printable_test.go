package printable

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain /app/locks/lock-0000000001", "plain /app/locks/lock-0000000001"},
		{"hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end", `hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end`},
		{"a\nb\tc\rd", `a\x0ab\x09c\x0dd`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m \u0085", `c1 \u009b31m \u0085`},
		{"raw c1 \x9b31m", `raw c1 \x9b31m`},
		{"bad \xff\xfe utf8 \xe2\x82", `bad \xff\xfe utf8 \xe2\x82`},
		{"bidi \u202eevil\u202c \u2066x\u2069 \u200f", `bidi \u202eevil\u202c \u2066x\u2069 \u200f`},
		{"hidden\u200bspace\ufeff\u2060", `hidden\u200bspace\ufeff\u2060`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"sep\u2028\u2029", `sep\u2028\u2029`},
		{"日本語 ünïcödé ✓ 👩\u200d💻 a\u200cb", "日本語 ünïcödé ✓ 👩\u200d💻 a\u200cb"},
		{`back\slash \x1b`, `back\slash \x1b`},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := Bytes([]byte(c.in)); got != c.want {
			t.Errorf("Bytes(%q) = %q, want %q", c.in, got, c.want)
		}
		if Clean(c.in) != (c.in == c.want) {
			t.Errorf("Clean(%q) = %v", c.in, Clean(c.in))
		}
	}
}

func TestText(t *testing.T) {
	in := "line 1\n\tline 2\r\n\x1b[2Jline 3"
	want := "line 1\n\tline 2\\x0d\n\\x1b[2Jline 3"
	if got := Text(in); got != want {
		t.Errorf("Text(%q) = %q, want %q", in, got, want)
	}
}

// TestCleanDoesNotAllocate: the fast path returns its argument.
func TestCleanDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("/app/locks/_c_9f1e0a2b-lock-0000000003 日本 ", 10)
	if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
		t.Errorf("String of clean text allocates %v times", n)
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end", "\xc2\x9b", "\x9b", "\u202e\u2066", "\xff\xfe", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, esc := range []func(string) string{String, Text} {
			out := esc(s)
			if !utf8.ValidString(out) {
				t.Fatalf("%q: not UTF-8: %q", s, out)
			}
			if esc(out) != out {
				t.Fatalf("%q: escaping again changes %q", s, out)
			}
		}
		for _, r := range String(s) {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
				t.Fatalf("%q: %U left in %q", s, r, String(s))
			}
		}
	})
}

func BenchmarkStringClean(b *testing.B) {
	s := "/app/locks/_c_9f1e0a2b-8c5d-4a5e-9a1b-2f3c4d5e6f70-lock-0000000003"
	for b.Loop() {
		_ = String(s)
	}
}

func BenchmarkStringEscaped(b *testing.B) {
	s := "hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end \u202e"
	for b.Loop() {
		_ = String(s)
	}
}
