package ui

import (
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
