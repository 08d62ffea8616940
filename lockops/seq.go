package lockops

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// ParseSeq parses a ZooKeeper sequence suffix as the server writes it
// (String.format("%010d", cversion)): ten digits, or after the parent's
// cversion overflowed a minus sign and nine or ten digits
// ("-000000001", "-2147483648"). ok is false for anything else.
func ParseSeq(s string) (seq int64, ok bool) {
	digits := s
	switch {
	case len(s) == 10 && allDigits(s):
	case (len(s) == 10 || len(s) == 11) && s[0] == '-' && allDigits(s[1:]):
		digits = s[1:]
	default:
		return 0, false
	}
	var v int64
	for i := 0; i < len(digits); i++ {
		v = v*10 + int64(digits[i]-'0')
	}
	if len(digits) < len(s) {
		v = -v
	}
	if v > math.MaxInt32 || v < math.MinInt32 {
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

// keyOrder returns the indexes of keys in the order the libraries sort
// their nodes: by key as a string, then by rank (lower first; nil ranks
// all equal), then by name, which is unique in a directory. When every key
// is a run of the same number of decimal digits, as sequence suffixes are,
// string order is numeric order and the sort compares integers: 10,000
// contenders sort several times faster than by comparing strings.
func keyOrder(keys []string, rank []uint8, name func(i int) string) []int32 {
	type entry struct {
		num uint64
		i   int32
	}
	es := make([]entry, len(keys))
	numeric := len(keys) > 0 && len(keys[0]) > 0 && len(keys[0]) <= 19
	for i, k := range keys {
		es[i].i = int32(i)
		if !numeric {
			continue
		}
		if len(k) != len(keys[0]) {
			numeric = false
			continue
		}
		var v uint64
		for j := 0; j < len(k); j++ {
			d := k[j] - '0'
			if d > 9 {
				numeric = false
				break
			}
			v = v*10 + uint64(d)
		}
		es[i].num = v
	}
	tie := func(a, b int32) int {
		if rank != nil && rank[a] != rank[b] {
			return cmp.Compare(rank[a], rank[b])
		}
		return strings.Compare(name(int(a)), name(int(b)))
	}
	order := make([]int32, len(es))
	if !numeric {
		slices.SortFunc(es, func(a, b entry) int {
			if c := strings.Compare(keys[a.i], keys[b.i]); c != 0 {
				return c
			}
			return tie(a.i, b.i)
		})
		for j, e := range es {
			order[j] = e.i
		}
		return order
	}
	// Numbers: sort them with their indexes packed in (a plain integer
	// sort, no comparison function), then put each run of equal numbers
	// in (rank, name) order.
	const idxBits = 24
	packed := make([]uint64, len(es))
	fits := len(es) < 1<<idxBits
	for i, e := range es {
		fits = fits && e.num < 1<<(64-idxBits)
		packed[i] = e.num<<idxBits | uint64(e.i)
	}
	if fits {
		slices.Sort(packed)
		for j, v := range packed {
			order[j], es[j].num = int32(v&(1<<idxBits-1)), v>>idxBits
		}
	} else {
		slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.num, b.num) })
		for j, e := range es {
			order[j] = e.i
		}
	}
	for g := 0; g < len(es); {
		end := g + 1
		for end < len(es) && es[end].num == es[g].num {
			end++
		}
		if end-g > 1 {
			slices.SortFunc(order[g:end], tie)
		}
		g = end
	}
	return order
}
