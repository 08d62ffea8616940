package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// The TUI on a real redis-server, driven through Update (liveDriver).

// go-redis logs its failed dials (a stopped server) on stderr; the
// binary silences it the same way (cmdutil.OpenRedis, cmd/cmdutil/connect.go).
func init() { redis.SetLogger(&logging.VoidLogger{}) }

func redisLive(t *testing.T) (*redistest.Server, *redisview.Client, *redis.Client) {
	return redistest.Clients(t)
}

// typeLine types s and enter.
func (d *liveDriver) typeLine(s string) {
	for _, r := range s {
		d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
}

func screenHas(s ...string) func(*liveDriver) bool {
	return func(d *liveDriver) bool {
		out := d.screen()
		for _, x := range s {
			if !strings.Contains(out, x) {
				return false
			}
		}
		return true
	}
}

// TestRedisTreeDetailAndLockTag: the keyspace grouped by ':' level by
// level, a string key's type, TTL and JSON value, a hash's fields, a lock
// key tagged in the tree and shown in the lock pane, and what is refused
// on Redis.
func TestRedisTreeDetailAndLockTag(t *testing.T) {
	_, c, r := redisLive(t)
	ctx := context.Background()
	r.Set(ctx, "cache:user:1", `{"name":"ada"}`, 100*time.Second)
	r.Set(ctx, "cache:user:2", "x", 0)
	r.HSet(ctx, "cache:profile", "color", "blue")
	r.Set(ctx, "lock:orders:42", "0123456789abcdef0123456789abcdef", time.Minute)
	r.Set(ctx, "counter", "7", 0)

	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the top level", screenHas("cache", "lock", "counter", "connected"))

	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("cd cache:user:1")
	d.until(t, 15*time.Second, "cache:user:1's value", screenHas("user", "string · 14 B", "left", `"name": "ada"`))
	if p := d.m.tree.CursorPath(); p != "/cache/user/1" {
		t.Fatalf("cursor on %s", p)
	}
	ttl := d.m.detail.Redis().Value.TTL
	if ttl <= 90*time.Second || ttl > 100*time.Second {
		t.Fatalf("TTL read %v", ttl)
	}

	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("cd cache:profile")
	d.until(t, 15*time.Second, "the hash's field", screenHas("hash · 1 fields", "color", "blue"))

	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("cd lock:orders:42")
	d.until(t, 15*time.Second, "the lock pane", screenHas("redis.setnx·1", "1 holding · 0 waiting", "expires in", "0123456789abcdef"))

	d.apply(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if !strings.Contains(d.m.status.Text, "Copied lock:orders:42 ") {
		t.Fatalf("y on Redis: %q", d.m.status.Text)
	}
	d.apply(tea.KeyPressMsg{Code: 'e', Text: "e"})
	if !strings.Contains(d.m.status.Text, "not edited here") {
		t.Fatalf("e on Redis: %q", d.m.status.Text)
	}
	d.apply(tea.KeyPressMsg{Code: 'R', Text: "R"})
	d.until(t, 5*time.Second, "revoke refused", screenHas("cannot be revoked"))
}

// TestRedisServerDownIsOneLine: a server that does not answer says so in
// one line with what to do.
func TestRedisServerDownIsOneLine(t *testing.T) {
	s, c, _ := redisLive(t)
	s.Stop()
	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the error", func(d *liveDriver) bool {
		return strings.Contains(d.m.status.Text, "does not answer") && strings.Contains(d.m.status.Text, "check --server")
	})
	if strings.Contains(d.m.status.Text, "\n") {
		t.Fatalf("status on several lines: %q", d.m.status.Text)
	}
}

// TestRedisLivePyLockHolder: a real redis-py Lock held by a Python
// process shows in the lock pane as the holder, with its token and the
// time it has left counting down.
func TestRedisLivePyLockHolder(t *testing.T) {
	s, c, _ := redisLive(t)
	token, _ := redistest.HoldPyLock(t, s.Addr, "lock:jobs:nightly", 60)

	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark", ReadOnly: true}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the top level", screenHas("lock", "connected"))
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("cd lock:jobs:nightly")
	d.until(t, 15*time.Second, "the holder in the lock pane", screenHas("lock lock:jobs:nightly", "redis.setnx", "H1", token[:16], "expires in"))
	q := d.m.lock.Queue()
	if len(q.Holders()) != 1 || string(q.Holders()[0].Data) != token || q.Kind != lockops.KindRedisSetNX {
		t.Fatalf("queue %+v", q)
	}
	first := q.Holders()[0].TTL
	d.until(t, 15*time.Second, "the TTL read again, lower", func(d *liveDriver) bool {
		q := d.m.lock.Queue()
		h := q.Holders()
		return len(h) == 1 && h[0].TTL < first-time.Second
	})
	d.apply(tea.KeyPressMsg{Code: 't', Text: "t"})
	d.until(t, 5*time.Second, "take refused read-only", screenHas("Read-only"))
}

// TestRedisFairLockWaitersInOrder: a Redisson fair lock's layout (built
// from Redisson's documented Lua scripts: no Redisson client here) shows
// its holder and its waiters in queue order with their deadlines; the `/`
// filter narrows a level as on ZooKeeper.
func TestRedisFairLockWaitersInOrder(t *testing.T) {
	_, c, r := redisLive(t)
	ctx := context.Background()
	name := "orders-lock"
	r.HSet(ctx, name, "8f1c-holder:1", "2")
	r.PExpire(ctx, name, 30*time.Second)
	r.RPush(ctx, redisview.FairLockKey(redisview.QueuePrefix, name), "8f1c-second:7", "8f1c-third:9")
	now := time.Now().UnixMilli()
	r.ZAdd(ctx, redisview.FairLockKey(redisview.TimeoutPrefix, name),
		redis.Z{Score: float64(now + 20_000), Member: "8f1c-second:7"}, redis.Z{Score: float64(now + 40_000), Member: "8f1c-third:9"})
	r.Set(ctx, "other", "x", 0)

	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the top level", screenHas("orders-lock", "redisson_lock_queue", "other"))
	d.apply(tea.KeyPressMsg{Code: '/', Text: "/"})
	d.typeLine("orders")
	d.until(t, 5*time.Second, "the filter", screenHas(`filter "orders" 1/4`))
	if strings.Contains(d.screen(), "other") {
		t.Fatalf("the filter kept other:\n%s", d.screen())
	}
	d.apply(tea.KeyPressMsg{Code: 'j', Text: "j"})
	d.until(t, 15*time.Second, "the fair lock's queue", screenHas("redisson.fairlock", "1 holding · 2 waiting", "entered 2 times", "deadline in", "W1", "W2"))
	q := d.m.lock.Queue()
	ws := q.Waiters()
	if len(ws) != 2 || string(ws[0].Data) != "8f1c-second:7" || string(ws[1].Data) != "8f1c-third:9" {
		t.Fatalf("waiters %+v", ws)
	}
	out := d.screen()
	if i, j := strings.Index(out, "8f1c-second:7"), strings.Index(out, "8f1c-third:9"); i < 0 || j < i {
		t.Fatalf("waiters not in queue order:\n%s", out)
	}
}

// TestRedisHugeLevelStopsAtItsLimit: a level with more keys than the
// listing limit shows what was found and says, once, that names may be
// missing and how to narrow.
func TestRedisHugeLevelStopsAtItsLimit(t *testing.T) {
	_, c, r := redisLive(t)
	ctx := context.Background()
	for start := 0; start < 30_000; start += 5000 {
		p := r.Pipeline()
		for i := start; i < start+5000; i++ {
			p.Set(ctx, fmt.Sprintf("session:%05d", i), "x", 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c, ListLimit: 10_000}, Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the top level", screenHas("session"))
	d.apply(tea.KeyPressMsg{Code: 'j', Text: "j"})
	d.apply(tea.KeyPressMsg{Code: 'l', Text: "l"})
	d.until(t, 30*time.Second, "the warning", func(d *liveDriver) bool {
		return strings.Contains(d.m.status.Text, "Listed session after looking at 10000 keys") && strings.Contains(d.m.status.Text, ":cd session:")
	})
	names, _ := d.m.cache.Children("/session")
	if len(names) < 10_000 || len(names) >= 30_000 {
		t.Fatalf("%d names listed", len(names))
	}
}

// TestRedisTakeWaitReleaseEvict: t waits behind a real redis-py holder,
// gets the lock when it releases, shows us as the holder with our token,
// u releases it (the key is gone); X on another redis-py lock deletes it
// once the token's end is typed.
func TestRedisTakeWaitReleaseEvict(t *testing.T) {
	s, c, r := redisLive(t)
	ctx := context.Background()
	pyToken, pyRelease := redistest.HoldPyLock(t, s.Addr, "lock:deploy", 60)
	otherToken, _ := redistest.HoldPyLock(t, s.Addr, "lock:report", 60)

	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the top level", screenHas("lock", "connected"))
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("cd lock:deploy")
	d.until(t, 15*time.Second, "the python holder", screenHas("lock lock:deploy", pyToken[:16]))

	d.apply(tea.KeyPressMsg{Code: 't', Text: "t"})
	d.until(t, 5*time.Second, "the take dialog", screenHas("Take Redis lock", "lock:deploy", "30s"))
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 15*time.Second, "waiting behind python", screenHas("⧗ waiting", "for lock:deploy · held by", pyToken[:16]))
	pyRelease()
	d.until(t, 15*time.Second, "the lock ours", screenHas("we hold lock:deploy", "you"))
	ours := d.m.lock.RedisHeld().Token
	if got, _ := r.Get(ctx, "lock:deploy").Result(); got != ours || ours == pyToken {
		t.Fatalf("key holds %q, ours %q", got, ours)
	}
	if ttl := r.PTTL(ctx, "lock:deploy").Val(); ttl <= 0 || ttl > 30*time.Second {
		t.Fatalf("our key's TTL %v", ttl)
	}

	d.apply(tea.KeyPressMsg{Code: 'u', Text: "u"})
	d.until(t, 15*time.Second, "released", screenHas("Released lock:deploy"))
	if n := r.Exists(ctx, "lock:deploy").Val(); n != 0 {
		t.Fatal("the key is still there after the release")
	}

	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("cd lock:report")
	d.until(t, 15*time.Second, "the other holder", screenHas("lock lock:report", otherToken[:16]))
	d.apply(tea.KeyPressMsg{Code: 'X', Text: "X"})
	d.until(t, 15*time.Second, "the evict dialog", screenHas("Force-delete Redis lock", "to confirm"))
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 5*time.Second, "a confirmation asked", screenHas("exactly to confirm"))
	d.typeLine(otherToken[len(otherToken)-8:])
	d.until(t, 15*time.Second, "deleted", screenHas("Deleted lock:report on 1 server"))
	if n := r.Exists(ctx, "lock:report").Val(); n != 0 {
		t.Fatal("lock:report is still there")
	}
}

// TestRedisHelpSaysWhatDiffers: `?` on Redis has its own section, and the
// ZooKeeper screens say they are ZooKeeper's.
func TestRedisHelpSaysWhatDiffers(t *testing.T) {
	_, c, _ := redisLive(t)
	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark"}), 120, 50)
	defer d.Close()
	d.apply(tea.KeyPressMsg{Code: '?', Text: "?"})
	if !strings.Contains(d.screen(), "On Redis") || !strings.Contains(d.screen(), "groups keys by ':'") {
		t.Fatalf("help:\n%s", d.screen())
	}
	d.apply(tea.KeyPressMsg{Code: 'x', Text: "x"})
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("sessions")
	if d.m.screen != screenTree || !strings.Contains(d.m.status.Text, "for ZooKeeper") {
		t.Fatalf(":sessions on Redis: screen %d, status %q", d.m.screen, d.m.status.Text)
	}
}

// TestRedisRedlockMajorityWithAMasterDown: three masters, the same token
// on two of them and the third stopped: the tree lists the two that
// answer, the lock pane shows the Redlock held by the majority with its
// validity, and the status line says a master does not answer.
func TestRedisRedlockMajorityWithAMasterDown(t *testing.T) {
	ss := redistest.StartN(t, 3)
	ctx := context.Background()
	var urls []string
	for i, s := range ss {
		urls = append(urls, s.URL())
		if i < 2 {
			r := redis.NewClient(&redis.Options{Addr: s.Addr})
			r.Set(ctx, "lock:billing", "c2VjcmV0LXRva2VuLTEyMzQ1Ng==", time.Minute)
			r.Close()
		}
	}
	ss[2].Stop()
	eps, err := redisview.ParseServers(strings.Join(urls, ","))
	if err != nil {
		t.Fatal(err)
	}
	c, err := redisview.Open(redisview.Config{Servers: eps, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the masters that answer", screenHas("lock", "connected"))
	if !strings.Contains(d.m.status.Text, "1 of 3 masters do not answer") {
		t.Fatalf("status %q", d.m.status.Text)
	}
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("cd lock:billing")
	d.until(t, 15*time.Second, "the Redlock", screenHas("redlock", "2 holding", "a majority holds it · validity", "redis-unreachable"))
	q := d.m.lock.Queue()
	if q.Kind != lockops.KindRedlock || len(q.Holders()) != 2 {
		t.Fatalf("queue %+v", q)
	}
}

// TestRedisNoAuthIsOneLine: a server that wants a password says so in one
// line naming where the password goes.
func TestRedisNoAuthIsOneLine(t *testing.T) {
	_, c, r := redisLive(t)
	if err := r.ConfigSet(context.Background(), "requirepass", "s3cret").Err(); err != nil {
		t.Fatal(err)
	}
	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the NOAUTH line", func(d *liveDriver) bool {
		return strings.Contains(d.m.status.Text, "wants a password (NOAUTH)") && strings.Contains(d.m.status.Text, "--auth-file")
	})
}

// TestRedisHeldLockLostWhenServerStops: a lock taken in the TUI with a
// 10s TTL, then the server stopped: the pane says SUSPENDED, then LOST,
// and the lock stays lost (u has nothing to release). The TTL bounds each
// request to a tenth of it: with 1s (100 ms a request) a loaded machine
// failed the take itself ("no server answered").
func TestRedisHeldLockLostWhenServerStops(t *testing.T) {
	s, c, r := redisLive(t)
	r.Set(context.Background(), "lock:other", "x", 0) // a row to stand on
	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the top level", screenHas("lock", "connected"))
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("cd lock:other")
	d.until(t, 15*time.Second, "the key", screenHas("lock › other"))
	d.apply(tea.KeyPressMsg{Code: 't', Text: "t"})
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab}) // the key field
	for range len("lock:other") {
		d.apply(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	for _, ch := range "lock:short" {
		d.apply(tea.KeyPressMsg{Code: ch, Text: string(ch)})
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab}) // the TTL
	for range len("30s") {
		d.apply(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	d.typeLine("10s")
	d.until(t, 15*time.Second, "the lock ours", func(d *liveDriver) bool {
		h := d.m.lock.RedisHeld()
		return h != nil && h.Key == "lock:short" && h.TTL == 10*time.Second && strings.Contains(d.screen(), "We hold lock:short")
	})
	s.Stop()
	d.until(t, 60*time.Second, "LOST", screenHas("LOST lock:short"))
	if d.m.lock.Holding() {
		t.Fatal("a lost lock still counts as held")
	}
	d.apply(tea.KeyPressMsg{Code: 'u', Text: "u"})
	d.until(t, 5*time.Second, "nothing to release", screenHas("We hold no lock"))
}
