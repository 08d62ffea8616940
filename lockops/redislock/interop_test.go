package redislock

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	rsgoredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredis "github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// Interop: real clients make the lock states on real redis-server
// processes; zkscope reads them back with SCAN and pipelined reads and
// decodes them.

// readRedis reads pattern from urls and decodes it.
func readRedis(t *testing.T, pattern string, urls ...string) []lockops.Queue {
	t.Helper()
	return Decode(locktest.RedisReads(t, pattern, urls...), time.Now())
}

func TestRedisPyLockInterop(t *testing.T) {
	s := redistest.Start(t)
	// held: a token of uuid1().hex and a 30 s timeout; contended: a second
	// Lock gives up without taking it; released and expired: no key left;
	// no timeout: a key without expiry.
	out := locktest.RedisPy(t, s.Addr, `
held = r.lock('lock:held', timeout=30)
assert held.acquire()
other = r.lock('lock:held', timeout=30)
assert not other.acquire(blocking=False)
print(held.local.token.decode())
gone = r.lock('lock:released', timeout=30)
assert gone.acquire()
gone.release()
short = r.lock('lock:expired', timeout=0.2)
assert short.acquire()
forever = r.lock('lock:forever')
assert forever.acquire()
print(forever.local.token.decode())
`)
	token, forever := out[0], out[1]
	if len(token) != 32 {
		t.Fatalf("redis-py token %q: want uuid1().hex", token)
	}
	locktest.WaitGone(t, s.Addr, "lock:expired")
	qs := readRedis(t, "lock:*", s.URL())
	var got []string
	for _, q := range qs {
		p := q.Participants[0]
		got = append(got, q.Path+" "+string(q.Kind)+" "+string(p.Data)+" "+strings.Join(func() []string {
			var ks []string
			for _, pr := range q.Problems {
				ks = append(ks, string(pr.Kind))
			}
			return ks
		}(), ","))
		if q.Path == "lock:held" && (p.TTL <= 29*time.Second || p.TTL > 30*time.Second) {
			t.Errorf("lock:held TTL %v, want just under 30s", p.TTL)
		}
	}
	want := []string{
		"lock:forever redis.setnx " + forever + " redis-no-expiry",
		"lock:held redis.setnx " + token + " ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestRedsyncInterop(t *testing.T) {
	servers := redistest.StartN(t, 3)
	var pools []redsyncredis.Pool
	var urls []string
	for _, s := range servers {
		c := goredis.NewClient(&goredis.Options{Addr: s.Addr})
		t.Cleanup(func() { c.Close() })
		pools = append(pools, rsgoredis.NewPool(c))
		urls = append(urls, s.URL())
	}
	rs := redsync.New(pools...)
	m := rs.NewMutex("lock:rs", redsync.WithExpiry(20*time.Second))
	if err := m.Lock(); err != nil {
		t.Fatal(err)
	}
	// contended: another client's single try fails, and releases its
	// partial keys.
	if err := rs.NewMutex("lock:rs", redsync.WithExpiry(20*time.Second), redsync.WithTries(1)).Lock(); err == nil {
		t.Fatal("a second redsync mutex took a held lock")
	}
	check := func(holders int, problems ...lockops.ProblemKind) {
		t.Helper()
		qs := readRedis(t, "lock:*", urls...)
		if len(qs) != 1 || qs[0].Kind != lockops.KindRedlock || qs[0].Path != "lock:rs" {
			t.Fatalf("got %+v", qs)
		}
		q := qs[0]
		if len(q.Holders()) != holders || len(q.Waiters()) != 0 {
			t.Errorf("%d holders, %d others, want %d holders: %q", len(q.Holders()), len(q.Waiters()), holders, brief(q))
		}
		for _, p := range q.Participants {
			if string(p.Data) != m.Value() {
				t.Errorf("%s holds %q, want redsync's value %q", p.Node, p.Data, m.Value())
			}
		}
		if !q.HasValidity || q.Validity > 20*time.Second-202*time.Millisecond || q.Validity < 15*time.Second {
			t.Errorf("validity %v (%v)", q.Validity, q.HasValidity)
		}
		if got := kinds(q.Problems); !slices.Equal(got, problems) {
			t.Errorf("problems %v, want %v", got, problems)
		}
	}
	check(3)
	servers[1].Stop() // one master down: the majority still shows
	check(2, lockops.ProblemRedisUnreachable)
	if ok, _ := m.Unlock(); !ok { // the two masters left are a quorum
		t.Fatal("redsync could not release on the two masters left")
	}
	if qs := readRedis(t, "lock:*", urls[0], urls[2]); len(qs) != 0 {
		t.Errorf("released, still decoded: %+v", qs)
	}

	// expired: a short expiry runs out.
	short := redsync.New(pools[0], pools[2]).NewMutex("lock:short", redsync.WithExpiry(200*time.Millisecond))
	if err := short.Lock(); err != nil {
		t.Fatal(err)
	}
	locktest.WaitGone(t, servers[0].Addr, "lock:short")
	locktest.WaitGone(t, servers[2].Addr, "lock:short")
	if qs := readRedis(t, "lock:*", urls[0], urls[2]); len(qs) != 0 {
		t.Errorf("expired, still decoded: %+v", qs)
	}
}

// TestRedsyncMinority: a partial acquire on one master of three, as a
// crashed redsync client leaves it (SET NX PX with a redsync-like value),
// is a minority: nobody holds.
func TestRedsyncMinority(t *testing.T) {
	servers := redistest.StartN(t, 3)
	c := goredis.NewClient(&goredis.Options{Addr: servers[0].Addr})
	defer c.Close()
	if err := c.SetNX(context.Background(), "lock:m", "AAAAAAAAAAAAAAAAAAAAAA==", 10*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	qs := readRedis(t, "lock:*", servers[0].URL(), servers[1].URL(), servers[2].URL())
	if len(qs) != 1 || len(qs[0].Holders()) != 0 || !slices.Equal(kinds(qs[0].Problems), []lockops.ProblemKind{lockops.ProblemRedlockMinority}) {
		t.Errorf("got %+v", qs)
	}
}

// fairLockScript takes a Redisson fair lock for ARGV[1] (<uuid>:<threadId>)
// or queues it, as Redisson's documented fair-lock script does it (no
// Redisson, a Java client, is available here): the hash holds the owner
// with a re-entry count and the lease as its expiry; a waiter is appended
// to redisson_lock_queue:{name} with a deadline (ms since the epoch) in
// redisson_lock_timeout:{name}: the previous waiter's deadline (or the
// lease's end) plus the thread wait time, ARGV[3].
const fairLockScript = `
if redis.call('exists', KEYS[1]) == 0 and redis.call('exists', KEYS[2]) == 0 then
  redis.call('hset', KEYS[1], ARGV[1], 1)
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
local last = redis.call('lindex', KEYS[2], -1)
local base
if last then base = tonumber(redis.call('zscore', KEYS[3], last)) else base = tonumber(ARGV[4]) + redis.call('pttl', KEYS[1]) end
redis.call('zadd', KEYS[3], base + tonumber(ARGV[3]), ARGV[1])
redis.call('rpush', KEYS[2], ARGV[1])
return 1`

func TestRedissonFairLockLayout(t *testing.T) {
	s := redistest.Start(t)
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr})
	defer c.Close()
	ctx := context.Background()
	name := "lock:fair"
	keys := []string{name, redisview.FairLockKey(redisview.QueuePrefix, name), redisview.FairLockKey(redisview.TimeoutPrefix, name)}
	threads := []string{"8c1d0b3e-5f4a-4c39-9e0e-1b2a3c4d5e6f:61", "8c1d0b3e-5f4a-4c39-9e0e-1b2a3c4d5e6f:62", "0d9e8f7a-1111-4222-8333-944455556666:1", "0d9e8f7a-1111-4222-8333-944455556666:7"}
	for _, th := range threads {
		if err := c.Eval(ctx, fairLockScript, keys, th, 30000, 300000, time.Now().UnixMilli()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c.HIncrBy(ctx, name, threads[0], 1) // a re-entry
	// a waiter whose deadline passed, first in line (a thread that gave up
	// without its acquireFailed script running)
	c.ZAdd(ctx, keys[2], goredis.Z{Score: float64(time.Now().Add(-time.Minute).UnixMilli()), Member: threads[1]})

	qs := readRedis(t, "lock:*", s.URL())
	if len(qs) != 1 || qs[0].Kind != lockops.KindRedissonFairLock {
		t.Fatalf("got %+v", qs)
	}
	q := qs[0]
	var order []string
	for _, p := range q.Participants {
		order = append(order, string(p.State)+" "+string(p.Data))
	}
	want := []string{"holding " + threads[0], "waiting " + threads[1], "waiting " + threads[2], "waiting " + threads[3]}
	if !slices.Equal(order, want) {
		t.Errorf("got %q, want %q", order, want)
	}
	if q.Participants[0].Holds != 2 {
		t.Errorf("re-entries %d, want 2", q.Participants[0].Holds)
	}
	if got := kinds(q.Problems); !slices.Equal(got, []lockops.ProblemKind{lockops.ProblemFairWaiterExpired}) {
		t.Errorf("problems %v", got)
	}
}
