package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/tree"
	"github.com/zkscope/zkscope/zkview"
)

// At the smallest size the TUI draws (minWidth × minHeight, 60×15) the
// screens an operator meets first say what is true: each test here keeps
// its screen as a golden. The dialogs at this size are
// TestDialogsFitSmallest's, the prompts TestPromptOpensEmpty's, the
// status line's lifetime TestStatusLifetime's and the ? screen
// TestHelpScrollsWhenShort's.

// footer is the screen's last line, the keys it offers.
func footer(m Model) string {
	lines := strings.Split(screen(m), "\n")
	return lines[len(lines)-1]
}

// TestSmallestReadOnlyLock: in read-only mode the footer on a lock offers
// no take, release, revoke or force-delete (at 60×15 it shows only its
// first keys, and t was the first lock key), and t says in the lock pane
// why nothing happens; the note is about that lock and goes when the
// cursor moves to another. (The emptied lock directory's tag is
// TestEmptiedLockLosesTag's: at 60×15 the tree has no room for tags of
// names as long as "locks".)
func TestSmallestReadOnlyLock(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		m := fixture(t, minWidth, minHeight, "dark")
		m.readOnly = readOnly
		m.lock.SetClient(nil, readOnly) // as attach does
		m = step(t, cdLocal(t, m, "/app/locks"), nil)
		m.detail.SetLock(true)
		m.lock.SetQueueAt(fuzzQueue("/app/locks", "worker", []byte("worker-1")), fixedTime)
		m = pressKeys(t, m, "tab")
		offers := strings.Contains(footer(m), "take lock")
		if offers == readOnly {
			t.Errorf("read-only %v: the footer offers t: %v: %q", readOnly, offers, footer(m))
		}
		if !readOnly {
			continue
		}
		m = pressKeys(t, m, "t")
		checkSize(t, screen(m), minWidth, minHeight)
		if s := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(s, "Read-only") {
			t.Errorf("t in read-only mode says nothing:\n%s", screen(m))
		}
		golden.RequireEqual(t, screen(m))
		m.tree.SetLock("/app/jobs", tree.LockTag{Kind: lockops.KindKazooLock, Length: 1})
		m = pressKeys(t, m, "tab")
		m = cdLocal(t, m, "/app/jobs")
		if strings.Contains(screen(m), "Read-only") {
			t.Errorf("the note about /app/locks stays on /app/jobs:\n%s", screen(m))
		}
	}
}

// TestSmallestRedisLockTitle: on Redis the lock pane's title names the
// key (lock:orders:42), not its tree path (/lock/orders/42), at 60×15
// where the title has the least room. No server is asked (the client
// connects lazily, and commands are not run).
func TestSmallestRedisLockTitle(t *testing.T) {
	c, err := redisview.Open(redisview.Config{Servers: []redisview.Endpoint{{Addr: "127.0.0.1:6379"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := New(Options{Theme: "dark", Redis: &RedisOptions{Client: c}})
	m.now = func() time.Time { return fixedTime }
	m = step(t, m, nil)
	m.width, m.height = minWidth, minHeight
	m.layout()
	m.state = zkview.ConnEvent{State: zkview.StateConnected, Server: "127.0.0.1:6379"}
	m.tree.Opened(
		tree.Listing{Path: "/", Names: []string{"lock"}},
		tree.Listing{Path: "/lock", Names: []string{"orders"}},
		tree.Listing{Path: "/lock/orders", Names: []string{"42"}})
	m.tree.SetNodes(common.Node{Path: "/lock/orders/42", HasStat: true, Stat: zk.Stat{}})
	m.tree.SetLock("/lock/orders/42", tree.LockTag{Kind: lockops.KindRedisSetNX, Length: 1})
	m = cdLocal(t, m, "/lock/orders/42")
	m.detail.SetLock(true)
	m.lock.SetQueueAt(lockops.Queue{Path: "/lock/orders/42", Kind: lockops.KindRedisSetNX, Participants: []lockops.Participant{{
		Node: "/lock/orders/42#tok123", Name: "lock:orders:42", State: lockops.StateHolding, Mode: lockops.ModeExclusive,
		Data: []byte("tok123"), HasTTL: true, TTL: time.Minute}}}, fixedTime)
	out := screen(m)
	checkSize(t, out, minWidth, minHeight)
	if !strings.Contains(out, "lock lock:orders:42") || strings.Contains(out, "lock /lock/orders/42") {
		t.Errorf("the lock pane's title is not the key:\n%s", out)
	}
	golden.RequireEqual(t, out)
}
