package common

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/printable"
)

// Printable reports whether b is UTF-8 text without control characters
// other than tab and newlines.
func Printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r == '\n' || r == '\r' || r == '\t' {
			continue
		}
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// HexID renders a session id or a zxid in hex.
func HexID(v int64) string { return fmt.Sprintf("0x%x", uint64(v)) }

// FormatAge is a short duration: "4s", "1m05s", "2h03m", "3d04h".
func FormatAge(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%dd%02dh", s/86400, s%86400/3600)
}

// ShortName fits a node name in w cells, escaped ([printable.String]) and
// cut in the middle, keeping its start and its sequence number. Queue listings shorten the name first
// with [lockops.ShortName], as the CLI does ("_c_9f1e0a2b…-lock-0000000003");
// the force-delete dialog shows it whole when it fits, as the CLI's
// confirmation does.
func ShortName(name string, w int) string {
	name = printable.String(name)
	nw := Width(name)
	if nw <= w || w < 8 {
		return name
	}
	tail := min(16, w-4)
	head := w - tail - 1
	return ansi.Truncate(name, head, "") + "…" + ansi.TruncateLeft(name, nw-tail, "")
}

// DataSummary is owner data on one line: text quoted, binary as a size.
func DataSummary(d []byte) string {
	if !Printable(d) {
		return fmt.Sprintf("(%d bytes binary)", len(d))
	}
	s := strings.Join(strings.Fields(string(d)), " ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Sentence capitalises s's first letter.
func Sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// CommonPrefix is the longest prefix all of ss share.
func CommonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// Flow lays items out left to right, sep apart, in lines of at most w
// cells: an item (a command with its arguments, a marker with its
// meaning) never breaks across lines unless it is wider than a line.
func Flow(items []string, sep string, w int) []string {
	var lines []string
	line, lw := "", 0
	for _, it := range items {
		iw := ansi.StringWidth(it)
		switch {
		case lw > 0 && lw+len(sep)+iw <= w:
			line, lw = line+sep+it, lw+len(sep)+iw
			continue
		case lw > 0:
			lines = append(lines, line)
		}
		line, lw = it, iw
		if iw > w {
			wrapped := strings.Split(ansi.Wrap(it, w, " "), "\n")
			lines = append(lines, wrapped[:len(wrapped)-1]...)
			line = wrapped[len(wrapped)-1]
			lw = ansi.StringWidth(line)
		}
	}
	if lw > 0 {
		lines = append(lines, line)
	}
	return lines
}

// Plural is n with one or many: "1 lock", "3 locks".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
