package zkview

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// walkTree builds below root: a/ with 30 children each holding 2, a
// digest-protected subtree, and b/ with 1,200 leaves (more than one
// batch); it returns the paths an anonymous walk reaches.
func walkTree(t *testing.T, owner *Client, root string) map[string]bool {
	t.Helper()
	conn := owner.Conn()
	open := zk.WorldACL(zk.PermAll)
	want := map[string]bool{}
	mk := func(p string, acl []zk.ACL) {
		t.Helper()
		if _, err := conn.Create(p, []byte("data:"+p), 0, acl); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
		want[p] = true
	}
	zktest.MakePath(t, conn, root)
	mk(root+"/a", open)
	for i := 0; i < 30; i++ {
		d := fmt.Sprintf("%s/a/d%02d", root, i)
		mk(d, open)
		mk(d+"/x", open)
		mk(d+"/y", open)
	}
	mk(root+"/secret", zk.DigestACL(zk.PermAll, "bob", "pw"))
	if _, err := conn.Create(root+"/secret/inside", nil, 0, open); err != nil {
		t.Fatal(err)
	}
	zktest.FillChildren(t, conn, root+"/b", 1200, func(i int) string { return fmt.Sprintf("leaf%04d", i) },
		func(i int) []byte { return []byte("leaf") }, 0)
	want[root+"/b"] = true
	for i := 0; i < 1200; i++ {
		want[fmt.Sprintf("%s/b/leaf%04d", root, i)] = true
	}
	return want
}

// TestWalk walks the same tree with multi-read, with pipelined reads
// (a server without multi-read) and with small replies (split batches): every readable node is met once, data
// read where asked, and the protected subtree is reported, not fatal.
func TestWalk(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	owner := dial(t, Config{Servers: cl.Addrs(), Auth: []Auth{{Scheme: "digest", Secret: []byte("bob:pw")}}})
	want := walkTree(t, owner, root)
	for _, mode := range []string{"multiread", "pipelined", "split", "preorder"} {
		t.Run(mode, func(t *testing.T) {
			c := dial(t, Config{Servers: cl.Addrs()})
			switch mode {
			case "pipelined":
				c.multiRead().lim.opCode = 99
			case "split": // replies split, b's listing read alone
				c.multiRead().lim.maxReply = 4 << 10
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			seen := map[string]bool{}
			var failed []string
			read := func(dir string, names []string) bool { return strings.HasSuffix(dir, "/a") || len(names) == 2 }
			err := c.Walk(ctx, root, WalkOptions{Read: read, DirStat: true, PreOrder: mode == "preorder"}, func(d *WalkDir) bool {
				if mode == "preorder" && !sort.StringsAreSorted(d.Names) {
					t.Errorf("%s: names not sorted", d.Path)
				}
				if d.Err != nil {
					if !errors.Is(d.Err, zk.ErrNoAuth) {
						t.Errorf("%s: %v", d.Path, d.Err)
					}
					failed = append(failed, d.Path)
					return false
				}
				if (d.Nodes != nil) != read(d.Path, d.Names) {
					t.Errorf("%s: nodes %v, asked %v", d.Path, d.Nodes != nil, read(d.Path, d.Names))
				}
				if d.Nodes != nil && int(d.Stat.NumChildren) != len(d.Names) {
					t.Errorf("%s: stat says %d children, listed %d", d.Path, d.Stat.NumChildren, len(d.Names))
				}
				for i, n := range d.Names {
					p := Join(d.Path, n)
					if seen[p] {
						t.Errorf("%s met twice", p)
					}
					seen[p] = true
					if d.Nodes != nil && (d.Nodes[i].Path != p || string(d.Nodes[i].Data) != "data:"+p) {
						t.Errorf("node %d of %s: %+v", i, d.Path, d.Nodes[i])
					}
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if m := c.multiRead(); mode == "split" && (m.sess == nil || m.sess.Drained() == 0) {
				t.Error("no reply was split")
			}
			if fmt.Sprint(failed) != fmt.Sprint([]string{root + "/secret"}) {
				t.Errorf("unreadable: %v", failed)
			}
			var missing []string
			for p := range want {
				if !seen[p] {
					missing = append(missing, p)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 || len(seen) != len(want) {
				t.Errorf("walk met %d nodes, want %d; missing %v", len(seen), len(want), missing)
			}
		})
	}
}

// TestWalkRootErrors: a missing root fails the walk.
func TestWalkRootErrors(t *testing.T) {
	cl := zktest.Shared(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	err := c.Walk(context.Background(), zktest.Path(t)+"/missing", WalkOptions{}, func(*WalkDir) bool { return true })
	if !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("walk of a missing root: %v", err)
	}
}
