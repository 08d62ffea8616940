package root_test

import (
	"path"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestCLIActingWording: what the acting commands say when they do not act
// is true and names what to do: a version conflict of delete says which
// versions (as set does), revoke of a lock directory names its holder,
// --interval without --watch is refused, and a read-only evict --session
// says what it would have deleted.
func TestCLIActingWording(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	admin, holder := cmdtest.Dial(t, s), cmdtest.Dial(t, s)
	admin.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll)) // may exist already
	base := zktest.Path(t)
	for _, p := range []string{base, base + "/n", base + "/locks", base + "/locks/deploy", base + "/locks/k"} {
		if _, err := admin.Create(p, []byte("v"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.Set(base+"/n", []byte("v2"), 0); err != nil { // now at version 1
		t.Fatal(err)
	}
	create := func(dir, prefix string) string {
		t.Helper()
		p, err := holder.Create(dir+"/"+prefix, []byte("h"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	curator := create(base+"/locks/deploy", "_c_5b0e61c1-0000-4000-8000-000000000001-lock-")
	kazoo := create(base+"/locks/k", "0123456789abcdef0123456789abcdef__lock__")
	sid := lockops.FormatSession(holder.SessionID())
	env := []string{"XDG_STATE_HOME=" + t.TempDir(), "ZKSCOPE_SERVER=", "ZKSCOPE_CONTEXT="}

	for _, tc := range []struct {
		args      []string
		code      int
		want, not []string
	}{
		{[]string{"delete", base + "/n", "--version", "0"}, 1,
			[]string{"changed meanwhile (version 1, expected 0)"}, []string{"zk: version conflict"}},
		{[]string{"revoke", base + "/locks/deploy"}, 2,
			[]string{"its holder is " + curator, "zkscope revoke " + curator}, []string{"not a lock node ("}},
		{[]string{"revoke", base + "/locks/k"}, 2,
			[]string{"its holder is " + kazoo, "zkscope evict " + kazoo}, []string{"not a lock node ("}},
		{[]string{"locks", base, "--interval", "5s"}, 2,
			[]string{"--watch"}, nil},
		{[]string{"--read-only", "evict", "--session", sid, "--under", base}, 2,
			[]string{"the lock nodes of session " + sid + " below " + base, "--read-only"}, []string{"force-delete " + base + ":"}},
	} {
		code, stdout, stderr := cmdtest.RunBinary(t, env, append([]string{"-s", s}, tc.args...)...)
		line := strings.TrimSuffix(stderr, "\n")
		t.Logf("zkscope %q: exit %d: %s", tc.args, code, line)
		ok := code == tc.code && !strings.Contains(line, "\n") && stdout == ""
		for _, w := range tc.want {
			ok = ok && strings.Contains(line, w)
		}
		for _, n := range tc.not {
			ok = ok && !strings.Contains(line, n)
		}
		if !ok {
			t.Errorf("zkscope %q: exit %d, stdout %q, stderr %q; want exit %d and one line with %q, without %q", tc.args, code, stdout, stderr, tc.code, tc.want, tc.not)
		}
	}
	if ok, st, err := admin.Exists(base + "/n"); err != nil || !ok || st.Version != 1 {
		t.Errorf("the refused delete changed %s (%v, %v)", base+"/n", ok, err)
	}
	for _, p := range []string{curator, kazoo} {
		if data, _, err := admin.Get(p); err != nil || string(data) != "h" {
			t.Errorf("%s: %q, %v: a refused command changed it", path.Base(p), data, err)
		}
	}
}
