package tree

import "testing"

func TestFilterMatch(t *testing.T) {
	for _, c := range []struct {
		q, s  string
		names []string
		want  bool
		fuzzy bool
	}{
		{"lock", "locks", []string{"locks"}, true, false},
		{"LCK", "locks", []string{"locks"}, true, true},
		{"kcol", "locks", []string{"locks"}, false, true},
		{"svc1", "svc-10", []string{"svc-10"}, true, true},
		{"", "x", []string{"x"}, true, false},
		// A name containing the query makes the filter substring-only.
		{"svc1", "svc-10", []string{"svc-10", "svc1"}, false, false},
		{"ÉTÉ", "l'été", []string{"l'été"}, true, false},
	} {
		match, fuzzy := FilterMatch(c.q, c.names)
		if got := match(c.s); got != c.want || fuzzy != c.fuzzy {
			t.Errorf("FilterMatch(%q, %q)(%q) = %v (fuzzy %v), want %v (fuzzy %v)", c.q, c.names, c.s, got, fuzzy, c.want, c.fuzzy)
		}
	}
}
