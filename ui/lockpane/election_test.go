package lockpane

import (
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/themes"
)

// TestLockPaneEphemeralLock: a plain ephemeral lock's holder and the
// waiters seen only in the servers' watch lists (no node of their own):
// each waiter is a row of its own, with its session, waiting with exists.
func TestLockPaneEphemeralLock(t *testing.T) {
	node := "/app/maintenance"
	holder := lockops.Participant{Node: node, Name: "maintenance", Mode: lockops.ModeExclusive, State: lockops.StateHolding,
		Session: 0x1000000a1b2c0001, Ephemeral: true, Data: []byte("alice@ops1"), Ctime: lockT0.Add(-time.Minute)}
	q := lockops.Queue{Path: node, Kind: lockops.KindEphemeralLock, Participants: []lockops.Participant{holder}}
	for i, s := range []int64{0x1000000a1b2c0002, 0x1000000a1b2c0003} {
		q.Participants = append(q.Participants, lockops.Participant{Node: node, Name: "maintenance", Mode: lockops.ModeExclusive,
			State: lockops.StateWaiting, Position: i + 1, Session: s, Ephemeral: true, WatcherOnly: true,
			Watches: node, WatchKind: lockops.WatchExists, WatchObserved: boolPtr(true), Client: "10.0.0.9:4000"})
	}
	p := testPane(themes.Dark, 140, 40)
	paneWatchers(&q) // as the pane's own reads do (viewedQueue)
	p.SetQueueAt(q, lockT0)
	out := paneScreen(p)
	checkPaneShape(t, p, out)
	if strings.Contains(out, "cycle") || !strings.Contains(out, "waiting (exists)") {
		t.Errorf("the waiters' chain or age:\n%s", out)
	}
	for _, want := range []string{"alice@ops1", "watcher 0x1000000a1b2c0002", "watcher 0x1000000a1b2c0003"} {
		if !strings.Contains(out, want) {
			t.Errorf("the pane lacks %q:\n%s", want, out)
		}
	}
}
