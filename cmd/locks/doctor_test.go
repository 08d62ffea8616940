package locks_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestDoctorHungAfter: a real kazoo holder whose client does nothing but
// keep its session alive (pings only) between doctor's two samples is
// reported as session-hung; without --hung-after it is not.
func TestDoctorHungAfter(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	kz := zktest.StartKazoo(t, srv.ConnectString())
	kz.Acquire(t, "idle", "lock", base+"/job")
	kz.Await(t, "idle", "acquired")
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}

	code, out, stderr := cmdtest.RunBinary(t, env, "-s", srv.ConnectString(), "doctor", base, "--hung-after", "2s")
	if code != 1 || !strings.Contains(out, "session-hung") {
		t.Fatalf("exit %d, want 1 with session-hung; stdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	code, out, _ = cmdtest.RunBinary(t, env, "-s", srv.ConnectString(), "doctor", base)
	if code != 0 || strings.Contains(out, "session-hung") {
		t.Fatalf("without --hung-after: exit %d; stdout:\n%s", code, out)
	}
	if code, _, stderr := cmdtest.RunBinary(t, env, "-s", srv.ConnectString(), "doctor", base, "--hung-after", "2s", "--no-verify"); code != 2 || !strings.Contains(stderr, "--no-verify") {
		t.Fatalf("--hung-after with --no-verify: exit %d, stderr %q", code, stderr)
	}
}

// TestDoctorOwnerDisconnectedPerSession: a session that owns two kazoo
// lock nodes in two directories and one other ephemeral node, whose client
// dropped its connection without closing the session, is reported by
// doctor once, by its session, naming all three nodes (lines and --json);
// `locks --json` still reports the problem on each lock node; a real
// kazoo holder that is connected is not reported.
func TestDoctorOwnerDisconnectedPerSession(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	conn := cmdtest.Dial(t, srv.Addrs()[0])
	for _, d := range []string{"/locks/a", "/locks/b", "/svc"} {
		zktest.MakePath(t, conn, base+d)
	}
	kz := zktest.StartKazoo(t, srv.ConnectString())
	kz.Acquire(t, "live", "lock", base+"/locks/c")
	kz.Await(t, "live", "acquired")
	raw, err := zktest.DialSession(srv.Addrs()[0], 0, nil, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	nodes := []string{base + "/locks/a/0f1e2d3c4b5a69788796a5b4c3d2e1f0__lock__0000000000",
		base + "/locks/b/0f1e2d3c4b5a69788796a5b4c3d2e1f0__lock__0000000000", base + "/svc/instance-1"}
	for _, n := range nodes {
		if err := raw.Create(n, []byte("gone"), 1); err != nil {
			t.Fatal(n, err)
		}
	}
	raw.Abandon() // no close: the session lives on for its timeout
	id := lockops.FormatSession(raw.ID)
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}

	var out string
	deadline := time.Now().Add(20 * time.Second)
	for {
		var code int
		code, out, _ = cmdtest.RunBinary(t, env, "-s", srv.ConnectString(), "doctor", base)
		if code == 1 && strings.Contains(out, "owner-disconnected\t"+id) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // until the server has closed the dropped connection, with a deadline
	}
	t.Logf("doctor:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "owner-disconnected\t"+id+"\t") || !strings.Contains(lines[0], "2 lock nodes and 1 other ephemeral node") {
		t.Fatalf("doctor: want one owner-disconnected line for %s:\n%s", id, out)
	}
	for _, n := range nodes {
		if !strings.Contains(lines[0], n) {
			t.Errorf("the line does not name %s: %s", n, lines[0])
		}
	}

	code, js, _ := cmdtest.RunBinary(t, env, "-s", srv.ConnectString(), "doctor", base, "--json")
	var doc struct {
		Schema, Locks int
		Problems      []struct {
			Kind, Node, Severity string
			Session, Lock        *string
			Nodes                []string
		}
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || code != 1 {
		t.Fatalf("doctor --json: exit %d, %v\n%s", code, err, js)
	}
	if p := doc.Problems; doc.Schema != 1 || doc.Locks != 3 || len(p) != 1 || p[0].Kind != "owner-disconnected" || p[0].Session == nil || *p[0].Session != id ||
		p[0].Lock != nil || !slices.Equal(p[0].Nodes, nodes) || p[0].Node != nodes[0] {
		t.Errorf("doctor --json:\n%s", js)
	}

	js, err = cmdtest.Run(t, "-s", srv.ConnectString(), "locks", base, "--json")
	if err != nil {
		t.Fatal(err, js)
	}
	for _, n := range nodes[:2] {
		if !strings.Contains(js, `{"kind":"owner-disconnected","node":"`+n+`"`) {
			t.Errorf("locks --json lost the per-node problem of %s:\n%s", n, js)
		}
	}
}
