package lockops

import (
	"context"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// redisServerAndClient starts a redis-server with a client to it, the
// audit log in a temporary directory.
func redisServerAndClient(t *testing.T) (*redistest.Server, *goredis.Client) {
	s := redistest.Start(t)
	auditToTemp(t)
	r := goredis.NewClient(&goredis.Options{Addr: s.Addr})
	t.Cleanup(func() { r.Close() })
	return s, r
}

// TestRedisEvictRefusesChangedToken: evict deletes a key only while it
// holds the token shown or given; a key whose token changed is refused
// (exit 2) and kept; revoke and --read-only are refused too.
func TestRedisEvictRefusesChangedToken(t *testing.T) {
	s, r := redisServerAndClient(t)
	auditLog, _ := AuditLogPath()
	ctx := context.Background()
	key := "lock:evict"
	r.Set(ctx, key, "tok-a", time.Minute)

	code, out := locktest.RunWithin(t, locktest.RedisCLI(t, s.URL(), "evict", key, "--token", "tok-b", "--yes"), 60*time.Second)
	if code != ExitRefused || !strings.Contains(out, `now holds the token "tok-a"`) {
		t.Fatalf("evict with another token: exit %d\n%s", code, out)
	}
	cmd := locktest.RedisCLI(t, s.URL(), "evict", key) // stdin is no terminal: nobody confirms
	if code, out := locktest.RunWithin(t, cmd, 60*time.Second); code != ExitRefused || !strings.Contains(out, `--yes --token "tok-a"`) {
		t.Fatalf("evict without a terminal: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"revoke", key}, {"--read-only", "evict", key, "--token", "tok-a", "--yes"}, {"--read-only", "lock", key, "--", "true"}} {
		if code, out := locktest.RunWithin(t, locktest.RedisCLI(t, s.URL(), args...), 60*time.Second); code != ExitRefused {
			t.Fatalf("%v: exit %d, want %d\n%s", args, code, ExitRefused, out)
		}
	}

	// Between the preview and the deletion, another client took the key.
	eps, _ := redisview.ParseServers(s.URL())
	c, err := redisview.Open(redisview.Config{Servers: eps})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := PreviewRedisEvict(ctx, c, key)
	if err != nil || p.Token != "tok-a" {
		t.Fatalf("preview %+v, %v", p, err)
	}
	r.Set(ctx, key, "tok-new", time.Minute)
	if _, err := EvictRedis(ctx, c, key, p.Token, RedisEvictOptions{}); !IsRefusal(err) {
		t.Fatalf("evict of a changed token: %v, want a refusal", err)
	}
	if v, _ := r.Get(ctx, key).Result(); v != "tok-new" {
		t.Fatalf("the new holder's key was touched: %q", v)
	}

	code, out = locktest.RunWithin(t, locktest.RedisCLI(t, s.URL(), "evict", key, "--token", "tok-new", "--yes"), 60*time.Second)
	if n, _ := r.Exists(ctx, key).Result(); code != 0 || n != 0 {
		t.Fatalf("evict with the token held: exit %d, key left %d\n%s", code, n, out)
	}
	entries := readAudit(t, auditLog)
	if !hasAudit(entries, OpForceDelete, AuditOK, key) || !hasAudit(entries, OpForceDelete, AuditRefused, key) || !hasAudit(entries, OpRevoke, AuditRefused, key) {
		t.Fatalf("audit log: %+v", entries)
	}
}
