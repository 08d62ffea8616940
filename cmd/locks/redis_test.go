package locks_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// TestRunRedisLocks: `locks 'lock:*' --json` and doctor on a real
// redis-server, the target resolved as Redis servers.
func TestRunRedisLocks(t *testing.T) {
	s := redistest.Start(t)
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr})
	defer c.Close()
	ctx := context.Background()
	c.Set(ctx, "lock:a", "tok-a", 30*time.Second)
	c.Set(ctx, "lock:forever", "tok-f", 0)
	c.Set(ctx, "other", "x", 0)

	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("ZKSCOPE_SERVER", "")
	t.Setenv("ZKSCOPE_CONTEXT", "")
	t.Setenv("ZKSCOPE_AUTH", "")

	out, err := cmdtest.Run(t, "-s", s.URL(), "locks", "lock:*", "--json")
	if err != nil {
		t.Fatalf("err %v\n%s", err, out)
	}
	var doc struct {
		Servers []string
		Locks   []struct {
			Path, Recipe string
			Participants []struct {
				Node, Data string
				TTL        *int64 `json:"ttl_ms"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Locks) != 2 || doc.Locks[0].Path != "lock:a" || doc.Locks[0].Recipe != "redis.setnx" ||
		doc.Locks[0].Participants[0].Data != "tok-a" || doc.Locks[1].Participants[0].TTL != nil || doc.Servers[0] != s.Addr {
		t.Errorf("report:\n%s", out)
	}

	if out, err := cmdtest.Run(t, "-s", s.URL(), "locks", "lock:a"); err != nil || // no session: a dash
		!regexp.MustCompile(`holding +exclusive +lock:a +- +- +ttl \d+s +- +tok-a`).MatchString(out) {
		t.Errorf("table: %v\n%s", err, out)
	}

	out, err = cmdtest.Run(t, "-s", s.URL(), "doctor", "lock:*")
	var ee cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(out, "redis-no-expiry lock:forever") {
		t.Errorf("doctor: %v\n%s", err, out)
	}

	if _, err := cmdtest.Run(t, "-s", s.URL(), "locks", "--watch"); err == nil || !strings.Contains(err.Error(), "--watch works on ZooKeeper only") {
		t.Errorf("--watch on Redis: %v", err)
	}
	if _, err := cmdtest.Run(t, "-s", s.URL(), "get", "/"); err == nil || !strings.Contains(err.Error(), "this command reads ZooKeeper") {
		t.Errorf("a ZooKeeper command against Redis: %v", err)
	}
	if _, err := cmdtest.Run(t, "-s", "redis://u:pw@"+s.Addr, "locks"); err == nil {
		t.Error("credentials in --server accepted")
	}
}
