package locks_test

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

// pythonLocks is what a competent operator's script does: SCAN the
// pattern and, per SCAN page, GET and PTTL its keys in one pipeline
// (keys that are no strings fail GET and are skipped), then print the
// locks as JSON.
const pythonLocks = `import json, sys, redis
host, port = sys.argv[1].split(':')
r = redis.Redis(host=host, port=int(port))
out = []
cursor = 0
while True:
    cursor, keys = r.scan(cursor, match='lock:*', count=1000)
    p = r.pipeline(transaction=False)
    for k in keys:
        p.get(k)
        p.pttl(k)
    res = p.execute(raise_on_error=False) if keys else []
    for i, k in enumerate(keys):
        v, ttl = res[2*i], res[2*i+1]
        if v is None or isinstance(v, Exception):
            continue
        out.append({'key': k.decode(), 'token': v.decode(), 'ttl_ms': ttl})
    if cursor == 0:
        break
json.dump({'locks': out}, sys.stdout)
`

// pythonLocksPerKey is the same without the pipeline: a GET and a PTTL
// round trip per key, as a script grown from redis-cli habits does.
const pythonLocksPerKey = `import json, sys, redis
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

// BenchmarkRedisLocksVsPython runs, as whole processes alternated in the
// same run, `zkscope locks 'lock:*' --json` and two redis-py scripts over
// the same 100,000 keys (10,000 locks): SCAN with GET + PTTL pipelined per
// page (python-ms/op, x-faster) and GET + PTTL per key
// (python-perkey-ms/op, x-faster-perkey); it reports the times and ratios.
//
//	go test -run '^$' -bench RedisLocksVsPython -benchtime 5x .
func BenchmarkRedisLocksVsPython(b *testing.B) {
	if err := exec.Command("/usr/bin/python3", "-c", "import redis").Run(); err != nil {
		redistest.Unavailable(b, "python3-redis not installed")
	}
	s := redistest.Start(b)
	fillRedisBench(b, s.Addr)
	bin := zktest.Zkscope(b)
	dir := b.TempDir()
	for name, src := range map[string]string{"pipelined.py": pythonLocks, "perkey.py": pythonLocksPerKey} {
		if err := os.WriteFile(dir+"/"+name, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	env := append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir(), "ZKSCOPE_CONTEXT=", "ZKSCOPE_AUTH=")
	zk := func() *exec.Cmd {
		c := exec.Command(bin, "-s", s.URL(), "locks", "lock:*", "--json")
		c.Env = env
		return c
	}
	py := func(script string) *exec.Cmd { return exec.Command("/usr/bin/python3", dir+"/"+script, s.Addr) }
	var zkTime, pyTime, perKeyTime time.Duration
	b.ResetTimer()
	for range b.N {
		zkTime += runCounted(b, zk(), "locks")
		pyTime += runCounted(b, py("pipelined.py"), "locks")
		perKeyTime += runCounted(b, py("perkey.py"), "locks")
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	zkMs, pyMs, perKeyMs := ms(zkTime), ms(pyTime), ms(perKeyTime)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(zkMs, "zkscope-ms/op")
	b.ReportMetric(pyMs, "python-ms/op")
	b.ReportMetric(perKeyMs, "python-perkey-ms/op")
	b.ReportMetric(pyMs/zkMs, "x-faster")
	b.ReportMetric(perKeyMs/zkMs, "x-faster-perkey")
	b.Logf("zkscope locks --json %.0f ms; redis-py pipelined %.0f ms (%.1fx), per key %.0f ms (%.1fx); %d runs",
		zkMs, pyMs, pyMs/zkMs, perKeyMs, perKeyMs/zkMs, b.N)
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
