package node_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestTreePrintsAsWalked: tree, printing as the walk goes, prints exactly
// the depth-first listing in name order that one read per node gives, on
// a tree big enough for several bulk requests, with names whose plain
// string order differs from the tree's order ("a-b" < "a/x" as strings),
// subtrees the session may not read, and --depth.
func TestTreePrintsAsWalked(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	c := cmdtest.Dial(t, srv.Addrs()[0])
	open := zk.WorldACL(zk.PermAll)
	zktest.MakePath(t, c, base)
	mk := func(p string, acl []zk.ACL) {
		t.Helper()
		if _, err := c.Create(p, []byte("x"), 0, acl); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	for _, p := range []string{"/a", "/a/x", "/a/x/y", "/a-b", "/a-b/z", "/a.c", "/b",
		// The server lists these in neither name nor creation order.
		"/app", "/app/config", "/app/config/c1", "/app/locks", "/app/locks/orders", "/app/locks/orders/n1"} {
		mk(base+p, open)
	}
	mk(base+"/secret", zk.DigestACL(zk.PermAll, "bob", "pw"))
	mk(base+"/app/secret", zk.DigestACL(zk.PermAll, "bob", "pw"))
	for i := 0; i < 60; i++ {
		d := fmt.Sprintf("%s/b/d%02d", base, 59-i)
		zktest.FillChildren(t, c, d, 30, func(j int) string { return fmt.Sprintf("n%02d", j) }, func(int) []byte { return nil }, 0)
	}

	// The reference: one read per node, depth-first, children sorted.
	var want []string
	var ref func(p string, level, depth int)
	ref = func(p string, level, depth int) {
		kids, _, err := c.Children(p)
		if err != nil {
			t.Fatalf("list %s: %v", p, err)
		}
		sort.Strings(kids)
		for _, k := range kids {
			_, st, err := c.Get(p + "/" + k)
			if err != nil {
				want = append(want, strings.Repeat("  ", level)+k+" ! ")
				continue
			}
			line := strings.Repeat("  ", level) + k
			if st.NumChildren > 0 {
				line += fmt.Sprintf(" (%d)", st.NumChildren)
			}
			want = append(want, line)
			if st.NumChildren > 0 && (depth == 0 || level < depth) {
				ref(p+"/"+k, level+1, depth)
			}
		}
	}
	for _, depth := range []int{0, 2} {
		want = want[:0]
		ref(base, 1, depth)
		out, err := cmdtest.Run(t, "-s", srv.ConnectString(), "tree", base, "--depth", fmt.Sprint(depth))
		if err != nil {
			t.Fatal(err, out)
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(got) != len(want)+1 {
			t.Fatalf("--depth %d: %d lines, want %d:\n%s", depth, len(got), len(want)+1, out)
		}
		for i, w := range want {
			if g := got[i+1]; g != w && !(strings.HasSuffix(w, " ! ") && strings.HasPrefix(g, w)) {
				t.Fatalf("--depth %d, line %d: %q, want %q", depth, i+1, g, w)
			}
		}
	}
}
