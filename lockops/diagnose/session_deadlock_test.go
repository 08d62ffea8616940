package diagnose_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/lockops/take/taketest"
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
	if _, err := take.Take(ctx, a, x, take.Options{Library: lockops.Curator}); err != nil {
		t.Fatal(err)
	}
	if _, err := take.Take(ctx, b, y, take.Options{Library: lockops.Kazoo}); err != nil {
		t.Fatal(err)
	}
	taketest.TakeAsync(ctx, a, y, take.Options{Library: lockops.Kazoo})
	taketest.TakeAsync(ctx, b, x, take.Options{Library: lockops.Curator})
	locktest.WaitChildren(t, op, x, 2)
	locktest.WaitChildren(t, op, y, 2)
	queues, err := scan.Scan(ctx, op, root, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	diagnose.Diagnose(queues, diagnose.Options{Ensemble: diagnose.Verify(ctx, op, queues)})
	var found []lockops.Problem
	for _, q := range queues {
		for _, p := range q.Problems {
			if p.Kind == lockops.ProblemSessionDeadlock {
				found = append(found, p)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("session-deadlock reported %d times: %+v", len(found), queues)
	}
	for _, s := range []int64{a.SessionID(), b.SessionID()} {
		if !strings.Contains(found[0].Detail, lockops.FormatSession(s)) {
			t.Errorf("detail lacks session %s: %s", lockops.FormatSession(s), found[0].Detail)
		}
	}
}
