package tui_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
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

	s := cmdtest.StartTmux(t, "redis-e2e", 120, 30, "-s "+srv.URL()+" --read-only")

	s.WaitFor("the keyspace", cmdtest.Has("zkscope", "connected", "read-only", "cache", "lock"))
	s.Keys(":")
	s.Text("cd cache:user:1")
	s.Keys("Enter")
	s.WaitFor("the JSON value", cmdtest.Has("cache › user › 1", "string", `"name": "ada"`, "no expiry"))
	s.Keys(":")
	s.Text("cd lock:jobs:nightly")
	s.Keys("Enter")
	s.WaitFor("the redis-py holder", cmdtest.Has("lock lock:jobs:nightly", "redis.setnx", "H1", token[:16], "expires in"))
	s.Keys("t")
	s.WaitFor("the take refused", cmdtest.Has("Read-only"))
	s.Keys("q")
	s.WaitFor("the program gone", func(scr string) bool { return !strings.Contains(scr, "zkscope  server") })
}
