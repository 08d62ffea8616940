package exporter_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	rsgoredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredis "github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/redisview"
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

// TestRedlockMasters: a real redsync mutex on three masters: one holder,
// three masters holding; one master stopped: still held, by two, the
// failed reads counted and the cluster still served.
func TestRedlockMasters(t *testing.T) {
	servers := redistest.StartN(t, 3)
	var pools []redsyncredis.Pool
	var urls []string
	for _, s := range servers {
		c := goredis.NewClient(&goredis.Options{Addr: s.Addr})
		t.Cleanup(func() { c.Close() })
		pools = append(pools, rsgoredis.NewPool(c))
		urls = append(urls, s.URL())
	}
	m := redsync.New(pools...).NewMutex("lock:billing", redsync.WithExpiry(time.Minute))
	if err := m.Lock(); err != nil {
		t.Fatal(err)
	}
	eps, err := redisview.ParseServers(strings.Join(urls, ","))
	if err != nil {
		t.Fatal(err)
	}
	client, err := redisview.Open(redisview.Config{Servers: eps, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	c := exporter.NewCluster("redlock", exporter.ModePolling, []string{"lock:*"})
	r := serveClusters(t, []*exporter.Cluster{c}, []exporter.Source{exporter.Redis{Client: client, Interval: exporter.MinPoll}}, exporter.Options{})
	lock := map[string]string{"cluster": "redlock", "path": "lock:billing", "recipe": "redlock"}
	masters := func(want float64) func() bool {
		return func() bool {
			fams := scrape(t, r.url)
			h, _ := value(fams, "zkscope_lock_holders", lock)
			n, _ := value(fams, "zkscope_redlock_masters_holding", lock)
			ttl, ok := value(fams, "zkscope_redis_lock_ttl_seconds", lock)
			return h == 1 && n == want && ok && ttl > 0 && ttl <= 60
		}
	}
	waitFor(t, "the Redlock held on 3 masters", 30*time.Second, masters(3))
	servers[2].Stop()
	waitFor(t, "the Redlock held on 2 masters, a read error counted", 30*time.Second, func() bool {
		fams := scrape(t, r.url)
		e, _ := value(fams, "zkscope_cluster_read_errors_total", map[string]string{"cluster": "redlock"})
		up, _ := value(fams, "zkscope_cluster_up", map[string]string{"cluster": "redlock"})
		return masters(2)() && e > 0 && up == 1
	})
}
