package lockops

import (
	"strconv"
	"strings"
)

// ParseSeq parses a ZooKeeper sequence suffix as the server writes it
// (String.format("%010d", cversion)): ten digits, or after the parent's
// cversion overflowed a minus sign and nine or ten digits
// ("-000000001", "-2147483648"). ok is false for anything else.
func ParseSeq(s string) (seq int64, ok bool) {
	switch {
	case len(s) == 10 && allDigits(s):
	case (len(s) == 10 || len(s) == 11) && s[0] == '-' && allDigits(s[1:]):
	default:
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, false
	}
	// Only what %010d writes: no "-000000000", no "-0999999999".
	if s[0] == '-' && (v == 0 || len(s) == 11 && s[1] == '0') {
		return 0, false
	}
	return v, true
}

// afterLast returns the text after the last occurrence of marker in name,
// and whether the marker occurs at all.
func afterLast(name, marker string) (string, bool) {
	i := strings.LastIndex(name, marker)
	if i < 0 {
		return name, false
	}
	return name[i+len(marker):], true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// isUUID36 reports whether s is a UUID in its 36-character text form
// (8-4-4-4-12 lowercase hex digits), as Curator puts in protected names.
func isUUID36(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			c := s[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
