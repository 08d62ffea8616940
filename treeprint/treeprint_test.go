package treeprint_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/treeprint"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// TestPrintAndRead: Print prints the tree depth-first in name order as the
// walk reads it, down to Depth; Read keeps the same listings.
func TestPrintAndRead(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := zkview.Connect(ctx, zkview.Config{Servers: srv.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	zktest.MakePath(t, c.Conn(), base)
	for _, p := range []string{"/b", "/a", "/a/y", "/a/x", "/a/x/deep"} {
		if _, err := c.Conn().Create(base+p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	top, err := c.Get(base)
	if err != nil {
		t.Fatal(err)
	}
	same := func(s string) string { return s }
	for _, tc := range []struct {
		depth int
		want  string
	}{
		{0, "top (2)\n  a (2)\n    x (1)\n      deep\n    y\n  b\n"},
		{2, "top (2)\n  a (2)\n    x (1)\n    y\n  b\n"},
	} {
		var out bytes.Buffer
		if err := treeprint.Print(ctx, c, &out, top, "top", treeprint.Format{Depth: tc.depth, Safe: same}, nil); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("depth %d:\n%s\nwant:\n%s", tc.depth, out.String(), tc.want)
		}
	}
	tree, err := treeprint.Read(ctx, c, top, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range tree.Kids[base+"/a"] {
		names = append(names, n.Name())
	}
	if strings.Join(names, ",") != "x,y" || len(tree.Kids[base+"/a/x"]) != 1 || len(tree.Errs) != 0 {
		t.Errorf("Read: %v", tree)
	}
}
