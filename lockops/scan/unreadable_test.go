package scan

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestDoctorReportsUnreadableSubtrees: a subtree the session may not read
// is one `unreadable` problem (doctor exit 1, the JSON's top-level
// problems) and the scan goes on to the readable locks; a root that
// cannot be read at all is exit 2.
func TestDoctorReportsUnreadableSubtrees(t *testing.T) {
	cl := zktest.Shared(t)
	cs := cl.ConnectString()
	base := zktest.Path(t)
	conn, _, err := zk.Connect(cl.Addrs(), 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	if err := conn.AddAuth("digest", []byte("bob:pw")); err != nil {
		t.Fatal(err)
	}
	zktest.MakePath(t, conn, base+"/open")
	if _, err := conn.Create(base+"/open/_c_"+locktest.UUIDA+"-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Create(base+"/secret", nil, 0, zk.DigestACL(zk.PermAll, "bob", "pw")); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Create(base+"/secret/_c_"+locktest.UUIDB+"-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	cmd := locktest.ZkscopeCmd(t, t.TempDir(), cs, "doctor", base)
	var out strings.Builder
	cmd.Stdout = &out
	if code, stderr := locktest.RunWithin(t, cmd, 60*time.Second); code != 1 || !strings.Contains(out.String(), "unreadable\t"+base+"/secret\tnot readable") {
		t.Errorf("doctor: exit %d, stdout %q, stderr %q", code, out.String(), stderr)
	}

	cmd = locktest.ZkscopeCmd(t, t.TempDir(), cs, "locks", base, "--json", "--no-verify")
	out.Reset()
	cmd.Stdout = &out
	if code, stderr := locktest.RunWithin(t, cmd, 60*time.Second); code != 0 {
		t.Fatalf("locks --json: exit %d, %s", code, stderr)
	}
	var rep struct {
		Locks    []struct{ Path string }
		Problems []struct{ Kind, Node, Detail string }
	}
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Locks) != 1 || rep.Locks[0].Path != base+"/open" || len(rep.Problems) != 1 ||
		rep.Problems[0].Kind != "unreadable" || rep.Problems[0].Node != base+"/secret" {
		t.Errorf("locks --json: %s", out.String())
	}

	cmd = locktest.ZkscopeCmd(t, t.TempDir(), cs, "doctor", base+"/secret")
	if code, stderr := locktest.RunWithin(t, cmd, 60*time.Second); code != 2 {
		t.Errorf("doctor of an unreadable root: exit %d, stderr %q", code, stderr)
	}
}
