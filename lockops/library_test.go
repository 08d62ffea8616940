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

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		what string
		want string
	}{
		{1, "lock", "1 lock"}, {3, "lock", "3 locks"}, {2, "watch", "2 watches"},
		{0, "child", "0 children"}, {1, "child", "1 child"}, {5, "session", "5 sessions"},
		{2, "process", "2 processes"}, {7, "lock node", "7 lock nodes"},
	} {
		if got := Plural(c.n, c.what); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.what, got, c.want)
		}
	}
}
