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
// all equal), then by name, which is unique in a directory. Sequence keys
// (decimal digits, all of one length, whose string order is their numeric
// order) are sorted as integers: 10,000 contenders several times faster
// than by comparing strings.
func keyOrder(keys []string, rank []uint8, name func(i int) string) []int32 {
	tie := func(a, b int32) int {
		if rank != nil && rank[a] != rank[b] {
			return cmp.Compare(rank[a], rank[b])
		}
		return strings.Compare(name(int(a)), name(int(b)))
	}
	order := make([]int32, len(keys))
	packed, ok := packKeys(keys)
	if !ok {
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int { return cmp.Or(strings.Compare(keys[a], keys[b]), tie(a, b)) })
		return order
	}
	slices.Sort(packed)
	for j, v := range packed {
		order[j] = int32(v & (1<<packIndexBits - 1))
	}
	// Equal numbers (sequence ties) in (rank, name) order.
	for g := 0; g < len(packed); {
		end := g + 1
		for end < len(packed) && packed[end]>>packIndexBits == packed[g]>>packIndexBits {
			end++
		}
		if end-g > 1 {
			slices.SortFunc(order[g:end], tie)
		}
		g = end
	}
	return order
}

// packIndexBits of a packed key hold its index, the bits above its number.
const packIndexBits = 24

// packKeys returns each key as its number with its index below, when
// every key is a run of decimal digits of one length of at most 12 (so
// that the number fits above the index) and there are fewer than 2^24.
func packKeys(keys []string) ([]uint64, bool) {
	if len(keys) == 0 || len(keys) >= 1<<packIndexBits || len(keys[0]) == 0 || len(keys[0]) > 12 {
		return nil, false
	}
	packed := make([]uint64, len(keys))
	for i, k := range keys {
		if len(k) != len(keys[0]) {
			return nil, false
		}
		var v uint64
		for j := 0; j < len(k); j++ {
			d := k[j] - '0'
			if d > 9 {
				return nil, false
			}
			v = v*10 + uint64(d)
		}
		packed[i] = v<<packIndexBits | uint64(i)
	}
	return packed, true
}

// permute puts s in order, in place: afterwards s[j] is what s[order[j]]
// was. Each cycle of the permutation is followed once; order is used up
// (its entries are marked as they are done).
func permute[T any](s []T, order []int32) {
	for i := range s {
		if order[i] < 0 {
			continue
		}
		first, j := s[i], i
		for {
			k := int(order[j])
			order[j] = -1 - order[j]
			if k == i {
				s[j] = first
				break
			}
			s[j], j = s[k], k
		}
	}
}
