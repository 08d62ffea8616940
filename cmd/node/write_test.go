package node_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestWriteCommands: create, set, getacl, setacl and delete change what
// they say, print what scripts need, and are audited.
func TestWriteCommands(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	c := cmdtest.Dial(t, s)
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll))
	base := zktest.Path(t)

	mustRun := func(args ...string) string {
		t.Helper()
		out, err := cmdtest.Run(t, append([]string{"-s", s}, args...)...)
		if err != nil {
			t.Fatalf("zkscope %v: %v\n%s", args, err, out)
		}
		return out
	}
	if out := mustRun("create", base+"/a/b", "hello", "--parents"); out != base+"/a/b\n" {
		t.Errorf("create printed %q", out)
	}
	if out := mustRun("create", base+"/a/job-", "--mode", "sequential"); out != base+"/a/job-0000000001\n" {
		t.Errorf("sequential create printed %q", out)
	}
	mustRun("set", base+"/a/b", "world")
	if out := mustRun("get", base+"/a/b", "-o", "json"); !strings.Contains(out, `"data": "world"`) || !strings.Contains(out, `"version": 1`) {
		t.Errorf("get -o json:\n%s", out)
	}
	if out := mustRun("get", base+"/a/b", "-o", "yaml"); !strings.Contains(out, "data: world") || !strings.Contains(out, "version: 1") {
		t.Errorf("get -o yaml:\n%s", out)
	}
	if out := mustRun("tree", base, "-o", "json"); !strings.Contains(out, `"path": "`+base+`/a/job-0000000001"`) {
		t.Errorf("tree -o json:\n%s", out)
	}
	mustRun("setacl", base+"/a/b", "world:anyone:cdr")
	if out := mustRun("getacl", base+"/a/b"); out != "world:anyone:cdr\n" {
		t.Errorf("getacl printed %q", out)
	}
	if out := mustRun("delete", base, "--recursive", "--yes"); !strings.Contains(out, "4 nodes") {
		t.Errorf("delete --recursive printed %q", out)
	}
	if ok, _, _ := c.Exists(base); ok {
		t.Error("delete --recursive left the tree")
	}
	log, err := os.ReadFile(filepath.Join(state, "zkscope", "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{lockops.OpCreate, lockops.OpSet, lockops.OpSetACL, lockops.OpDelete} {
		if !strings.Contains(string(log), `"operation":"`+op+`"`) {
			t.Errorf("no %s in the audit log:\n%s", op, log)
		}
	}
}

// TestGetRawAndTerminalSafe: --raw writes the exact bytes; text for a
// terminal has its control characters escaped.
func TestGetRawAndTerminalSafe(t *testing.T) {
	srv := zktest.Shared(t)
	c := cmdtest.Dial(t, srv.ConnectString())
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll))
	p := zktest.Path(t)
	data := "a\x1b]0;pwned\x07b\u009b2J\n"
	if _, err := c.Create(p, []byte(data), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if out, err := cmdtest.Run(t, "-s", srv.ConnectString(), "get", p, "--raw"); err != nil || out != data {
		t.Errorf("--raw: %q, %v", out, err)
	}
	if got := printable.Text(data); got != `a\x1b]0;pwned\x07b\u009b2J`+"\n" {
		t.Errorf("printable.Text = %q", got)
	}
}

func TestMain(m *testing.M) { zktest.Main(m) }
