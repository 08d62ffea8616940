package redislock

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// TestRedisEvictRefusesNonLock: on a real redis-server, `evict` of a key
// that `locks` does not count as a lock (a cache entry) is refused with
// exit 2 in one line naming --any-key, and kept; --any-key deletes it. A
// key `locks` does count (by its name, or by an expiring token) is evicted
// as before: `locks` and `evict` decide alike.
func TestRedisEvictRefusesNonLock(t *testing.T) {
	s, r := redisServerAndClient(t)
	auditLog, _ := audit.LogPath()
	ctx := context.Background()
	locktest.ZkscopeBinary(t) // built before the keys are set: a slow build must not outlive their TTLs
	r.Set(ctx, "cache:user:1", "alice", 0)
	r.Set(ctx, "cache:user:2", "bob", time.Hour)
	r.Set(ctx, "job:nightly", "0123456789abcdef0123456789abcdef", time.Hour) // redis-py's uuid1().hex
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
		if code != lockops.ExitRefused || strings.Contains(line, "\n") || !strings.Contains(line, "--any-key") {
			t.Errorf("evict %s: exit %d, stderr %q; want exit %d and one line naming --any-key", key, code, out, lockops.ExitRefused)
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
	if !audittest.Has(audittest.Read(t, auditLog), lockops.OpForceDelete, audit.Refused, "cache:user:2") {
		t.Error("the refusal is not in the audit log")
	}
}

// redisServerAndClient starts a redis-server with a client to it, the
// audit log in a temporary directory.
func redisServerAndClient(t *testing.T) (*redistest.Server, *goredis.Client) {
	audittest.ToTemp(t)
	return locktest.RedisServerAndClient(t)
}

// TestRedisEvictRefusesChangedToken: evict deletes a key only while it
// holds the token shown or given; a key whose token changed is refused
// (exit 2) and kept; revoke and --read-only are refused too.
func TestRedisEvictRefusesChangedToken(t *testing.T) {
	s, r := redisServerAndClient(t)
	auditLog, _ := audit.LogPath()
	ctx := context.Background()
	key := "lock:evict"
	r.Set(ctx, key, "tok-a", time.Minute)

	code, out := locktest.RunWithin(t, locktest.RedisCLI(t, s.URL(), "evict", key, "--token", "tok-b", "--yes"), 60*time.Second)
	if code != lockops.ExitRefused || !strings.Contains(out, `now holds the token "tok-a"`) {
		t.Fatalf("evict with another token: exit %d\n%s", code, out)
	}
	cmd := locktest.RedisCLI(t, s.URL(), "evict", key) // stdin is no terminal: nobody confirms
	if code, out := locktest.RunWithin(t, cmd, 60*time.Second); code != lockops.ExitRefused || !strings.Contains(out, `--yes --token "tok-a"`) {
		t.Fatalf("evict without a terminal: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"revoke", key}, {"--read-only", "evict", key, "--token", "tok-a", "--yes"}, {"--read-only", "lock", key, "--", "true"}} {
		if code, out := locktest.RunWithin(t, locktest.RedisCLI(t, s.URL(), args...), 60*time.Second); code != lockops.ExitRefused {
			t.Fatalf("%v: exit %d, want %d\n%s", args, code, lockops.ExitRefused, out)
		}
	}

	// Between the preview and the deletion, another client took the key.
	eps, _ := redisview.ParseServers(s.URL())
	c, err := redisview.Open(redisview.Config{Servers: eps})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := PreviewEvict(ctx, c, key)
	if err != nil || p.Token != "tok-a" {
		t.Fatalf("preview %+v, %v", p, err)
	}
	r.Set(ctx, key, "tok-new", time.Minute)
	if _, err := Evict(ctx, c, key, p.Token, EvictOptions{}); !lockops.IsRefusal(err) {
		t.Fatalf("evict of a changed token: %v, want a refusal", err)
	}
	if v, _ := r.Get(ctx, key).Result(); v != "tok-new" {
		t.Fatalf("the new holder's key was touched: %q", v)
	}

	code, out = locktest.RunWithin(t, locktest.RedisCLI(t, s.URL(), "evict", key, "--token", "tok-new", "--yes"), 60*time.Second)
	if n, _ := r.Exists(ctx, key).Result(); code != 0 || n != 0 {
		t.Fatalf("evict with the token held: exit %d, key left %d\n%s", code, n, out)
	}
	entries := audittest.Read(t, auditLog)
	if !audittest.Has(entries, lockops.OpForceDelete, audit.OK, key) || !audittest.Has(entries, lockops.OpForceDelete, audit.Refused, key) || !audittest.Has(entries, lockops.OpRevoke, audit.Refused, key) {
		t.Fatalf("audit log: %+v", entries)
	}
}
