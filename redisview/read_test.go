package redisview_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// TestReadLocksManyPages: a pattern whose keys span many SCAN pages, read
// by several page readers at once, comes back whole, each key once,
// sorted, with its type, value and TTL; the keys of other patterns are
// not read.
func TestReadLocksManyPages(t *testing.T) {
	c, r := open(t)
	ctx := context.Background()
	fill(t, r, 6_000, func(i int) string { return fmt.Sprintf("lock:%05d", i) })
	fill(t, r, 6_000, func(i int) string { return fmt.Sprintf("other:%05d", i) })
	r.Expire(ctx, "lock:00042", time.Minute)
	r.HSet(ctx, "lock:hash", "uuid-1:7", "2")
	r.RPush(ctx, "lock:list", "x")

	reads := c.ReadLocks(ctx, "lock:*")
	if len(reads) != 1 || reads[0].Err != nil {
		t.Fatalf("%+v", reads)
	}
	keys := reads[0].Keys
	if len(keys) != 6_002 {
		t.Fatalf("%d keys, want 6,002", len(keys))
	}
	if !slices.IsSortedFunc(keys, func(a, b redisview.Key) int { return strings.Compare(a.Name, b.Name) }) {
		t.Fatal("keys not sorted")
	}
	for i, k := range keys[:6_000] {
		if want := fmt.Sprintf("lock:%05d", i); k.Name != want || k.Type != "string" || len(k.Value) == 0 {
			t.Fatalf("key %d: %+v, want %s", i, k, want)
		}
	}
	if ttl := keys[42].TTL; ttl <= 0 || ttl > time.Minute || keys[41].TTL != redisview.NoExpiry {
		t.Fatalf("TTLs %v %v", keys[42].TTL, keys[41].TTL)
	}
	if h, l := keys[6_000], keys[6_001]; h.Type != "hash" || h.Fields["uuid-1:7"] != "2" || l.Name != "lock:list" || l.Type != "other" {
		t.Fatalf("%+v %+v", h, l)
	}
}

// TestReadLocksServerStopsAnswering: a server that stops answering while
// it is read ends the read with an error by the caller's deadline, the
// scan and the page readers all stopped.
func TestReadLocksServerStopsAnswering(t *testing.T) {
	s, c, r := redistest.Clients(t)
	fill(t, r, 3_000, func(i int) string { return fmt.Sprintf("lock:%05d", i) })
	s.Pause()
	defer s.Resume()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	reads := c.ReadLocks(ctx, "lock:*")
	if reads[0].Err == nil || reads[0].Keys != nil {
		t.Fatalf("read of a paused server: %+v", reads[0])
	}
}

func TestMatchContaining(t *testing.T) {
	for _, c := range []struct{ prefix, term, want string }{
		{"lock:", "ord", "lock:*[oO][rR][dD]*"},
		{"", "a*1", `*[aA]\*1*`},
		{"x[1]:", "é?", `x\[1\]:*é\?*`},
	} {
		if got := redisview.MatchContaining(c.prefix, c.term); got != c.want {
			t.Errorf("MatchContaining(%q, %q) = %q, want %q", c.prefix, c.term, got, c.want)
		}
	}
}

// TestFindKeys: the names below a prefix containing a text in any case,
// glob characters taken literally, and the limit.
func TestFindKeys(t *testing.T) {
	c, r := open(t)
	ctx := context.Background()
	for _, k := range []string{"lock:Orders:1", "lock:orders:2", "lock:billing", "cache:orders", "lock:a*b", "lock:axb"} {
		r.Set(ctx, k, "v", 0)
	}
	got, truncated, err := c.FindKeys(ctx, "lock:", "ORDER", redisview.FindOptions{})
	if err != nil || truncated || !slices.Equal(got, []string{"lock:Orders:1", "lock:orders:2"}) {
		t.Fatalf("%v %v %v", got, truncated, err)
	}
	if got, _, _ := c.FindKeys(ctx, "lock:", "a*b", redisview.FindOptions{}); !slices.Equal(got, []string{"lock:a*b"}) {
		t.Fatalf("glob taken as a pattern: %v", got)
	}
	if got, truncated, _ := c.FindKeys(ctx, "", "o", redisview.FindOptions{Limit: 2}); len(got) != 2 || !truncated {
		t.Fatalf("limit: %v %v", got, truncated)
	}
}
