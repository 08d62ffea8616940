package lockops

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
)

// TestRedisEvictRefusesNonLock: on a real redis-server, `evict` of a key
// that `locks` does not count as a lock (a cache entry) is refused with
// exit 2 in one line naming --any-key, and kept; --any-key deletes it. A
// key `locks` does count (by its name, or by an expiring token) is evicted
// as before: `locks` and `evict` decide alike.
func TestRedisEvictRefusesNonLock(t *testing.T) {
	s, r := redisServerAndClient(t)
	auditLog, _ := AuditLogPath()
	ctx := context.Background()
	r.Set(ctx, "cache:user:1", "alice", 0)
	r.Set(ctx, "cache:user:2", "bob", time.Minute)
	r.Set(ctx, "job:nightly", "0123456789abcdef0123456789abcdef", time.Minute) // redis-py's uuid1().hex
	r.Set(ctx, "lock:deploy", "tok-a", 0)

	cmd := locktest.RedisCLI(t, s.URL(), "locks", "*", "--json")
	doc, err := cmd.Output()
	if err != nil {
		t.Fatalf("locks --json: %v", err)
	}
	var report struct{ Locks []struct{ Path string } }
	if err := json.Unmarshal(doc, &report); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	var paths []string
	for _, l := range report.Locks {
		paths = append(paths, l.Path)
	}
	if !slices.Equal(paths, []string{"job:nightly", "lock:deploy"}) {
		t.Errorf("locks lists %v, want the two locks only", paths)
	}

	for _, key := range []string{"cache:user:1", "cache:user:2"} {
		val, _ := r.Get(ctx, key).Result()
		code, out := locktest.RunWithin(t, locktest.RedisCLI(t, s.URL(), "evict", key, "--token", val, "--yes"), 60*time.Second)
		line := strings.TrimSpace(out)
		if code != ExitRefused || strings.Contains(line, "\n") || !strings.Contains(line, "--any-key") {
			t.Errorf("evict %s: exit %d, stderr %q; want exit %d and one line naming --any-key", key, code, out, ExitRefused)
		}
		if n, _ := r.Exists(ctx, key).Result(); n != 1 {
			t.Errorf("a refused evict deleted %s", key)
		}
	}
	if code, out := locktest.RunWithin(t, locktest.RedisCLI(t, s.URL(), "evict", "cache:user:1", "--token", "alice", "--yes", "--any-key"), 60*time.Second); code != 0 {
		t.Errorf("evict --any-key: exit %d\n%s", code, out)
	}
	for _, key := range []string{"job:nightly", "lock:deploy"} {
		val, _ := r.Get(ctx, key).Result()
		if code, out := locktest.RunWithin(t, locktest.RedisCLI(t, s.URL(), "evict", key, "--token", val, "--yes"), 60*time.Second); code != 0 {
			t.Errorf("evict of the lock %s: exit %d\n%s", key, code, out)
		}
	}
	if n, _ := r.Exists(ctx, "cache:user:1", "job:nightly", "lock:deploy").Result(); n != 0 {
		t.Errorf("%d of the evicted keys are left", n)
	}
	if !hasAudit(readAudit(t, auditLog), OpForceDelete, AuditRefused, "cache:user:2") {
		t.Error("the refusal is not in the audit log")
	}
}
