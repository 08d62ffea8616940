package common

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestWidthAgreesWithANSI: every rune Width counts itself is one cell to
// ansi.StringWidth, and on lines made of them, styles, wide runes,
// combining marks and controls, Width is ansi.StringWidth.
func TestWidthAgreesWithANSI(t *testing.T) {
	for r := rune(0); r < 0x30000; r++ {
		if narrowSymbol(r) && ansi.StringWidth("a"+string(r)+"b") != 3 {
			t.Errorf("%U: ansi.StringWidth says %d cells with a and b", r, ansi.StringWidth("a"+string(r)+"b"))
		}
	}
	pieces := []string{"a", "W12", " ", "●", "○", "─", "▶", "✕", "…", "é", "·", "⚠", "⚠\ufe0f", "日本", "e\u0301", "👍", "\x1b[1;38;2;10;20;30m", "\x1b[0m", "\x1b[m", "\t", "\x1b]8;;x\x07", "\u00ad", "\x1b["}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		if s := b.String(); Width(s) != ansi.StringWidth(s) {
			t.Fatalf("%q: Width %d, ansi.StringWidth %d", s, Width(s), ansi.StringWidth(s))
		}
	}
}

func BenchmarkWidth(b *testing.B) {
	line := "\x1b[38;2;1;2;3m▸ \x1b[0m\x1b[1mW12 ○ exclusive _c_00000412-0000-4000-8000-000000000000-lock-0000001042\x1b[0m  \x1b[2mwaiting 3s\x1b[0m"
	b.Run("Width", func(b *testing.B) {
		for b.Loop() {
			Width(line)
		}
	})
	b.Run("ansi", func(b *testing.B) {
		for b.Loop() {
			ansi.StringWidth(line)
		}
	})
}
