package redisview_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/redisview/redistest"
)

func open(t *testing.T) (*redisview.Client, *redis.Client) {
	_, c, r := redistest.Clients(t)
	return c, r
}

func names(l redisview.Level) []string {
	var out []string
	for _, c := range l.Children {
		s := c.Name
		if c.IsKey {
			s += "="
		}
		if c.Below > 0 {
			s += fmt.Sprintf("/%d", c.Below)
		}
		out = append(out, s)
	}
	return out
}

func TestListLevelGroupsBySeparator(t *testing.T) {
	c, r := open(t)
	ctx := context.Background()
	for _, k := range []string{"lock:orders:42", "lock:orders:43", "lock:orders", "lock:users:1", "plain", "a*b:x", "a*bc:y", "lock:"} {
		r.Set(ctx, k, "v", 0)
	}
	top, err := c.ListLevel(ctx, "", redisview.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(top), []string{"a*b/1", "a*bc/1", "lock/5", "plain="}; !slices.Equal(got, want) || !top.Done || top.Truncated || top.Scanned != 8 {
		t.Fatalf("top = %v (done %v, truncated %v, scanned %d), want %v", got, top.Done, top.Truncated, top.Scanned, want)
	}
	lock, err := c.ListLevel(ctx, "lock:", redisview.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(lock), []string{"=", "orders=/2", "users/1"}; !slices.Equal(got, want) {
		t.Fatalf("lock: = %v, want %v", got, want)
	}
	// A glob character in a name matches itself only.
	star, err := c.ListLevel(ctx, "a*b:", redisview.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(star); !slices.Equal(got, []string{"x="}) {
		t.Fatalf("a*b: = %v, want [x=]", got)
	}
}

// A keyspace far bigger than a level's limit: the listing stops at the
// limit (Truncated) and reports its progress while it goes.
func TestListLevelHugeKeyspaceStopsAndReportsProgress(t *testing.T) {
	c, r := open(t)
	ctx := context.Background()
	const n = 50_000
	fill(t, r, n, func(i int) string { return fmt.Sprintf("user:%d:name", i) })
	r.Set(ctx, "lock:a", "t", time.Minute)
	var reports []redisview.Level
	l, err := c.ListLevel(ctx, "", redisview.ListOptions{Count: 500, ProgressEvery: time.Nanosecond,
		Progress: func(l redisview.Level) { reports = append(reports, l) }})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Done || l.Scanned != n+1 || len(l.Children) != 2 || l.Children[1].Below < n {
		t.Fatalf("full listing: done %v scanned %d children %v", l.Done, l.Scanned, names(l))
	}
	if len(reports) < 10 {
		t.Fatalf("%d progress reports for %d keys in pieces of 500", len(reports), n)
	}
	for i := 1; i < len(reports); i++ {
		if reports[i].Scanned < reports[i-1].Scanned || reports[i].Done {
			t.Fatalf("report %d: scanned %d after %d (done %v)", i, reports[i].Scanned, reports[i-1].Scanned, reports[i].Done)
		}
	}
	cut, err := c.ListLevel(ctx, "user:", redisview.ListOptions{Limit: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	if !cut.Truncated || cut.Done || cut.Scanned != 10_000 {
		t.Fatalf("limited listing: truncated %v done %v scanned %d", cut.Truncated, cut.Done, cut.Scanned)
	}
}

func TestReadValueBoundsEachType(t *testing.T) {
	c, r := open(t)
	ctx := context.Background()
	r.Set(ctx, "s", `{"a":1}`, time.Minute)
	r.Set(ctx, "big", strings.Repeat("x", redisview.MaxValueBytes+10), 0)
	r.HSet(ctx, "h", "f1", "v1", "f2", "v2")
	for i := range redisview.MaxValueElements + 5 {
		r.RPush(ctx, "l", fmt.Sprint(i))
	}
	r.ZAdd(ctx, "z", redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 1, Member: "a"})
	r.SAdd(ctx, "set", "m")
	r.XAdd(ctx, &redis.XAddArgs{Stream: "x", ID: "1-1", Values: []string{"k", "v"}})

	v, err := c.ReadValue(ctx, "s")
	if err != nil || v.Type != "string" || string(v.Bytes) != `{"a":1}` || v.Size != 7 || v.TTL <= 0 || v.TTL > time.Minute || v.Truncated() {
		t.Fatalf("s: %+v %v", v, err)
	}
	v, _ = c.ReadValue(ctx, "big")
	if len(v.Bytes) != redisview.MaxValueBytes || !v.Truncated() || v.TTL != redisview.NoExpiry {
		t.Fatalf("big: %d bytes of %d, ttl %v", len(v.Bytes), v.Size, v.TTL)
	}
	v, _ = c.ReadValue(ctx, "h")
	slices.SortFunc(v.Elements, func(a, b redisview.Element) int { return strings.Compare(a.First, b.First) })
	if v.Type != "hash" || v.Size != 2 || !slices.Equal(v.Elements, []redisview.Element{{"f1", "v1"}, {"f2", "v2"}}) {
		t.Fatalf("h: %+v", v)
	}
	v, _ = c.ReadValue(ctx, "l")
	if v.Type != "list" || len(v.Elements) != redisview.MaxValueElements || v.Elements[0].First != "0" || !v.Truncated() {
		t.Fatalf("l: %d of %d", len(v.Elements), v.Size)
	}
	v, _ = c.ReadValue(ctx, "z")
	if v.Type != "zset" || !slices.Equal(v.Elements, []redisview.Element{{"a", "1"}, {"b", "2"}}) {
		t.Fatalf("z: %+v", v)
	}
	v, _ = c.ReadValue(ctx, "set")
	if v.Type != "set" || len(v.Elements) != 1 || v.Elements[0].First != "m" {
		t.Fatalf("set: %+v", v)
	}
	v, _ = c.ReadValue(ctx, "x")
	if v.Type != "stream" || v.Size != 1 || v.Elements[0].First != "1-1" {
		t.Fatalf("x: %+v", v)
	}
	v, err = c.ReadValue(ctx, "missing")
	if err != nil || v.Type != "none" {
		t.Fatalf("missing: %+v %v", v, err)
	}
}

func TestReadKeysReadsOneLock(t *testing.T) {
	c, r := open(t)
	ctx := context.Background()
	r.Set(ctx, "lock:a", "tok", time.Minute)
	r.HSet(ctx, "fair", "uuid-1:7", "1")
	r.RPush(ctx, redisview.FairLockKey(redisview.QueuePrefix, "fair"), "uuid-2:8")
	reads := c.ReadKeys(ctx, []string{"fair", "lock:a"})
	if len(reads) != 1 || reads[0].Err != nil || len(reads[0].Keys) != 2 {
		t.Fatalf("%+v", reads)
	}
	k := reads[0].Keys[0]
	if k.Name != "fair" || k.Fields["uuid-1:7"] != "1" || !slices.Equal(k.Queue, []string{"uuid-2:8"}) {
		t.Fatalf("fair: %+v", k)
	}
	if k := reads[0].Keys[1]; string(k.Value) != "tok" || k.TTL <= 0 {
		t.Fatalf("lock:a: %+v", k)
	}
}

// fill makes n keys named by name(i), in pipelined batches.
func fill(tb testing.TB, r *redis.Client, n int, name func(int) string) {
	tb.Helper()
	ctx := context.Background()
	for start := 0; start < n; start += 5000 {
		p := r.Pipeline()
		for i := start; i < min(start+5000, n); i++ {
			p.Set(ctx, name(i), "x", 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkListLevel lists levels of a 100,000-key keyspace (90,000 keys
// under user:, 10,000 under lock:): the top level (two names) and the
// lock: level (10,000 names), each a full SCAN of the keyspace.
func BenchmarkListLevel(b *testing.B) {
	_, c, r := redistest.Clients(b)
	fill(b, r, 90_000, func(i int) string { return fmt.Sprintf("user:%d:name", i) })
	fill(b, r, 10_000, func(i int) string { return fmt.Sprintf("lock:%d", i) })
	ctx := context.Background()
	for _, bc := range []struct{ name, prefix string }{{"top", ""}, {"lock", "lock:"}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				l, err := c.ListLevel(ctx, bc.prefix, redisview.ListOptions{})
				if err != nil || !l.Done {
					b.Fatal(err)
				}
			}
		})
	}
}
