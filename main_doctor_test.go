package main

import (
	"strings"
	"testing"

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

	code, out, stderr := runBinary(t, env, "-s", srv.ConnectString(), "doctor", base, "--hung-after", "2s")
	if code != 1 || !strings.Contains(out, "session-hung") {
		t.Fatalf("exit %d, want 1 with session-hung; stdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	code, out, _ = runBinary(t, env, "-s", srv.ConnectString(), "doctor", base)
	if code != 0 || strings.Contains(out, "session-hung") {
		t.Fatalf("without --hung-after: exit %d; stdout:\n%s", code, out)
	}
	if code, _, stderr := runBinary(t, env, "-s", srv.ConnectString(), "doctor", base, "--hung-after", "2s", "--no-verify"); code != 2 || !strings.Contains(stderr, "--no-verify") {
		t.Fatalf("--hung-after with --no-verify: exit %d, stderr %q", code, stderr)
	}
}
