package zkview

import (
	"slices"
	"strings"
	"testing"
)

// TestPreOrderLess agrees with comparing paths name by name.
func TestPreOrderLess(t *testing.T) {
	paths := []string{"/", "/a", "/a/x", "/a/x/y", "/a-b", "/a-b/z", "/a.c", "/a0", "/b", "/ab", "/a/x-1", "/a/x/0"}
	names := func(p string) []string {
		if p == "/" {
			return nil
		}
		return strings.Split(p[1:], "/")
	}
	for _, a := range paths {
		for _, b := range paths {
			want := slices.Compare(names(a), names(b)) < 0
			if got := preOrderLess(a, b); got != want {
				t.Errorf("preOrderLess(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}
