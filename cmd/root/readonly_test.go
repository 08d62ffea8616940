package root_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestReadOnlyRefusesEveryAction: under --read-only every command that acts
// (lock in each recipe, evict of a node or a session, revoke, create, set,
// delete, setacl) exits 2 with one line naming --read-only, before it asks
// anything, and changes nothing; each refusal is in the audit log.
func TestReadOnlyRefusesEveryAction(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	admin, holder := cmdtest.Dial(t, s), cmdtest.Dial(t, s)
	admin.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll)) // may exist already
	base := zktest.Path(t)
	for _, p := range []string{base, base + "/kids", base + "/kids/a", base + "/locks", base + "/locks/deploy"} {
		if _, err := admin.Create(p, []byte("v"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	node, err := holder.Create(base+"/locks/deploy/_c_5b0e61c1-0000-4000-8000-000000000001-lock-", []byte("h"),
		zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Create(base+"/maintenance", []byte("h"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	sid := lockops.FormatSession(holder.SessionID())
	before := snapshotTree(t, admin, base)

	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state, "ZKSCOPE_SERVER=", "ZKSCOPE_CONTEXT="}
	cases := [][]string{
		{"lock", base + "/locks/deploy", "--", "true"},
		{"lock", base + "/locks/new", "--recipe", "kazoo", "--no-wait"},
		{"lock", base + "/maintenance", "--recipe", "ephemeral", "--", "true"},
		{"evict", node},
		{"evict", node, "--yes", "--expect-session", sid},
		{"evict", base + "/maintenance", "--force-leader"},
		{"evict", "--session", sid, "--under", base},
		{"revoke", node},
		{"create", base + "/new"},
		{"set", base + "/kids/a", "v2"},
		{"delete", base + "/kids/a"},
		{"delete", base + "/kids", "--recursive", "--yes"},
		{"setacl", base + "/kids", "world:anyone:r"},
	}
	for _, args := range cases {
		code, stdout, stderr := cmdtest.RunBinary(t, env, append([]string{"-s", s, "--read-only"}, args...)...)
		line := strings.TrimSuffix(stderr, "\n")
		if code != lockops.ExitRefused || strings.Contains(line, "\n") || !strings.Contains(line, "--read-only") || stdout != "" {
			t.Errorf("zkscope --read-only %q: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout and one line naming --read-only",
				args, code, stdout, stderr)
		}
	}
	if after := snapshotTree(t, admin, base); after != before {
		t.Errorf("--read-only changed the tree:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	audit, err := os.ReadFile(filepath.Join(state, "zkscope", "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(audit), `"result":"refused"`); n != len(cases) {
		t.Errorf("audit log: %d refusals for %d commands:\n%s", n, len(cases), audit)
	}
}

// snapshotTree is every node below p with its version, owner and ACL
// version, one per line, in a stable order.
func snapshotTree(t *testing.T, c *zk.Conn, p string) string {
	t.Helper()
	_, st, err := c.Get(p)
	if err != nil {
		t.Fatal(err)
	}
	out := fmt.Sprintf("%s v%d a%d o%x\n", p, st.Version, st.Aversion, st.EphemeralOwner)
	kids, _, err := c.Children(p)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(kids)
	for _, k := range kids {
		out += snapshotTree(t, c, p+"/"+k)
	}
	return out
}
