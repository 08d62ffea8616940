package lockpane

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
)

// fairLockQueue is a Redisson fair lock as the root's loader returns it:
// each participant its own node (key#token), its key in Name.
func fairLockQueue() lockops.Queue {
	q := "redisson_lock_queue:{orders-lock}"
	return lockops.Queue{Path: "/orders-lock", Kind: lockops.KindRedissonFairLock,
		Participants: []lockops.Participant{
			{Node: "orders-lock#8f1c:1", Name: "orders-lock", State: lockops.StateHolding, Mode: lockops.ModeExclusive, Data: []byte("8f1c:1"), TTL: 30 * time.Second, HasTTL: true, Holds: 2},
			{Node: q + "#9a2d:7", Name: q, State: lockops.StateWaiting, Mode: lockops.ModeExclusive, Data: []byte("9a2d:7"), TTL: -4 * time.Second, HasTTL: true, Position: 1},
			{Node: q + "#b3e4:9", Name: q, State: lockops.StateWaiting, Mode: lockops.ModeExclusive, Data: []byte("b3e4:9"), TTL: 20 * time.Second, HasTTL: true, Position: 2},
		},
		Problems: []lockops.Problem{{Kind: lockops.ProblemFairWaiterExpired, Node: q, Detail: "waiter 9a2d:7: its deadline passed 4s ago but it is still queued"}},
	}
}

// TestRedisPaneCountsDown: a Redis lock read through the loader seam
// shows holder and waiters in order, re-entries, the expired waiter's
// problem on its own row only, and the times left counting down with the
// ticks between reads.
func TestRedisPaneCountsDown(t *testing.T) {
	pal, err := themes.Pick(themes.Dark, true, false)
	if err != nil {
		t.Fatal(err)
	}
	st := themes.New(pal)
	p := New(&st, &dialog.Overlay{})
	p.clock = func() time.Time { return lockT0 }
	p.SetLoader(func(context.Context, string) (lockops.Queue, error) { return fairLockQueue(), nil }, false)
	p.SetSize(72, 14)
	cmd := p.Show(true, "/orders-lock")
	if cmd == nil {
		t.Fatal("Show read nothing")
	}
	p.Update(cmd())
	p.Update(common.TickMsg{At: lockT0.Add(3 * time.Second)})
	out := ansi.Strip(p.View())
	for _, want := range []string{"1 holding · 2 waiting", "expires in 27s", "entered 2 times", "deadline passed 7s ago", "deadline in 17s"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, string(lockops.ProblemFairWaiterExpired)); n != 2 { // the badge line and one row
		t.Errorf("the problem shows %d times:\n%s", n, out)
	}
	golden.RequireEqual(t, []byte(out))
}
