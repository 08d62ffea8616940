package tree

import "strings"

// FilterMatch picks how the `/` filter keeps names: by substring when any
// of names contains q (ignoring case), else fuzzy (q's characters in
// order). Mixing both would bury "svc-1" under svc-01, svc-21, … in a big
// directory; fuzzy is the fallback for a query nothing contains.
func FilterMatch(q string, names []string) (match func(string) bool, fuzzy bool) {
	q = strings.ToLower(q)
	qASCII := isASCII(q)
	sub := func(s string) bool {
		if qASCII && isASCII(s) {
			return containsFoldASCII(s, q)
		}
		return strings.Contains(strings.ToLower(s), q)
	}
	for _, n := range names {
		if sub(n) {
			return sub, false
		}
	}
	qr := []rune(q)
	return func(s string) bool {
		if qASCII && isASCII(s) {
			return subsequenceFoldASCII(s, q)
		}
		i := 0
		for _, r := range strings.ToLower(s) {
			if i < len(qr) && r == qr[i] {
				i++
			}
		}
		return i == len(qr)
	}, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// containsFoldASCII: q (lower case) occurs in s, ignoring case.
func containsFoldASCII(s, q string) bool {
	if q == "" {
		return true
	}
	for i := 0; i+len(q) <= len(s); i++ {
		if lowerASCII(s[i]) != q[0] {
			continue
		}
		j := 1
		for j < len(q) && lowerASCII(s[i+j]) == q[j] {
			j++
		}
		if j == len(q) {
			return true
		}
	}
	return false
}

// subsequenceFoldASCII: q's characters occur in s in order, ignoring case.
func subsequenceFoldASCII(s, q string) bool {
	j := 0
	for i := 0; i < len(s) && j < len(q); i++ {
		if lowerASCII(s[i]) == q[j] {
			j++
		}
	}
	return j == len(q)
}
