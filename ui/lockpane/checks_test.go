package lockpane

import (
	"context"
	"github.com/zkscope/zkscope/zkview/fourlw"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/zkview"
)

// TestServerFindingsCarried: an answer of the servers finds the holder's
// session answering only pings for two minutes (two samples of its
// connection) and a waiter's session alive but connected nowhere (one
// answer leaves its unlisted watch unknown: no watch-missing); the pane
// draws the
// session-hung line and badges, and later reads carry both problems for
// the nodes still there unchanged, and drop them once the nodes move.
func TestServerFindingsCarried(t *testing.T) {
	q := mutexQueue()
	holder := q.Participants[0]
	ens := func(at time.Time, recv int64) *zkview.Ensemble {
		c := fourlw.Conn{Addr: "10.0.0.1:5000", SessionID: holder.Session, HasSession: true, Recved: recv, Sent: recv,
			Timeout: 30 * time.Second, LastOp: "PING", Established: lockT0.Add(-time.Hour)}
		return &zkview.Ensemble{At: at, Members: []zkview.Member{{Addr: "zk1:2181", ConnsKnown: true, WatchesKnown: true,
			Conns: []fourlw.Conn{c}, Clients: map[int64]string{holder.Session: c.Addr}, Watches: map[string][]int64{},
			Sessions: []int64{holder.Session, q.Participants[1].Session}}}}
	}
	var pings diagnose.PingWatch
	pings.Add(ens(lockT0.Add(-2*time.Minute), 100))
	now := lockT0
	v := verifyQueue(context.Background(), nil, rawOf(q, 0), ens(now, 108), pings, now)
	if len(v.findings.sessions) != 1 || v.findings.sessions[0].Kind != lockops.ProblemSessionHung {
		t.Fatalf("session findings %+v, want one session-hung", v.findings.sessions)
	}
	kinds := func(q lockops.Queue, node string) (out []lockops.ProblemKind) {
		for _, p := range q.Problems {
			if p.Node == node {
				out = append(out, p.Kind)
			}
		}
		return out
	}
	if got := kinds(v.queue, holder.Node); len(got) != 1 || got[0] != lockops.ProblemSessionHung {
		t.Errorf("holder's problems %v, want session-hung", got)
	}
	waiter := q.Participants[1] // alive, no connection; its watch not in the lists
	if got := kinds(v.queue, waiter.Node); len(got) != 1 || got[0] != lockops.ProblemOwnerDisconnected {
		t.Errorf("waiter's problems %v, want owner-disconnected alone", got)
	}

	p := testPane("dark", 120, 30)
	p.findings = v.findings
	p.SetQueueAt(v.queue, now)
	if out := paneScreen(p); !strings.Contains(out, "session-hung  session "+lockops.FormatSession(holder.Session)) {
		t.Errorf("no session-hung line:\n%s", out)
	}

	// A later read: carried while unchanged…
	later := viewedQueue(rawOf(q, 0), nil, v.findings, now.Add(time.Second), nil)
	if len(kinds(later, holder.Node)) != 1 || len(kinds(later, waiter.Node)) != 1 {
		t.Errorf("not carried: %+v", later.Problems)
	}
	// …dropped once the holder released and the waiter holds.
	moved := rawOf(q, 0)
	moved.Participants = moved.Participants[1:]
	moved.Participants[0].State, moved.Participants[0].Watches = lockops.StateHolding, ""
	later = viewedQueue(moved, nil, v.findings, now.Add(2*time.Second), nil)
	if got := kinds(later, waiter.Node); len(got) != 0 {
		t.Errorf("the new holder keeps its old wait's problems: %v", got)
	}
	p.SetQueueAt(later, now.Add(2*time.Second))
	if out := paneScreen(p); strings.Contains(out, "session-hung") {
		t.Errorf("the session-hung line outlived the holder:\n%s", out)
	}
}
