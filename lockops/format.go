package lockops

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// FormatSession prints a session id the way ZooKeeper's tools do: "0x" and
// lowercase hex.
func FormatSession(id int64) string { return "0x" + strconv.FormatUint(uint64(id), 16) }

// ShortName shortens the random part of a lock node's name so a queue fits
// a terminal: Curator's "_c_5b0e61c1-…-lock-0000000007" keeps the UUID's
// first group, kazoo's and go-zookeeper's hex keep 8 digits.
func ShortName(name string) string {
	if rest, ok := strings.CutPrefix(name, "_c_"); ok {
		if len(rest) > 37 && isUUID36(rest[:36]) {
			return "_c_" + rest[:8] + "…" + rest[36:]
		}
		if len(rest) > 33 && isHex(rest[:32]) {
			return "_c_" + rest[:8] + "…" + rest[32:]
		}
	}
	if len(name) > 32 && isHex(name[:32]) {
		return name[:8] + "…" + name[32:]
	}
	return name
}

// FormatAge prints a duration the way an operator reads it: 45s, 12m03s,
// 3h07m, 2d05h.
func FormatAge(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// Plural is n what in the plural but for one: "1 lock", "3 locks",
// "2 watches", "4 children".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	switch {
	case what == "child" || strings.HasSuffix(what, " child"):
		return fmt.Sprintf("%d %sren", n, what)
	case strings.HasSuffix(what, "ch"), strings.HasSuffix(what, "sh"),
		strings.HasSuffix(what, "s"), strings.HasSuffix(what, "x"):
		return fmt.Sprintf("%d %ses", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// DescribeDataWith shows node data in at most max runes: text as escape
// makes it (nil: as it is), Curator's revocation marker named, anything
// else as "<N bytes binary>". What prints it escapes the text first (the
// tables' DescribeData), so that max counts what the terminal shows.
func DescribeDataWith(b []byte, max int, escape func(string) string) string {
	switch {
	case len(b) == 0:
		return "-"
	case string(b) == string(RevokeMessage):
		return "__REVOKE__ (revocation requested)"
	case !utf8.Valid(b):
		return fmt.Sprintf("<%d bytes binary>", len(b))
	}
	s := string(b)
	if escape != nil {
		s = escape(s)
	}
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	return s
}
