package common

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
		"":                               false,
		"é0000000004":                    true,
		"a00000000042":                   false,
		"000000000x":                     false,
	} {
		if got := KindOf(name, zk.Stat{}).Sequential; got != want {
			t.Errorf("%s: sequential %v, want %v", name, got, want)
		}
	}
}

func TestKindOf(t *testing.T) {
	if k := KindOf("x", zk.Stat{EphemeralOwner: -1 << 63}); !k.Container {
		t.Fatalf("container not detected")
	}
	if k := KindOf("x", zk.Stat{EphemeralOwner: int64(-1<<56 | 5000)}); !k.TTL || k.TTLMillis != 5000 {
		t.Fatalf("ttl: %+v", k)
	}
	if k := KindOf("lock-0000000007", zk.Stat{EphemeralOwner: 0x100}); !k.Ephemeral || !k.Sequential {
		t.Fatalf("ephemeral sequential: %+v", k)
	}
}
