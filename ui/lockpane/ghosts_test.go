package lockpane

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// TestNewestGhosts: the ghosts drawn are those a stable sort by the time
// they left, newest first, puts first.
func TestNewestGhosts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		p := &Model{}
		for i := range r.IntN(12) {
			p.ghosts = append(p.ghosts, ghost{index: i, gone: lockT0.Add(time.Duration(r.IntN(4)) * time.Second)})
		}
		want := slices.Clone(p.ghosts)
		sort.SliceStable(want, func(i, j int) bool { return want[i].gone.After(want[j].gone) })
		want = want[:min(len(want), maxGhostRows)]
		if got := p.newestGhosts(); !slices.EqualFunc(got, want, func(a, b ghost) bool { return a.index == b.index }) {
			t.Fatalf("ghosts %v: got %v, want %v", p.ghosts, got, want)
		}
	}
}
