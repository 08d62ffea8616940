package diagnose_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/lockops/take/taketest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLockFollowsSessionsIntoOtherDirs: two sessions on a real server,
// each holding one lock and waiting on the other's. Lock, given one
// read of x and the servers' answer, reads y (where x's sessions own
// nodes) and finds the session-deadlock through both: one session-level
// problem naming y as the other lock, and the problem on each of x's
// nodes; the queue keeps its own problems only. Without a client it reads
// no other directory, and finds no cycle.
func TestLockFollowsSessionsIntoOtherDirs(t *testing.T) {
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
	raw, err := scan.ReadDir(ctx, op, x)
	if err != nil {
		t.Fatal(err)
	}
	read := func() lockops.Queue { q := lockops.Decode(raw, lockops.DecodeOptions{}); q.Path = x; return q }
	e := op.Introspect(ctx)
	o := diagnose.LockOptions{Now: time.Now(), HungAfter: time.Minute}

	d := diagnose.Lock(ctx, op, read(), e, o)
	if len(d.Sessions) != 1 || d.Sessions[0].Kind != lockops.ProblemSessionDeadlock {
		t.Fatalf("session problems %+v, want one session-deadlock", d.Sessions)
	}
	s := d.Sessions[0]
	if !slices.Equal(s.Others, []string{y}) || len(s.Mine) != 2 {
		t.Errorf("mine %v, others %v: want x's two nodes and %s", s.Mine, s.Others, y)
	}
	for _, n := range s.Mine {
		if !slices.ContainsFunc(d.Found, func(p lockops.Problem) bool { return p.Kind == lockops.ProblemSessionDeadlock && p.Node == n }) {
			t.Errorf("no session-deadlock found on %s: %+v", n, d.Found)
		}
	}
	for _, p := range d.Queue.Problems {
		if p.Kind == lockops.ProblemSessionDeadlock {
			t.Errorf("the queue carries a found problem among its own: %+v", p)
		}
	}
	if d := diagnose.Lock(ctx, nil, read(), e, o); len(d.Sessions) != 0 {
		t.Errorf("without a client: %+v", d.Sessions)
	}
}
