package exporter_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// TestRedisPolled: a real redis-py lock and a lock key that never
// expires, read every poll: holders, the holder's TTL, the no-expiry
// problem; the lock released disappears; the server stopped, the
// cluster goes down and its locks are not served.
func TestRedisPolled(t *testing.T) {
	srv, client, rdb := redistest.Clients(t)
	_, release := redistest.HoldPyLock(t, srv.Addr, "orders:lock", 60)
	if err := rdb.Set(context.Background(), "jobs:lock", "owner-7", 0).Err(); err != nil {
		t.Fatal(err)
	}
	c := exporter.NewCluster("cache", exporter.ModePolling, []string{"*"})
	r := serveClusters(t, []*exporter.Cluster{c}, []exporter.Source{exporter.Redis{Client: client, Interval: exporter.MinPoll}}, exporter.Options{})
	py := map[string]string{"cluster": "cache", "path": "orders:lock", "recipe": "redis.setnx"}
	forever := map[string]string{"cluster": "cache", "path": "jobs:lock", "recipe": "redis.setnx"}
	waitFor(t, "both locks served", 30*time.Second, func() bool {
		fams := scrape(t, r.url)
		h1, _ := value(fams, "zkscope_lock_holders", py)
		h2, _ := value(fams, "zkscope_lock_holders", forever)
		return h1 == 1 && h2 == 1
	})
	fams := scrape(t, r.url)
	if ttl, ok := value(fams, "zkscope_redis_lock_ttl_seconds", py); !ok || ttl <= 0 || ttl > 60 {
		t.Errorf("redis-py lock's TTL %v %v", ttl, ok)
	}
	if _, ok := value(fams, "zkscope_redis_lock_ttl_seconds", forever); ok {
		t.Error("a TTL served for a key that never expires")
	}
	if n, ok := value(fams, "zkscope_lock_problems", map[string]string{"path": "jobs:lock", "kind": "redis-no-expiry"}); !ok || n != 1 {
		t.Errorf("redis-no-expiry %v %v:\n%s", n, ok, lockSeries(fams))
	}
	if v, _ := value(fams, "zkscope_cluster_following", map[string]string{"cluster": "cache", "mode": "polling", "live": "false"}); v != 1 {
		t.Errorf("following polling: %v", v)
	}

	release()
	waitFor(t, "the released lock gone", 30*time.Second, func() bool {
		_, ok := value(scrape(t, r.url), "zkscope_lock_holders", py)
		return !ok
	})

	srv.Stop()
	waitFor(t, "the cluster down", 30*time.Second, func() bool {
		fams := scrape(t, r.url)
		up, _ := value(fams, "zkscope_cluster_up", map[string]string{"cluster": "cache"})
		e, _ := value(fams, "zkscope_cluster_read_errors_total", map[string]string{"cluster": "cache"})
		_, served := value(fams, "zkscope_lock_holders", forever)
		return up == 0 && e > 0 && !served
	})
}
