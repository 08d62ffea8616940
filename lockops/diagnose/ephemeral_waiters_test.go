package diagnose

import (
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

func TestEphemeralLockWaitersFromServers(t *testing.T) {
	st := zk.Stat{Czxid: 5, Ctime: 1_700_000_000_000, EphemeralOwner: 0x401}
	q := lockops.Decode(lockops.EphemeralDir("/locks/job", st, []byte("worker-1")), lockops.DecodeOptions{Kind: lockops.KindEphemeralLock})
	if len(q.Participants) != 1 || q.Participants[0].State != lockops.StateHolding || q.Participants[0].Node != "/locks/job" {
		t.Fatalf("queue %+v", q)
	}
	e := &zkview.Ensemble{Members: []zkview.Member{{
		Addr: "zk1:2181", ConnsKnown: true, WatchesKnown: true, SessionsKnown: true,
		Clients:  map[int64]string{0x401: "10.0.0.1:4000", 0x402: "10.0.0.2:4000", 0x403: "10.0.0.3:4000", 0x404: "10.0.0.4:4000"},
		Watches:  map[string][]int64{"/locks/job": {0x404, 0x402, 0x403, 0x401}},
		Sessions: []int64{0x401, 0x402, 0x403, 0x404},
	}}}
	qs := []lockops.Queue{q}
	ApplyEnsemble(e, qs)
	ApplyEnsemble(e, qs) // again: the same waiters, not twice as many
	Diagnose(qs, Options{Ensemble: e})
	q = qs[0]
	if len(q.Participants) != 4 {
		t.Fatalf("participants %+v", q.Participants)
	}
	for i, p := range q.Participants[1:] {
		if !p.WatcherOnly || p.State != lockops.StateWaiting || p.Session != int64(0x402+i) || p.WatchKind != lockops.WatchExists ||
			p.Watches != "/locks/job" || p.Client == "" || p.WatchObserved == nil || !*p.WatchObserved || p.Position != i+1 {
			t.Errorf("waiter %d: %+v", i, p)
		}
	}
	var kinds []string
	for _, p := range q.Problems {
		kinds = append(kinds, string(p.Kind))
	}
	if got := strings.Join(kinds, ","); got != "herd" {
		t.Errorf("problems %q: %+v", got, q.Problems)
	}
	// The holder's client gone (its session alive): the sharper problem.
	delete(e.Members[0].Clients, 0x401)
	qs = []lockops.Queue{lockops.Decode(lockops.EphemeralDir("/locks/job", st, nil), lockops.DecodeOptions{Kind: lockops.KindEphemeralLock})}
	ApplyEnsemble(e, qs)
	Diagnose(qs, Options{Ensemble: e, Herd: 10})
	if len(qs[0].Problems) != 1 || qs[0].Problems[0].Kind != lockops.ProblemLeaderClientGone {
		t.Errorf("client gone: %+v", qs[0].Problems)
	}
}

// TestEphemeralLockWaitersLeaveOutSelf: the asking client's own watch
// (the TUI's reads watch the node they show) makes it no waiter, and no
// herd: two sessions and zkscope watch the node.
func TestEphemeralLockWaitersLeaveOutSelf(t *testing.T) {
	st := zk.Stat{Czxid: 5, Ctime: 1_700_000_000_000, EphemeralOwner: 0x401}
	qs := []lockops.Queue{lockops.Decode(lockops.EphemeralDir("/locks/job", st, []byte("worker-1")), lockops.DecodeOptions{Kind: lockops.KindEphemeralLock})}
	e := &zkview.Ensemble{Self: 0x409, Members: []zkview.Member{{
		Addr: "zk1:2181", ConnsKnown: true, WatchesKnown: true, SessionsKnown: true,
		Clients:  map[int64]string{0x401: "10.0.0.1:4000", 0x402: "10.0.0.2:4000", 0x403: "10.0.0.3:4000", 0x409: "10.0.0.9:4000"},
		Watches:  map[string][]int64{"/locks/job": {0x409, 0x402, 0x403}, "/svc/only-us": {0x409}},
		Sessions: []int64{0x401, 0x402, 0x403, 0x409},
	}}}
	ApplyEnsemble(e, qs)
	Diagnose(qs, Options{Ensemble: e})
	if ps := qs[0].Participants; len(ps) != 3 || ps[1].Session != 0x402 || ps[2].Session != 0x403 {
		t.Errorf("waiters %+v", ps)
	}
	if len(qs[0].Problems) != 0 {
		t.Errorf("problems %+v", qs[0].Problems)
	}
}
