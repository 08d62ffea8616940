package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/redisview/redistest"
)

// The tests call runRedisLocks and runRedisDoctor in-process: the test
// binary keeps its garbage collector.
func init() { redisOneShot = false }

// TestRedisTLS: a rediss:// server takes --tls-ca as ZooKeeper does;
// without it the server's certificate is refused, and TLS settings for a
// plain redis:// server are refused rather than ignored.
func TestRedisTLS(t *testing.T) {
	s, ca := redistest.StartTLS(t)
	saved := conn
	t.Cleanup(func() { conn = saved })
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("ZKSCOPE_SERVER", "")
	t.Setenv("ZKSCOPE_CONTEXT", "")
	t.Setenv("ZKSCOPE_AUTH", "")
	cmd := &cobra.Command{}
	cmd.SetContext(context.Background())
	var out bytes.Buffer
	cmd.SetOut(&out)

	conn.Server = s.URL()
	if _, err := runRedisLocks(cmd, []string{"lock:*"}, true); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("without --tls-ca: %v, want a certificate error", err)
	}
	conn.TLSCA = ca
	if _, err := runRedisLocks(cmd, []string{"lock:*"}, true); err != nil {
		t.Fatalf("with --tls-ca: %v", err)
	}
	code, _, stderr := runBinary(t, nil, "-s", s.URL(), "--tls-ca", ca, "lock", "lock:tls", "--", "true")
	if code != 0 || !strings.Contains(stderr, "released lock:tls") {
		t.Fatalf("lock over TLS: exit %d\n%s", code, stderr)
	}
	conn.Server = "redis://" + s.Addr
	if _, err := runRedisLocks(cmd, nil, true); err == nil || !strings.Contains(err.Error(), "rediss://"+s.Addr) {
		t.Fatalf("--tls-ca with redis://: %v, want a refusal naming rediss://", err)
	}
}
