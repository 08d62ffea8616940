package ui

import "strings"

// filterMatch picks how the `/` filter keeps names: by substring when any
// of names contains q (ignoring case), else fuzzy (q's characters in
// order). Mixing both would bury "svc-1" under svc-01, svc-21, … in a big
// directory; fuzzy is the fallback for a query nothing contains.
func filterMatch(q string, names []string) (match func(string) bool, fuzzy bool) {
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
