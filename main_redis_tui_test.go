package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/redisview/redistest"
)

// TestRedisTUITmuxEndToEnd runs the real binary in tmux on a real
// redis-server with a real redis-py Lock held: `-s redis://…` with no
// subcommand opens the TUI on the keyspace, :cd opens the lock key, the
// lock pane shows the Python holder's token, and --read-only refuses a
// take.
func TestRedisTUITmuxEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		redistest.Unavailable(t, "tmux is not installed")
	}
	srv := redistest.Start(t)
	token, _ := redistest.HoldPyLock(t, srv.Addr, "lock:jobs:nightly", 120)
	r := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer r.Close()
	if err := r.Set(context.Background(), "cache:user:1", `{"name":"ada"}`, 0).Err(); err != nil {
		t.Fatal(err)
	}

	s := startTmux(t, "redis-e2e", 120, 30, "-s "+srv.URL()+" --read-only")

	s.waitFor("the keyspace", has("zkscope", "connected", "read-only", "cache", "lock"))
	s.keys(":")
	s.text("cd cache:user:1")
	s.keys("Enter")
	s.waitFor("the JSON value", has("cache › user › 1", "string", `"name": "ada"`, "no expiry"))
	s.keys(":")
	s.text("cd lock:jobs:nightly")
	s.keys("Enter")
	s.waitFor("the redis-py holder", has("lock lock:jobs:nightly", "redis.setnx", "H1", token[:16], "expires in"))
	s.keys("t")
	s.waitFor("the take refused", has("Read-only"))
	s.keys("q")
	s.waitFor("the program gone", func(scr string) bool { return !strings.Contains(scr, "zkscope  server") })
}
