package locks_test

import (
	"strings"
	"testing"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// TestRedisTLS: a rediss:// server takes --tls-ca as ZooKeeper does;
// without it the server's certificate is refused, and TLS settings for a
// plain redis:// server are refused rather than ignored.
func TestRedisTLS(t *testing.T) {
	s, ca := redistest.StartTLS(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("ZKSCOPE_SERVER", "")
	t.Setenv("ZKSCOPE_CONTEXT", "")
	t.Setenv("ZKSCOPE_AUTH", "")

	if _, err := cmdtest.Run(t, "-s", s.URL(), "locks", "lock:*", "--json"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("without --tls-ca: %v, want a certificate error", err)
	}
	if out, err := cmdtest.Run(t, "-s", s.URL(), "--tls-ca", ca, "locks", "lock:*", "--json"); err != nil {
		t.Fatalf("with --tls-ca: %v\n%s", err, out)
	}
	code, _, stderr := cmdtest.RunBinary(t, nil, "-s", s.URL(), "--tls-ca", ca, "lock", "lock:tls", "--", "true")
	if code != 0 || !strings.Contains(stderr, "released lock:tls") {
		t.Fatalf("lock over TLS: exit %d\n%s", code, stderr)
	}
	if _, err := cmdtest.Run(t, "-s", "redis://"+s.Addr, "--tls-ca", ca, "locks", "--json"); err == nil || !strings.Contains(err.Error(), "rediss://"+s.Addr) {
		t.Fatalf("--tls-ca with redis://: %v, want a refusal naming rediss://", err)
	}
}
