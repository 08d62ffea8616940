package lockops

import (
	"context"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestSessionDeadlockLive: two sessions on a real server, each holding one
// lock (one in Curator's format, one in kazoo's) and waiting on the other's:
// Scan and Diagnose report one session-deadlock naming both sessions.
func TestSessionDeadlockLive(t *testing.T) {
	cl := zktest.Shared(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b, op := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	root := zktest.Path(t)
	x, y := root+"/x", root+"/y"
	if _, err := Take(ctx, a, x, TakeOptions{Library: Curator}); err != nil {
		t.Fatal(err)
	}
	if _, err := Take(ctx, b, y, TakeOptions{Library: Kazoo}); err != nil {
		t.Fatal(err)
	}
	takeAsync(ctx, a, y, TakeOptions{Library: Kazoo})
	takeAsync(ctx, b, x, TakeOptions{Library: Curator})
	locktest.WaitChildren(t, op, x, 2)
	locktest.WaitChildren(t, op, y, 2)
	queues, err := Scan(ctx, op, root, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	Diagnose(queues, ServerDiagnoseOptions{Ensemble: Verify(ctx, op, queues)})
	var found []Problem
	for _, q := range queues {
		for _, p := range q.Problems {
			if p.Kind == ProblemSessionDeadlock {
				found = append(found, p)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("session-deadlock reported %d times: %+v", len(found), queues)
	}
	for _, s := range []int64{a.SessionID(), b.SessionID()} {
		if !strings.Contains(found[0].Detail, FormatSession(s)) {
			t.Errorf("detail lacks session %s: %s", FormatSession(s), found[0].Detail)
		}
	}
}
