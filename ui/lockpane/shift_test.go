package lockpane

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/themes"
)

// TestShiftedEqualsNoted: a queue noted as shifted from the last one
// (noteShifted: holders left, waiters came) shows what noting each node
// shows (noteNodes): the same screen, ghosts, indices, highlights and
// times, and the same waits judged missing (judgeWatches keeping the
// verdicts of the waits as they were), over a random churn of a Curator
// mutex (some steps take a node out of the middle, or more heads than a
// shift handles, or none) with answers of the servers now and then that
// miss some sessions' watches.
func TestShiftedEqualsNoted(t *testing.T) {
	defer func() { noteShifts = true }()
	rng := rand.New(rand.NewPCG(7, 24))
	child := func(i int) lockops.Child {
		name := fmt.Sprintf("_c_%08x-0000-4000-8000-000000000000-lock-%010d", i, i)
		return lockops.Child{Name: name, Path: lockDir + "/" + name, Data: []byte("w"), Owner: int64(0x100 + i), Czxid: int64(i + 1), Ctime: lockT0.UnixMilli()}
	}
	var kids []lockops.Child
	next := 0
	for range 30 {
		kids = append(kids, child(next))
		next++
	}
	shiftedPane, notedPane := testPane(themes.Dark, 100, 30), testPane(themes.Dark, 100, 30)
	at := lockT0
	missing := 0
	for step := range 400 {
		switch r := rng.IntN(10); {
		case r < 6: // the usual: heads leave, waiters come
			kids = kids[min(rng.IntN(3), len(kids)):]
		case r < 8 && len(kids) > 2: // one from the middle
			i := 1 + rng.IntN(len(kids)-1)
			kids = slices.Delete(kids, i, i+1)
		case r < 9: // more heads than a shift takes
			kids = kids[min(maxShift+1+rng.IntN(3), len(kids)):]
		}
		arrive := rng.IntN(3)
		if len(kids) < 25 {
			arrive += 3 // (a queue of about 30)
		}
		for range arrive {
			kids = append(kids, child(next))
			next++
		}
		q := lockops.Decode(lockops.Dir{Path: lockDir, Children: slices.Clone(kids)}, lockops.DecodeOptions{})
		at = at.Add(time.Duration(100+rng.IntN(900)) * time.Millisecond)
		q.ReadAt = at
		if step%15 == 0 { // an answer of the servers missing the watches of some sessions
			var missed []int64
			for _, c := range kids {
				if rng.IntN(3) == 0 {
					missed = append(missed, c.Owner)
				}
			}
			s := watchSample(at.Add(-200*time.Millisecond), 100, missed...)
			shiftedPane.samples = append(shiftedPane.samples, s)
			notedPane.samples = shiftedPane.samples
		}
		for _, p := range []*Model{shiftedPane, notedPane} {
			noteShifts = p == shiftedPane
			p.path = lockDir
			p.setQueueAt(q.Clone(), at, false)
			if step%7 == 3 {
				p.moveCursor(1)
			}
		}
		if a, b := paneScreen(shiftedPane), paneScreen(notedPane); a != b {
			t.Fatalf("step %d: shifted draws\n%s\nnoted draws\n%s", step, a, b)
		}
		if a, b := shiftedPane.queue.Problems, notedPane.queue.Problems; !slices.Equal(a, b) {
			t.Fatalf("step %d: problems shifted %v, noted %v", step, a, b)
		}
		for i := range q.Participants {
			a, b := shiftedPane.queue.Participants[i].WatchObserved, notedPane.queue.Participants[i].WatchObserved
			if (a == nil) != (b == nil) || a != nil && *a != *b {
				t.Fatalf("step %d: %s's wait seen %v shifted, %v noted", step, q.Participants[i].Name, a, b)
			}
		}
		for _, pr := range shiftedPane.queue.Problems {
			if pr.Kind == lockops.ProblemWatchMissing {
				missing++
			}
		}
		if len(shiftedPane.ghosts) != len(notedPane.ghosts) {
			t.Fatalf("step %d: %d ghosts shifted, %d noted", step, len(shiftedPane.ghosts), len(notedPane.ghosts))
		}
		for i := range shiftedPane.ghosts {
			if g, h := shiftedPane.ghosts[i], notedPane.ghosts[i]; g.p.Node != h.p.Node || g.index != h.index || g.label != h.label {
				t.Fatalf("step %d: ghost %d is %s at %d (%s) shifted, %s at %d (%s) noted", step, i, g.p.Node, g.index, g.label, h.p.Node, h.index, h.label)
			}
		}
		for i, x := range q.Participants {
			j, ok := shiftedPane.indexOf(x.Node)
			if !ok || j != i {
				t.Fatalf("step %d: %s at %d (%v) shifted, at %d in the queue", step, x.Name, j, ok, i)
			}
			a, b := shiftedPane.memo[x.Node], notedPane.memo[x.Node]
			if a.firstSeen != b.firstSeen || a.holdingSince != b.holdingSince || a.holding != b.holding ||
				a.freshUntil != b.freshUntil || a.watches != b.watches || a.watchSince != b.watchSince {
				t.Fatalf("step %d: %s's memo shifted %+v, noted %+v", step, x.Name, *a, *b)
			}
			if shiftedPane.memoOf(i, x.Node) != a {
				t.Fatalf("step %d: %s's memo by index is not its memo", step, x.Name)
			}
		}
	}
	if missing == 0 {
		t.Error("no wait was judged missing")
	}
	if shiftedPane.cum == 0 || notedPane.cum != 0 {
		t.Fatalf("heads shifted out: %d in the shifted pane, %d in the other (want some, none)", shiftedPane.cum, notedPane.cum)
	}
}
