package lockops

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPermute: permute puts a slice in the order keyOrder gives, as a copy
// in that order would, for every kind of cycle.
func TestPermute(t *testing.T) {
	for n := range 40 {
		order := make([]int32, n)
		for i := range order {
			order[i] = int32(i)
		}
		rand.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		s := make([]int, n)
		for i := range s {
			s[i] = i * 10
		}
		want := make([]int, n)
		for j, i := range order {
			want[j] = s[i]
		}
		permute(s, slices.Clone(order))
		if !slices.Equal(s, want) {
			t.Fatalf("n=%d order %v: got %v, want %v", n, order, s, want)
		}
	}
}
