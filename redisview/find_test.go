package redisview_test

import (
	"context"
	"slices"
	"testing"

	"github.com/zkscope/zkscope/redisview"
)

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
