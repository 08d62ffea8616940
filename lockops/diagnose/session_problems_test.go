package diagnose

import (
	"fmt"
	"github.com/zkscope/zkscope/zkview/fourlw"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
)

func holding(node string, s int64) lockops.Participant {
	return lockops.Participant{Node: node, Name: baseOf(node), Ephemeral: true, Mode: lockops.ModeExclusive, State: lockops.StateHolding, Session: s}
}

func waiting(node string, s int64, pos int) lockops.Participant {
	return lockops.Participant{Node: node, Name: baseOf(node), Ephemeral: true, Mode: lockops.ModeExclusive, State: lockops.StateWaiting, Session: s, Position: pos}
}

// TestSessionDeadlockAcrossDirectories: A holds /x and waits on /y, B
// holds /y and waits on /x, C only waits on /x: one session-deadlock
// naming A and B (not C), added once.
func TestSessionDeadlockAcrossDirectories(t *testing.T) {
	const a, b, c = 0x101, 0x102, 0x103
	qs := []lockops.Queue{
		{Path: "/x", Kind: lockops.KindKazooLock, Participants: []lockops.Participant{holding("/x/a-0000000000", a), waiting("/x/b-0000000001", b, 1), waiting("/x/c-0000000002", c, 2)}},
		{Path: "/y", Kind: lockops.KindCuratorMutex, Participants: []lockops.Participant{holding("/y/_c_b-lock-0000000000", b), waiting("/y/_c_a-lock-0000000001", a, 1)}},
	}
	ps := Sessions(qs, SessionOptions{})
	if len(ps) != 1 || ps[0].Kind != lockops.ProblemSessionDeadlock {
		t.Fatalf("problems %+v", ps)
	}
	p := ps[0]
	if len(p.Sessions) != 2 || p.Sessions[0] != a || p.Sessions[1] != b {
		t.Errorf("sessions %x", p.Sessions)
	}
	for _, want := range []string{"0x101", "0x102", "/x", "/y", "a-0000000000", "_c_a-lock-0000000001"} {
		if !strings.Contains(p.Detail, want) {
			t.Errorf("detail lacks %q: %s", want, p.Detail)
		}
	}
	if strings.Contains(p.Detail, "0x103") {
		t.Errorf("a plain waiter is named: %s", p.Detail)
	}
	Diagnose(qs, Options{})
	n := 0
	for _, q := range qs {
		for _, pr := range q.Problems {
			if pr.Kind == lockops.ProblemSessionDeadlock {
				n++
			}
		}
	}
	if n != 1 || lockops.ProblemSessionDeadlock.Severity() != lockops.SeverityError {
		t.Errorf("session-deadlock reported %d times", n)
	}
}

// TestDeadlockOfThreeBehindLongQueues: A holds /x and waits on /y, B holds
// /y and waits on /z, C holds /z and waits on /x, each queue with many
// plain waiters between: one session-deadlock naming exactly A, B and C.
func TestDeadlockOfThreeBehindLongQueues(t *testing.T) {
	const a, b, c = 0x201, 0x202, 0x203
	q := func(dir string, holder, cycleWaiter int64) lockops.Queue {
		ps := []lockops.Participant{holding(fmt.Sprintf("%s/n-%010d", dir, 0), holder)}
		for i := 1; i <= 500; i++ {
			ps = append(ps, waiting(fmt.Sprintf("%s/n-%010d", dir, i), int64(0x1000+i), i))
		}
		return lockops.Queue{Path: dir, Participants: append(ps, waiting(dir+"/n-0000000501", cycleWaiter, 501))}
	}
	qs := []lockops.Queue{q("/x", a, c), q("/y", b, a), q("/z", c, b)}
	ps := Sessions(qs, SessionOptions{})
	if len(ps) != 1 || !slices.Equal(ps[0].Sessions, []int64{a, b, c}) {
		t.Fatalf("problems %+v", ps)
	}
}

// TestNoDeadlockWithoutCycle: a chain A→B→C is waiting, not a deadlock;
// semaphore leases make no edges.
func TestNoDeadlockWithoutCycle(t *testing.T) {
	qs := []lockops.Queue{
		{Path: "/x", Participants: []lockops.Participant{holding("/x/n-0000000000", 2), waiting("/x/n-0000000001", 1, 1)}},
		{Path: "/y", Participants: []lockops.Participant{holding("/y/n-0000000000", 3), waiting("/y/n-0000000001", 2, 1)}},
		{Path: "/s", Participants: []lockops.Participant{
			{Node: "/s/l-1", Ephemeral: true, Mode: lockops.ModeLease, State: lockops.StateHolding, Session: 1},
			{Node: "/s/l-2", Ephemeral: true, Mode: lockops.ModeLease, State: lockops.StateWaiting, Session: 3}}},
	}
	if ps := Sessions(qs, SessionOptions{}); len(ps) != 0 {
		t.Errorf("problems %+v", ps)
	}
}

func consSample(at time.Time, conns ...fourlw.Conn) *zkview.Ensemble {
	return &zkview.Ensemble{At: at, Members: []zkview.Member{{Addr: "127.0.0.1:2181", Conns: conns, ConnsKnown: true}}}
}

func consOf(line string, t *testing.T) fourlw.Conn {
	t.Helper()
	cs, err := fourlw.ParseCons(line)
	if err != nil || len(cs) != 1 {
		t.Fatalf("parse %q: %v %v", line, cs, err)
	}
	return cs[0]
}

// TestPingOnly parses two cons samples 60 s apart (timeout 6 s: a ping
// every 2 s): the holder that only pinged is flagged, the busy one and
// the one whose last operation in the window was not a ping are not (what
// a session did before the first sample does not count); then
// session-hung is raised
// for a holder only after HungAfter.
func TestPingOnly(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	const est = "est=1795420601472,to=6000"
	before := consSample(t0,
		consOf(" /127.0.0.1:5001[1](queued=0,recved=100,sent=100,sid=0x1000000000001,lop=PING,"+est+",lcxid=0x5,lzxid=0x9,lresp=100,llat=0,minlat=0,avglat=0,maxlat=1)", t),
		consOf(" /127.0.0.1:5002[1](queued=0,recved=100,sent=100,sid=0x1000000000002,lop=PING,"+est+",lcxid=0x5,lzxid=0x9,lresp=100,llat=0,minlat=0,avglat=0,maxlat=1)", t),
		consOf(" /127.0.0.1:5003[1](queued=0,recved=100,sent=100,sid=0x1000000000003,lop=GETD,"+est+",lcxid=0x5,lzxid=0x9,lresp=100,llat=0,minlat=0,avglat=0,maxlat=1)", t))
	after := consSample(t0.Add(time.Minute),
		consOf(" /127.0.0.1:5001[1](queued=0,recved=130,sent=130,sid=0x1000000000001,lop=PING,"+est+",lcxid=0x5,lzxid=0x9,lresp=100,llat=0,minlat=0,avglat=0,maxlat=1)", t),
		consOf(" /127.0.0.1:5002[1](queued=0,recved=400,sent=400,sid=0x1000000000002,lop=PING,"+est+",lcxid=0x5,lzxid=0x9,lresp=100,llat=0,minlat=0,avglat=0,maxlat=1)", t),
		consOf(" /127.0.0.1:5003[1](queued=0,recved=130,sent=130,sid=0x1000000000003,lop=GETD,"+est+",lcxid=0x5,lzxid=0x9,lresp=100,llat=0,minlat=0,avglat=0,maxlat=1)", t))
	got := PingOnly(before, after)
	if len(got) != 1 || !got[0x1000000000001] {
		t.Fatalf("ping-only %v", got)
	}
	var w PingWatch
	w.Add(before)
	w.Add(after)
	if s := w.Since()[0x1000000000001]; !s.Equal(t0) {
		t.Errorf("since %v", s)
	}
	qs := []lockops.Queue{{Path: "/x", Participants: []lockops.Participant{holding("/x/n-0000000000", 0x1000000000001), holding("/y/n-0000000000", 0x1000000000003)}}}
	for _, c := range []struct {
		after time.Duration
		want  int
	}{{2 * time.Minute, 0}, {time.Minute, 1}} {
		ps := Sessions(qs, SessionOptions{Ensemble: after, PingOnlySince: w.Since(), HungAfter: c.after})
		if len(ps) != c.want {
			t.Errorf("hung-after %s: %+v", c.after, ps)
		}
		if len(ps) == 1 && (ps[0].Kind != lockops.ProblemSessionHung || ps[0].Sessions[0] != 0x1000000000001) {
			t.Errorf("hung %+v", ps[0])
		}
	}
}

// TestDisconnectedOwnerPerSession: a session with ephemerals and no
// connection on any member is reported once, as a session.
func TestDisconnectedOwnerPerSession(t *testing.T) {
	e := &zkview.Ensemble{Members: []zkview.Member{{Addr: "m:2181", ConnsKnown: true, Via: map[string]string{"dump": "4lw"},
		Ephemerals: map[int64][]string{0x11: {"/x/a", "/x/b"}, 0x12: {"/x/c"}},
		Conns:      []fourlw.Conn{{SessionID: 0x12, HasSession: true}}}}}
	ps := Sessions(nil, SessionOptions{Ensemble: e})
	if len(ps) != 1 || ps[0].Kind != lockops.ProblemOwnerDisconnected || ps[0].Sessions[0] != 0x11 || len(ps[0].Nodes) != 2 {
		t.Errorf("problems %+v", ps)
	}
}

// TestOwnersDisconnected: doctor's owner-disconnected comes once per
// session, from the per-node problems and the members' ephemeral lists
// alike, with the session's lock nodes first; a session whose only node
// is an election's leader node already reported leader-client-gone, and
// one whose ephemerals are all outside the path, are left out.
func TestOwnersDisconnected(t *testing.T) {
	e := &zkview.Ensemble{Members: []zkview.Member{{Addr: "m:2181", ConnsKnown: true, Via: map[string]string{"dump": "4lw"},
		Ephemerals: map[int64][]string{0x11: {"/x/svc", "/x/l/n-0000000000", "/x/m/n-0000000003"}, 0x12: {"/x/solo"},
			0x13: {"/x/leader"}, 0x14: {"/elsewhere/a"}, 0x15: {"/x/ok"}},
		Conns: []fourlw.Conn{{SessionID: 0x15, HasSession: true}}}}}
	od := func(n string) lockops.Problem {
		return lockops.Problem{Kind: lockops.ProblemOwnerDisconnected, Node: n}
	}
	qs := []lockops.Queue{
		{Path: "/x/l", Participants: []lockops.Participant{holding("/x/l/n-0000000000", 0x11)}, Problems: []lockops.Problem{od("/x/l/n-0000000000")}},
		{Path: "/x/m", Participants: []lockops.Participant{holding("/x/m/n-0000000003", 0x11)}, Problems: []lockops.Problem{od("/x/m/n-0000000003")}},
		{Path: "/x/leader", Participants: []lockops.Participant{holding("/x/leader", 0x13)}, Problems: []lockops.Problem{{Kind: lockops.ProblemLeaderClientGone, Node: "/x/leader"}}},
	}
	ps := OwnersDisconnected(qs, e, "/x")
	if len(ps) != 2 {
		t.Fatalf("%d problems, want 0x11 and 0x12: %+v", len(ps), ps)
	}
	if p := ps[0]; p.Sessions[0] != 0x11 || !slices.Equal(p.Nodes, []string{"/x/l/n-0000000000", "/x/m/n-0000000003", "/x/svc"}) ||
		!strings.Contains(p.Detail, "2 lock nodes and 1 other ephemeral node") || !strings.Contains(p.Detail, "evict --session 0x11") {
		t.Errorf("0x11: %+v", p)
	}
	if p := ps[1]; p.Sessions[0] != 0x12 || !slices.Equal(p.Nodes, []string{"/x/solo"}) || strings.Contains(p.Detail, "evict") {
		t.Errorf("0x12: %+v", p)
	}
	fs := DoctorFindings(qs, nil, ps)
	if len(fs) != 3 || fs[0].Kind != lockops.ProblemLeaderClientGone || fs[1].Where() != "0x11" || fs[1].Node != "/x/l/n-0000000000" {
		t.Errorf("findings %+v", fs)
	}
}

// TestStoppedHolderNotAnswering: a holder whose member received nothing
// from it between two cons samples — not even a ping — is described by
// what is known: not answering once the silence spans two thirds of its
// timeout (a live client pings every third; reported whatever HungAfter),
// silent but maybe idle when shorter (only after HungAfter); never as
// having "answered only pings". One that pinged in between answered only
// pings. The TUI's record of samples (PingWatch) says the same.
func TestStoppedHolderNotAnswering(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	const est = "est=1795420601472,to=30000"
	conn := func(port string, recved int, lop string) fourlw.Conn {
		return consOf(fmt.Sprintf(" /127.0.0.1:%s[1](queued=0,recved=%d,sent=%d,sid=0x100000000000000%s,lop=%s,%s,lcxid=0x5,lzxid=0x9,lresp=100,llat=0,minlat=0,avglat=0,maxlat=1)", port, recved, recved, port[3:], lop, est), t)
	}
	sample := func(at time.Duration, stoppedRecved, pingerRecved int) *zkview.Ensemble {
		e := consSample(t0.Add(at), conn("5001", stoppedRecved, "PING"), conn("5002", pingerRecved, "PING"))
		e.End = e.At.Add(50 * time.Millisecond)
		return e
	}
	stopped, pinger := int64(0x1000000000000001), int64(0x1000000000000002)
	qs := []lockops.Queue{{Path: "/x", Participants: []lockops.Participant{holding("/x/n-0000000000", stopped)}},
		{Path: "/y", Participants: []lockops.Participant{holding("/y/n-0000000000", pinger)}}}
	detail := func(ps []SessionProblem, id int64) string {
		for _, p := range ps {
			if p.Sessions[0] == id {
				return p.Detail
			}
		}
		return ""
	}
	for _, c := range []struct {
		name        string
		span, after time.Duration
		stopped     string // words the stopped holder's detail has ("": not reported)
	}{
		{"21s of a 30s timeout", 21 * time.Second, time.Hour, "not answering"},
		{"5s, hung-after 4s", 5 * time.Second, 4 * time.Second, "may be idle"},
		{"5s, hung-after 1m", 5 * time.Second, time.Minute, ""},
	} {
		before, after := sample(0, 40, 40), sample(c.span, 40, 41)
		ps := Sessions(qs, SessionOptions{Ensemble: after, HungAfter: c.after,
			PingOnlySince: PingOnlySince(before, after), SilentSince: SilentSince(before, after)})
		got := detail(ps, stopped)
		if c.stopped == "" && got != "" || !strings.Contains(got, c.stopped) || strings.Contains(got, "only pings") {
			t.Errorf("%s: stopped holder %q, want %q", c.name, got, c.stopped)
		}
		if p := detail(ps, pinger); c.span >= c.after && !strings.Contains(p, "answered only pings") {
			t.Errorf("%s: pinging holder %q", c.name, p)
		}
	}

	var w PingWatch
	for _, at := range []time.Duration{0, 3 * time.Second, 6 * time.Second} {
		w.Add(sample(at, 40, 40+int(at/(3*time.Second))))
	}
	if _, ok := w.NotAnswering()[stopped]; ok {
		t.Error("6s of silence proves nothing on a 30s session")
	}
	if _, ok := w.Silent()[stopped]; !ok {
		t.Error("the stopped session is not silent")
	}
	if _, ok := w.Since()[stopped]; ok {
		t.Error("the stopped session is said to answer only pings")
	}
	w.Add(sample(21*time.Second, 40, 43))
	if _, ok := w.NotAnswering()[stopped]; !ok {
		t.Error("21s of silence on a 30s session is not proof")
	}
	ps := Sessions(qs, SessionOptions{Ensemble: sample(21*time.Second, 40, 43), HungAfter: time.Minute,
		PingOnlySince: w.Since(), SilentSince: w.Silent()})
	if d := detail(ps, stopped); !strings.Contains(d, "not answering") {
		t.Errorf("flagged after 21s of silence with a minute's HungAfter: %q", d)
	}
}

// TestPersistentLockNodeNamesEvict: the problem names the command that
// removes the node.
func TestPersistentLockNodeNamesEvict(t *testing.T) {
	node := locktest.CuratorName(locktest.UUIDA, "lock-", "0000000001")
	qs := []lockops.Queue{lockops.Decode(dir("/l", kid(node, 0)), lockops.DecodeOptions{})}
	Diagnose(qs, Options{})
	if len(qs[0].Problems) == 0 || !strings.Contains(qs[0].Problems[0].Detail, "zkscope evict /l/"+node) {
		t.Errorf("problems %+v", qs[0].Problems)
	}
}
