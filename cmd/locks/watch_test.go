package locks_test

import (
	"encoding/json"
	"github.com/zkscope/zkscope/dbview/dbtest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLocksWatchEphemeralLock: `locks --watch` finds a plain ephemeral
// lock that real kazoo clients take with create-or-watch (holder, and the
// waiter the servers list watching it with exists, zkscope itself never
// among them), and draws the new holder when the first lets go — from its
// watch, not from a rescan (the interval is far longer than the test).
func TestLocksWatchEphemeralLock(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	c := cmdtest.Dial(t, s)
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll)) // may exist already
	base := zktest.Path(t)
	if _, err := c.Create(base, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	lock := base + "/maintenance"
	kz := zktest.StartKazoo(t, s)
	kz.Acquire(t, "k1", "ephemeral", lock)
	kz.Await(t, "k1", "acquired")
	kz.Acquire(t, "k2", "ephemeral", lock)
	kz.Await(t, "k2", "waiting")

	cmd := exec.Command(cmdtest.Binary(t), "-s", s, "locks", base, "--watch", "--json", "--interval", "10m")
	var out cmdtest.SyncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	// A frame whose lock is held by holder with one waiter watching it.
	frameWith := func(holder string) bool {
		for _, line := range strings.Split(out.String(), "\n") {
			var r struct {
				Locks []struct {
					Path, Recipe string
					Participants []struct {
						State, Data, Watches string
						WatchKind            string `json:"watch_kind"`
						OwnNode              *bool  `json:"own_node"`
					}
				}
			}
			if json.Unmarshal([]byte(line), &r) != nil || len(r.Locks) != 1 {
				continue
			}
			l := r.Locks[0]
			if l.Path != lock || l.Recipe != "zookeeper.ephemeral-lock" || len(l.Participants) < 1 {
				continue
			}
			h := l.Participants[0]
			if h.State != "holding" || h.Data != holder {
				continue
			}
			if len(l.Participants) > 2 {
				t.Fatalf("more waiters than kazoo's (zkscope counted itself?): %s", line)
			}
			if len(l.Participants) == 2 {
				w := l.Participants[1]
				return w.State == "waiting" && w.WatchKind == "exists" && w.Watches == lock && w.OwnNode != nil && !*w.OwnNode
			}
			return holder == "k2" // k2 holds: nobody is left waiting
		}
		return false
	}
	cmdtest.WaitUntil(t, "a frame with k1 holding and k2 waiting", func() bool { return frameWith("k1") })
	kz.Release(t, "k1")
	kz.Await(t, "k2", "acquired")
	cmdtest.WaitUntil(t, "a frame with k2 holding", func() bool { return frameWith("k2") })
}

func TestMain(m *testing.M) { zktest.Main(dbtest.Wrap(m)) }
