package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/redisview/redistest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// The keyspace of BenchmarkRedisLocksVsPython: 100,000 keys, of which
// 10,000 are SET NX locks (lock:job:N, a redis-py-like token, 10 min
// TTL), 10,000 more carry the lock: prefix but are no locks (lock:meta:N
// hashes of plain fields, lock:log:N lists), and 80,000 live under other
// patterns (session:N strings, user:N hashes, cache:N strings).
const (
	benchLocks     = 10_000
	benchLockMeta  = 5_000
	benchLockLogs  = 5_000
	benchSessions  = 40_000
	benchUsers     = 30_000
	benchCacheKeys = 10_000
)

// fillRedisBench writes the keyspace through pipelines of 1,000.
func fillRedisBench(b *testing.B, addr string) {
	b.Helper()
	r := goredis.NewClient(&goredis.Options{Addr: addr})
	defer r.Close()
	ctx := context.Background()
	groups := []struct {
		n   int
		put func(p goredis.Pipeliner, i int)
	}{
		{benchLocks, func(p goredis.Pipeliner, i int) {
			p.Set(ctx, fmt.Sprintf("lock:job:%d", i), fmt.Sprintf("%032x", i*7919), 10*time.Minute)
		}},
		{benchLockMeta, func(p goredis.Pipeliner, i int) {
			p.HSet(ctx, fmt.Sprintf("lock:meta:%d", i), "owner", "svc", "since", "2026-11-23")
		}},
		{benchLockLogs, func(p goredis.Pipeliner, i int) { p.RPush(ctx, fmt.Sprintf("lock:log:%d", i), "taken", "released") }},
		{benchSessions, func(p goredis.Pipeliner, i int) {
			p.Set(ctx, fmt.Sprintf("session:%d", i), strings.Repeat("s", 64), time.Hour)
		}},
		{benchUsers, func(p goredis.Pipeliner, i int) { p.HSet(ctx, fmt.Sprintf("user:%d", i), "name", "u", "plan", "pro") }},
		{benchCacheKeys, func(p goredis.Pipeliner, i int) { p.Set(ctx, fmt.Sprintf("cache:%d", i), "v", 0) }},
	}
	for _, g := range groups {
		for start := 0; start < g.n; start += 1000 {
			if _, err := r.Pipelined(ctx, func(p goredis.Pipeliner) error {
				for i := start; i < min(start+1000, g.n); i++ {
					g.put(p, i)
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if n, _ := r.DBSize(ctx).Result(); n != 100_000 {
		b.Fatalf("%d keys, want 100,000", n)
	}
}

// pythonLocks is what an operator's script does: SCAN the pattern, GET
// and PTTL each key (keys that are no strings fail GET and are skipped),
// print the locks as JSON.
const pythonLocks = `import json, sys, redis
host, port = sys.argv[1].split(':')
r = redis.Redis(host=host, port=int(port))
out = []
for k in r.scan_iter(match='lock:*', count=1000):
    try:
        v = r.get(k)
    except redis.ResponseError:
        continue
    if v is None:
        continue
    out.append({'key': k.decode(), 'token': v.decode(), 'ttl_ms': r.pttl(k)})
json.dump({'locks': out}, sys.stdout)
`

// BenchmarkRedisLocksVsPython runs, as whole processes in the same run,
// `zkscope locks 'lock:*' --json` and a redis-py script doing SCAN + GET +
// PTTL over the same 100,000 keys (10,000 locks), and reports both times
// and their ratio.
//
//	go test -run '^$' -bench RedisLocksVsPython -benchtime 5x .
func BenchmarkRedisLocksVsPython(b *testing.B) {
	if err := exec.Command("/usr/bin/python3", "-c", "import redis").Run(); err != nil {
		redistest.Unavailable(b, "python3-redis not installed")
	}
	s := redistest.Start(b)
	fillRedisBench(b, s.Addr)
	bin := zktest.Zkscope(b)
	script := b.TempDir() + "/locks.py"
	if err := os.WriteFile(script, []byte(pythonLocks), 0o644); err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir(), "ZKSCOPE_CONTEXT=", "ZKSCOPE_AUTH=")
	zk := func() *exec.Cmd {
		c := exec.Command(bin, "-s", s.URL(), "locks", "lock:*", "--json")
		c.Env = env
		return c
	}
	py := func() *exec.Cmd { return exec.Command("/usr/bin/python3", script, s.Addr) }
	var zkTime, pyTime time.Duration
	b.ResetTimer()
	for range b.N {
		zkTime += runCounted(b, zk(), "locks")
		pyTime += runCounted(b, py(), "locks")
	}
	zkMs := float64(zkTime.Microseconds()) / 1000 / float64(b.N)
	pyMs := float64(pyTime.Microseconds()) / 1000 / float64(b.N)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(zkMs, "zkscope-ms/op")
	b.ReportMetric(pyMs, "python-ms/op")
	b.ReportMetric(pyMs/zkMs, "x-faster")
	b.Logf("zkscope locks --json %.0f ms, redis-py SCAN+GET+PTTL %.0f ms: %.1fx faster (%d runs)", zkMs, pyMs, pyMs/zkMs, b.N)
}

// runCounted runs cmd, checks that its JSON lists the 10,000 locks under
// field, and returns how long the process took.
func runCounted(b *testing.B, cmd *exec.Cmd, field string) time.Duration {
	b.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		b.Fatalf("%v: %v\n%s", cmd.Args, err, errOut.String())
	}
	var doc map[string]json.RawMessage
	var locks []json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		b.Fatalf("%v: %v", cmd.Args, err)
	}
	if err := json.Unmarshal(doc[field], &locks); err != nil || len(locks) != benchLocks {
		b.Fatalf("%v listed %d locks, want %d (%v)", cmd.Args, len(locks), benchLocks, err)
	}
	return d
}
