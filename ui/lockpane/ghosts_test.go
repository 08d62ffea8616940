package lockpane

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
)

// TestNewestGhosts: the ghosts drawn are those a stable sort by the time
// they left, newest first, puts first, whether they left in order (the
// usual case: only the last ones are looked at) or not (the clock went
// back).
func TestNewestGhosts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 1000 {
		p := &Model{}
		var gone []time.Time
		for range r.IntN(12) {
			gone = append(gone, lockT0.Add(time.Duration(r.IntN(4))*time.Second))
		}
		if n%2 == 0 {
			slices.SortFunc(gone, func(a, b time.Time) int { return a.Compare(b) })
		}
		for i, at := range gone {
			p.leave(&lockops.Participant{}, "", i, at)
		}
		want := slices.Clone(p.ghosts)
		sort.SliceStable(want, func(i, j int) bool { return want[i].gone.After(want[j].gone) })
		want = want[:min(len(want), maxGhostRows)]
		if got := p.newestGhosts(); !slices.EqualFunc(got, want, func(a, b ghost) bool { return a.index == b.index }) {
			t.Fatalf("ghosts %v: got %v, want %v", p.ghosts, got, want)
		}
	}
}
