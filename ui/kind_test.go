package ui

import (
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
)

func TestSequentialSuffix(t *testing.T) {
	for name, want := range map[string]bool{
		"lock-0000000007":                true,
		"0000000001":                     true,
		"_c_4f2a-lock-0000000012":        true,
		"x-72057594037927936-0000000003": true,
		"ctr-check-1795420145008606702":  false, // a long number, no counter
		"node-0000001":                   false,
		"svc-01":                         false,
	} {
		if got := kindOf(name, zk.Stat{}).sequential; got != want {
			t.Errorf("%s: sequential %v, want %v", name, got, want)
		}
	}
}

// TestFilterSubstringFirst: a query some names contain keeps only those;
// fuzzy matching is the fallback when none does, and the title says so.
func TestFilterSubstringFirst(t *testing.T) {
	m := cdLocal(t, fixture(t, 100, 30, "dark"), "/app/services/svc-05")
	m = typeKeys(t, pressKeys(t, m, "/"), "-1")
	if m.filter.shown != 10 || m.filter.fuzzy { // svc-10 … svc-19, not svc-01/21/31
		t.Fatalf("-1 kept %d (fuzzy %v), want the 10 names containing it", m.filter.shown, m.filter.fuzzy)
	}
	if strings.Contains(screen(m), "fuzzy") {
		t.Fatal("title says fuzzy for a substring match")
	}
	m = typeKeys(t, pressKeys(t, m, "backspace", "backspace"), "s1")
	if !m.filter.fuzzy || m.filter.shown == 0 || !strings.Contains(screen(m), "fuzzy") {
		t.Fatalf("s1: fuzzy %v, kept %d; title:\n%s", m.filter.fuzzy, m.filter.shown, strings.SplitN(screen(m), "\n", 4)[2])
	}
}
