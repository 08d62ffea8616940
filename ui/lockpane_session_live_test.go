package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLiveLockPaneSessionDeadlock: two real sessions each hold one lock
// and wait on the other's (a wait-for cycle across two directories); the
// lock pane on one of them shows a session-deadlock badge line naming the
// other lock's path and both sessions, and the badge on the nodes.
func TestLiveLockPaneSessionDeadlock(t *testing.T) {
	base := zktest.Path(t)
	l1, l2 := base+"/locks/one", base+"/locks/two"
	a, b := liveClient(t), liveClient(t)
	contenderWith(t, a, l1, "a holds one")()
	contenderWith(t, b, l2, "b holds two")()
	contenderWith(t, a, l2, "a waits on two")
	contenderWith(t, b, l1, "b waits on one")

	d := newLiveDriver(New(Options{Client: liveClient(t), Start: l1, Theme: "dark"}), 240, 40)
	defer d.Close()
	d.until(t, 60*time.Second, "the session-deadlock line with the other lock", func(d *liveDriver) bool {
		s := d.screen()
		return strings.Contains(s, string(lockops.ProblemSessionDeadlock)) && strings.Contains(s, " with "+l2+" · sessions")
	})
	q := d.m.lock.Queue()
	n := 0
	for _, p := range q.Problems {
		if p.Kind == lockops.ProblemSessionDeadlock {
			n++
			if !strings.Contains(p.Detail, lockops.FormatSession(a.SessionID())) || !strings.Contains(p.Detail, lockops.FormatSession(b.SessionID())) {
				t.Errorf("the problem does not name both sessions: %s", p.Detail)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d session-deadlock problems on the nodes of %s, want 2 (the holder and the waiter): %+v", n, l1, q.Problems)
	}
}
