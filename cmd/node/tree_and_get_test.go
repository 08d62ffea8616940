package node_test

import (
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestTreeAndGet(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	c := cmdtest.Dial(t, srv.Addrs()[0])
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll)) // may exist already
	for _, p := range []string{base, base + "/a", base + "/a/deep", base + "/b"} {
		if _, err := c.Create(p, []byte("hello "+p), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Create(base+"/bin", []byte{0, 1, 2, 0xff}, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(base+"/b/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	out, err := cmdtest.Run(t, "-s", srv.ConnectString(), "tree", base)
	if err != nil {
		t.Fatal(err, out)
	}
	want := []string{"  a (1)", "    deep", "  b (1)", "    eph [E 0x", "  bin"}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("tree output lacks %q:\n%s", w, out)
		}
	}
	if strings.Index(out, "deep") > strings.Index(out, "  b (1)") {
		t.Errorf("tree not depth-first in name order:\n%s", out)
	}

	out, err = cmdtest.Run(t, "-s", srv.ConnectString(), "tree", base, "--depth", "1")
	if err != nil || strings.Contains(out, "deep") || !strings.Contains(out, "  a (1)") {
		t.Errorf("--depth 1: err=%v\n%s", err, out)
	}

	out, err = cmdtest.Run(t, "-s", srv.ConnectString(), "get", base+"/a", "--stat")
	if err != nil || !strings.HasPrefix(out, "hello "+base+"/a\n") || !strings.Contains(out, "dataVersion = 0") {
		t.Errorf("get --stat: err=%v\n%s", err, out)
	}
	out, err = cmdtest.Run(t, "-s", srv.ConnectString(), "get", base+"/bin")
	if err != nil || !strings.Contains(out, "00 01 02 ff") {
		t.Errorf("get of binary data is not a hex dump: err=%v\n%s", err, out)
	}

	_, err = cmdtest.Run(t, "-s", srv.ConnectString(), "get", base+"/missing")
	if err == nil || !strings.Contains(err.Error(), "node does not exist") || strings.Contains(err.Error(), "\n") {
		t.Errorf("get of a missing node: want a one-line 'does not exist' error, got %v", err)
	}
}
