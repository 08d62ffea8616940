package lockops

// go-zookeeper/zk v1.0.4's Lock (shared/lock-recipes.md §3):
// _c_<hex32>-lock-<seq>, numeric order, PERSISTENT parents.

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// GoZK is go-zookeeper's zk.Lock format (exclusive only).
var GoZK = &Library{
	Name: "go-zk", Title: "go-zookeeper",
	parse: func(name string) (marker, seq string, ok bool) {
		rest, ok := strings.CutPrefix(name, "_c_")
		if ok && len(rest) > 33 && isHex(rest[:32]) && strings.HasPrefix(rest[32:], "-lock-") {
			return "lock-", rest[38:], true
		}
		return "", "", false
	},
	kindOf: func(func(string) bool) Kind { return KindGoZK },
	Format: &TakeFormat{
		Kinds:  map[Mode]Kind{ModeExclusive: KindGoZK},
		Marker: func(Mode) string { return "lock-" },
		NewPrefix: func(string) string {
			b := uuid4() // CreateProtectedEphemeralSequential: 16 random bytes, hex
			return fmt.Sprintf("_c_%x-lock-", b[:])
		},
	},
}

// goZKSeq is go-zookeeper's parseSeq: split on "lock-" (else "__"), Atoi
// of the last part.
func goZKSeq(name string) (int, bool) {
	parts := strings.Split(name, "lock-")
	if len(parts) == 1 {
		parts = strings.Split(name, "__")
	}
	n, err := strconv.Atoi(parts[len(parts)-1])
	return n, err == nil
}

// decodeGoZK: go-zookeeper's zk.Lock. The lowest sequence holds; a waiter
// GetW-watches the greatest smaller sequence above -1 (a negative
// predecessor is never chosen). Any child it cannot parse makes Lock fail.
func decodeGoZK(dir string, children []Child) []Participant {
	type contender struct {
		c   *Child
		seq int
	}
	var cs []contender
	for i := range children {
		if s, ok := goZKSeq(children[i].Name); ok {
			cs = append(cs, contender{&children[i], s})
		}
	}
	slices.SortFunc(cs, func(a, b contender) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), strings.Compare(a.c.Name, b.c.Name))
	})
	ps := make([]Participant, len(cs))
	// In sequence order: the lowest sequence holds; a waiter's predecessor
	// is the first node of the nearest lower sequence, when that is not
	// negative (Lock's search starts above -1).
	prev := -1 // first index of the group before the current one
	for g := 0; g < len(cs); {
		end := g
		for end < len(cs) && cs[end].seq == cs[g].seq {
			end++
		}
		for i := g; i < end; i++ {
			ps[i] = participant(dir, cs[i].c, ModeExclusive, "")
			ps[i].Seq, ps[i].HasSeq = int64(cs[i].seq), true
			switch {
			case g == 0:
				ps[i].State = StateHolding
			default:
				ps[i].State = StateWaiting
				if prev >= 0 && cs[prev].seq > -1 {
					ps[i].Watches, ps[i].WatchKind = ps[prev].Node, WatchData
				}
			}
		}
		prev, g = g, end
	}
	return NumberPositions(ps)
}
