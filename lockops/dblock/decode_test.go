package dblock

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/contracttest"
	"github.com/zkscope/zkscope/lockops/report"
)

func ptr(n int64) *int64 { return &n }

// snapshot: lock 42 held by 10 (idle in a transaction for a minute),
// awaited by 12 (since t0+2s) and 11 (since t0+1s); 1/2 held by a prepared
// transaction; 7 and 8 held by 20 and 21, each waiting for the other's.
func snapshot(t0 time.Time) *dbview.Snapshot {
	return &dbview.Snapshot{At: t0.Add(2 * time.Minute), Kind: dbview.KindPostgres, Rows: []dbview.LockRow{
		{Key: "42", Database: "app", Mode: "exclusive", Granted: false, WaitStart: t0.Add(2 * time.Second), Holder: 12, BlockedBy: []int64{10, 11}},
		{Key: "42", Database: "app", Mode: "exclusive", Granted: true, Holder: 10},
		{Key: "42", Database: "app", Mode: "shared", Granted: false, WaitStart: t0.Add(time.Second), Holder: 11, BlockedBy: []int64{10}},
		{Key: "1/2", Key1: ptr(1), Key2: ptr(2), Database: "app", Mode: "exclusive", Level: "transaction", Granted: true, Holder: 0},
		{Key: "7", Database: "app", Mode: "exclusive", Granted: true, Holder: 20},
		{Key: "8", Database: "app", Mode: "exclusive", Granted: true, Holder: 21},
		{Key: "7", Database: "app", Mode: "exclusive", WaitStart: t0, Holder: 21, BlockedBy: []int64{20}},
		{Key: "8", Database: "app", Mode: "exclusive", WaitStart: t0, Holder: 20, BlockedBy: []int64{21}},
	}, Backends: map[int64]dbview.Backend{
		10: {ID: 10, ClientAddr: "10.0.0.1:5000", State: "idle in transaction", BackendStart: t0.Add(-time.Hour), XactStart: t0, StateChange: t0.Add(time.Minute)},
		11: {ID: 11, ClientAddr: "10.0.0.2:5000", State: "active", QueryStart: t0},
		12: {ID: 12, ClientAddr: "[local]", State: "active", QueryStart: t0},
		20: {ID: 20, State: "active"}, 21: {ID: 21, State: "active"},
	}}
}

func TestDecodeOrderAndFields(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	qs := Decode(snapshot(t0))
	var paths []string
	for _, q := range qs {
		paths = append(paths, q.Path)
	}
	if got := strings.Join(paths, " "); got != "app/1/2 app/42 app/7 app/8" {
		t.Fatalf("paths %s", got)
	}
	q := qs[1]
	var got []string
	for _, p := range q.Participants {
		got = append(got, strings.Join([]string{string(p.State), string(p.Mode), p.Client, p.Watches}, " "))
	}
	want := []string{"holding exclusive 10.0.0.1:5000 ", "waiting shared 10.0.0.2:5000 10", "waiting exclusive [local] 10,11"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("42's queue: %q, want %q", got, want)
	}
	if h := q.Participants[0]; h.Session != 10 || !h.Ctime.Equal(t0.Add(-time.Hour)) || h.DB.Level != "" || h.Position != 0 {
		t.Errorf("holder: %+v %+v", h, h.DB)
	}
	if w := q.Participants[1]; !w.Ctime.Equal(t0.Add(time.Second)) || w.WatchKind != lockops.WatchBackends || w.Position != 1 {
		t.Errorf("first waiter: %+v", w)
	}
	if p := qs[0].Participants[0]; !p.DB.NoBackend || p.Session != 0 || p.DB.Level != "transaction" {
		t.Errorf("prepared transaction's hold: %+v %+v", p, p.DB)
	}
}

func TestDiagnose(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	qs := Locks(snapshot(t0), DiagnoseOptions{})
	kinds := map[string][]string{}
	for _, q := range qs {
		for _, pr := range q.Problems {
			kinds[q.Path] = append(kinds[q.Path], string(pr.Kind))
		}
	}
	want := map[string]string{
		"app/1/2": "holder-client-gone",
		"app/42":  "idle-in-transaction waiting-too-long waiting-too-long", // idle 1m > 30s; waits of 1m58s, 1m59s
		"app/7":   "waiting-too-long session-deadlock",
		"app/8":   "waiting-too-long session-deadlock",
	}
	for path, w := range want {
		if got := strings.Join(kinds[path], " "); got != w {
			t.Errorf("%s: %q, want %q", path, got, w)
		}
	}
	for _, pr := range qs[2].Problems {
		if pr.Kind == lockops.ProblemSessionDeadlock && !strings.Contains(pr.Detail, "backends 20 → 21 → 20") {
			t.Errorf("cycle: %s", pr.Detail)
		}
	}
	qs = Locks(snapshot(t0), DiagnoseOptions{IdleLongerThan: 2 * time.Minute, WaitLongerThan: time.Hour, TxLongerThan: time.Minute})
	if got := qs[1].Problems; len(got) != 1 || got[0].Kind != lockops.ProblemLongTransaction || !strings.Contains(got[0].Detail, "the server does not say") {
		t.Errorf("with other bounds, 42: %+v", got)
	}
}

// TestJSONContract: the report of database locks keeps the `locks --json`
// contract (with a database participant's session, ctime and watches).
func TestJSONContract(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	s := snapshot(t0)
	b := s.Backends[10]
	b.Query, b.User, b.Application = "SELECT pg_advisory_lock(42) -- \x1b[31m\u2028", "app", "jobs"
	s.Backends[10] = b
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, []string{"127.0.0.1:5432/app"}, Locks(s, DiagnoseOptions{})); err != nil {
		t.Fatal(err)
	}
	doc, err := contracttest.DecodeReport(buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	contracttest.Check(t, doc)
	p := doc.Objs("locks")[1].Objs("participants")[0]
	if p.Str("session") != "10" || p.Str("node") != "42" || p.Str("ctime") != "2026-12-02T09:00:00.000Z" || !p.IsNull("level") {
		t.Errorf("holder of 42: %v", p)
	}
	if w := doc.Objs("locks")[1].Objs("participants")[2]; w.Str("watches") != "10,11" || w.Str("watch_kind") != "backends" {
		t.Errorf("last waiter of 42: %v", w)
	}
}
