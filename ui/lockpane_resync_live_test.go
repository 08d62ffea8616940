package ui

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLivePaneResyncAfterMemberLoss: the lock pane follows a lock
// through the one member zkscope may use; the member is killed, a real
// kazoo client deletes the holder's node and queues a new one (in
// Curator's naming) through the other members, and the member is started
// again. Once zkscope is back, the pane's queue is the directory's
// present: the deleted node gone, the new one holding. The time from the
// reconnection to that is logged (the goal: within a second).
func TestLivePaneResyncAfterMemberLoss(t *testing.T) {
	cl := zktest.StartEnsemble(t, 3, zktest.Options{})
	addrs := cl.Addrs()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := zkview.Connect(ctx, zkview.Config{Servers: addrs[:1], SessionTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lockPath := "/locks/job"
	zktest.MakePath(t, c.Conn(), lockPath)
	first := liveCreate(t, c.Conn(), lockPath+"/_c_11111111-0000-4000-8000-000000000001-lock-", nil, zk.FlagSequence)
	d := newLiveDriver(New(Options{Client: c, Start: lockPath, Theme: "dark"}), 140, 40)
	defer d.Close()
	d.until(t, 30*time.Second, "the pane following the lock", func(d *liveDriver) bool {
		return d.m.lock != nil && d.m.lock.Following() && len(d.m.lock.Queue().Participants) == 1
	})
	conn, unsub := c.Subscribe()
	defer unsub()

	srv := cl.ByAddr(addrs[0])
	srv.Kill()
	d.until(t, 60*time.Second, "zkscope to see its member gone", func(*liveDriver) bool {
		return c.State().State != zkview.StateConnected
	})
	script := `import sys
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1])
zk.start(timeout=60)
zk.delete("` + first + `")
zk.create("` + lockPath + `/_c_22222222-0000-4000-8000-000000000002-lock-", b"", sequence=True)
zk.stop()
zk.close()
`
	kctx, kcancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer kcancel()
	if out, err := exec.CommandContext(kctx, "/usr/bin/python3", "-c", script, strings.Join(addrs[1:], ",")).CombinedOutput(); err != nil {
		t.Fatalf("kazoo: %v: %s", err, out)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	var back time.Time
	down := false // the channel starts with the state at Subscribe
	d.until(t, 120*time.Second, "zkscope connected again", func(*liveDriver) bool {
		for {
			select {
			case ev := <-conn:
				down = down || ev.State != zkview.StateConnected
				if ev.State == zkview.StateConnected && down && back.IsZero() {
					back = ev.Time
				}
				continue
			default:
			}
			return !back.IsZero()
		}
	})
	fresh, _, err := c.Conn().Children(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	d.until(t, 30*time.Second, "the queue as a fresh read has it", func(d *liveDriver) bool {
		var shown []string
		for _, p := range d.m.lock.Queue().Participants {
			shown = append(shown, p.Name)
		}
		return d.m.lock.Following() && slices.Equal(shown, fresh)
	})
	t.Logf("the pane equalled a fresh read %s after the reconnection (goal: within 1s)", time.Since(back).Round(time.Millisecond))
	if fresh[0] == first[strings.LastIndexByte(first, '/')+1:] {
		t.Fatalf("the fresh read %v still has the deleted node", fresh)
	}
}
