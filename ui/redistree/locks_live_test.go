package redistree

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// TestRedisQueuesDiagnoseLocksOnly: the TUI judges a lock's expiry
// against the other locks read with it, as `zkscope locks` does, not
// against every key on screen: caches with short TTLs next to three
// locks make none of the locks an outlier.
func TestRedisQueuesDiagnoseLocksOnly(t *testing.T) {
	_, c, r := redistest.Clients(t)
	ctx := context.Background()
	keys := []string{"lock:a", "lock:b", "lock:c"}
	for i, key := range keys {
		r.Set(ctx, key, fmt.Sprintf("tok-%d", i), time.Duration(100+50*i)*time.Second)
	}
	for i := range 5 {
		key := fmt.Sprintf("cache:%d", i)
		r.Set(ctx, key, "value", 10*time.Second)
		keys = append(keys, key)
	}
	got, err := Queues(ctx, c, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d locks among the keys, want the 3 lock: keys: %v", len(got), got)
	}
	for name, q := range got {
		for _, p := range q.Problems {
			if p.Kind == lockops.ProblemRedisTTLOutlier {
				t.Errorf("%s: %s: %s (judged against the caches)", name, p.Kind, p.Detail)
			}
		}
	}
}
