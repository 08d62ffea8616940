package diagnose

import (
	"slices"
	"testing"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
)

// TestDiagnoseSplit: DiagnoseQueue and Servers together find what
// Diagnose finds (per queue; Diagnose adds the session-level problems),
// neither finds a problem twice, and DiagnoseQueue asks nothing of the
// servers' view.
func TestDiagnoseSplit(t *testing.T) {
	const d = "0000000000"
	names := []string{
		locktest.CuratorName(locktest.UUIDA, "lock-", d[:9]+"1"), // holder, session 0x11 (no connection)
		locktest.CuratorName(locktest.UUIDB, "lock-", d[:9]+"2"), // waits on the holder, confirmed
		locktest.CuratorName(locktest.UUIDC, "lock-", d[:9]+"3"), // waits on the second, unconfirmed
		locktest.CuratorName(locktest.UUIDA, "lock-", d[:9]+"4"), // persistent, waits on the third
		locktest.CuratorName(locktest.UUIDB, "lock-", d[:9]+"5"), // session 0x55: no server knows it
	}
	raw := lockops.Decode(dir("/l", kid(names[0], 0x11), kid(names[1], 0x22), kid(names[2], 0x33), kid(names[3], 0), kid(names[4], 0x55)), lockops.DecodeOptions{})
	e := &zkview.Ensemble{Members: []zkview.Member{{
		Addr: "zk1:2181", ConnsKnown: true, WatchesKnown: true, SessionsKnown: true,
		Clients: map[int64]string{0x22: "10.0.0.2:5000", 0x33: "10.0.0.3:5000"},
		Watches: map[string][]int64{"/l/" + names[0]: {0x22, 0x66, 0x77}},
		// 0x66 and 0x77 watch the holder from elsewhere: a herd only the
		// servers see.
		Sessions: []int64{0x11, 0x22, 0x33, 0x66, 0x77},
		Via:      map[string]string{"cons": "4lw", "wchp": "4lw", "dump": "4lw"},
	}}}
	// The third waiter's watch is missing as two samples found it
	// (ApplySamples; one answer leaves it unknown).
	missing := func(qs []lockops.Queue) {
		no := false
		qs[0].Participants[2].WatchObserved = &no
	}
	whole := []lockops.Queue{copyForTest(raw)}
	ApplyEnsemble(e, whole)
	missing(whole)
	Diagnose(whole, Options{Ensemble: e})

	split := []lockops.Queue{copyForTest(raw)}
	ApplyEnsemble(e, split)
	missing(split)
	lockops.DiagnoseQueue(split, lockops.DiagnoseOptions{})
	queueOnly := len(split[0].Problems)
	for _, p := range split[0].Problems {
		switch p.Kind {
		case lockops.ProblemWatchMissing, lockops.ProblemDeadOwner, lockops.ProblemOwnerDisconnected, lockops.ProblemDeadlock:
			t.Errorf("DiagnoseQueue reported %s on %s: that needs the servers", p.Kind, p.Node)
		}
	}
	Servers(split, Options{Ensemble: e})
	if queueOnly == 0 || queueOnly == len(split[0].Problems) {
		t.Errorf("queue checks found %d of %d problems; want some of each part", queueOnly, len(split[0].Problems))
	}
	key := func(q lockops.Queue) []string {
		var out []string
		for _, p := range q.Problems {
			out = append(out, string(p.Kind)+" "+p.Node+" "+p.Detail)
		}
		slices.Sort(out)
		return out
	}
	if got, want := key(split[0]), key(whole[0]); !slices.Equal(got, want) {
		t.Errorf("split diagnosis:\n%q\nwant Diagnose's:\n%q", got, want)
	}
	for _, k := range []lockops.ProblemKind{lockops.ProblemPersistentLockNode, lockops.ProblemWatchMissing, lockops.ProblemOwnerDisconnected, lockops.ProblemDeadOwner, lockops.ProblemHerd} {
		if !slices.ContainsFunc(whole[0].Problems, func(p lockops.Problem) bool { return p.Kind == k }) {
			t.Errorf("the fixture should show %s; problems %s", k, problemKinds(whole[0]))
		}
	}
}

func copyForTest(q lockops.Queue) lockops.Queue {
	q.Participants = slices.Clone(q.Participants)
	q.Problems = slices.Clone(q.Problems)
	return q
}
