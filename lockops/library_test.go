package lockops

import "testing"

func TestParseFlags(t *testing.T) {
	for in, want := range map[string]*Library{"curator": Curator, "Kazoo": Kazoo, "go-zk": GoZK, "go-zookeeper": GoZK} {
		if l, err := ParseLibrary(in); err != nil || l != want {
			t.Errorf("ParseLibrary(%q) = %v, %v", in, l, err)
		}
	}
	for _, bad := range []string{"", "auto", "zookeeper"} {
		if _, err := ParseLibrary(bad); err == nil {
			t.Errorf("ParseLibrary(%q) accepted", bad)
		}
	}
	if m, err := ParseMode("WRITE"); err != nil || m != ModeWrite {
		t.Fatal(m, err)
	}
}
