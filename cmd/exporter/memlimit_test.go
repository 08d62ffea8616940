package exporter

import "testing"

func TestSoftLimit(t *testing.T) {
	for _, c := range []struct {
		live int64
		gogc int
		want int64
	}{
		{0, 50, limitFloor},
		{4 << 20, 50, limitFloor},
		{40 << 20, 50, 60<<20 + limitHeadroom},
		{1 << 30, 100, 2<<30 + limitHeadroom}, // a big model: never below its heap's goal
	} {
		if got := softLimit(c.live, c.gogc); got != c.want {
			t.Errorf("softLimit(%d, %d) = %d, want %d", c.live, c.gogc, got, c.want)
		}
	}
}
