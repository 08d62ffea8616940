package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/redisview/redistest"
)

// TestRunRedisLocks: `locks 'lock:*' --json` and doctor on a real
// redis-server, through the hook locks and doctor call first.
func TestRunRedisLocks(t *testing.T) {
	s := redistest.Start(t)
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr})
	defer c.Close()
	ctx := context.Background()
	c.Set(ctx, "lock:a", "tok-a", 30*time.Second)
	c.Set(ctx, "lock:forever", "tok-f", 0)
	c.Set(ctx, "other", "x", 0)

	saved := conn
	t.Cleanup(func() { conn = saved })
	conn.Server = s.URL()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("ZKSCOPE_SERVER", "")
	t.Setenv("ZKSCOPE_CONTEXT", "")
	t.Setenv("ZKSCOPE_AUTH", "")

	cmd := &cobra.Command{}
	cmd.SetContext(ctx)
	var out bytes.Buffer
	cmd.SetOut(&out)
	handled, err := runRedisLocks(cmd, []string{"lock:*"}, true)
	if !handled || err != nil {
		t.Fatalf("handled %v, err %v", handled, err)
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
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.Bytes())
	}
	if len(doc.Locks) != 2 || doc.Locks[0].Path != "lock:a" || doc.Locks[0].Recipe != "redis.setnx" ||
		doc.Locks[0].Participants[0].Data != "tok-a" || doc.Locks[1].Participants[0].TTL != nil || doc.Servers[0] != s.Addr {
		t.Errorf("report:\n%s", out.Bytes())
	}

	out.Reset()
	if _, err := runRedisLocks(cmd, []string{"lock:a"}, false); err != nil || // no session: a dash
		!regexp.MustCompile(`holding +exclusive +lock:a +- +- +ttl \d+s +- +tok-a`).Match(out.Bytes()) {
		t.Errorf("table: %v\n%s", err, out.Bytes())
	}

	out.Reset()
	handled, err = runRedisDoctor(cmd, []string{"lock:*"})
	var ee exitError
	if !handled || !errors.As(err, &ee) || ee.code != 1 || !bytes.Contains(out.Bytes(), []byte("redis-no-expiry lock:forever")) {
		t.Errorf("doctor: %v %v\n%s", handled, err, out.Bytes())
	}

	watch := &cobra.Command{Use: "locks"}
	watch.SetContext(ctx)
	watch.Flags().Bool("watch", false, "")
	watch.Flags().Set("watch", "true")
	if handled, err := runRedisLocks(watch, nil, false); !handled || err == nil || !strings.Contains(err.Error(), "--watch works on ZooKeeper only") {
		t.Errorf("--watch on Redis: %v %v", handled, err)
	}
	if _, err := connect(ctx); err == nil || !strings.Contains(err.Error(), "this command reads ZooKeeper") {
		t.Errorf("a ZooKeeper command against Redis: %v", err)
	}

	conn.Server = "127.0.0.1:2181"
	if handled, _ := runRedisLocks(cmd, nil, false); handled {
		t.Error("a ZooKeeper server was handled as Redis")
	}
	conn.Server = "redis://u:pw@" + s.Addr
	if _, err := runRedisLocks(cmd, nil, false); err == nil {
		t.Error("credentials in --server accepted")
	}
}
