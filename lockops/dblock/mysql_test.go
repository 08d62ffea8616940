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

// TestMySQLDiagnose: GET_LOCK holders idle (Sleep) past the bound are
// idle-in-transaction with an InnoDB transaction open, holder-idle
// without; a busy holder and a short sleep are not problems; a waiter
// with no lock name is in no queue but among UnknownWaiters.
func TestMySQLDiagnose(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	row := func(key string, id int64, granted bool) dbview.LockRow {
		return dbview.LockRow{Key: key, Mode: "exclusive", Level: "session", Granted: granted, Holder: id}
	}
	s := &dbview.Snapshot{At: now, Kind: dbview.KindMySQL, Rows: []dbview.LockRow{
		row("tx", 1, true), row("idle", 2, true), row("busy", 3, true), row("short", 4, true), row("", 5, false),
		{Key: "tx", Mode: "exclusive", Level: "session", Holder: 6, WaitStart: ago(10 * time.Second), BlockedBy: []int64{1}},
	}, Backends: map[int64]dbview.Backend{
		1: {ID: 1, User: "app", ClientAddr: "10.0.0.1:4000", State: "Sleep", StateChange: ago(time.Minute), XactStart: ago(2 * time.Minute)},
		2: {ID: 2, User: "app", ClientAddr: "10.0.0.2:4000", State: "Sleep", StateChange: ago(time.Minute)},
		3: {ID: 3, State: "Query: executing", StateChange: ago(time.Hour)},
		4: {ID: 4, State: "Sleep", StateChange: ago(time.Second)},
		5: {ID: 5, State: "Query: User lock", Query: "DO GET_LOCK(CONCAT('a','b'), 9)"},
		6: {ID: 6, ClientAddr: "10.0.0.6:4000", State: "Query: User lock", Query: "SELECT GET_LOCK('tx', 60)", StateChange: ago(10 * time.Second)},
	}}
	qs := Locks(s, DiagnoseOptions{IdleLongerThan: 30 * time.Second})
	got := map[string]string{}
	for _, q := range qs {
		if q.Path == "" {
			t.Errorf("a queue without a name: %+v", q)
		}
		for _, pr := range q.Problems {
			got[q.Path] += string(pr.Kind) + ": " + pr.Detail
		}
	}
	if len(qs) != 4 {
		t.Errorf("%d queues, want 4", len(qs))
	}
	if !strings.HasPrefix(got["tx"], string(lockops.ProblemIdleInTransaction)+": holder connection 1 (app, 10.0.0.1:4000)") ||
		!strings.HasPrefix(got["idle"], string(lockops.ProblemHolderIdle)+": holder connection 2") ||
		got["busy"] != "" || got["short"] != "" {
		t.Errorf("problems: %q", got)
	}
	if lockops.ProblemHolderIdle.Severity() != lockops.SeverityWarning {
		t.Errorf("holder-idle is %v", lockops.ProblemHolderIdle.Severity())
	}
	if u := UnknownWaiters(s); len(u) != 1 || u[0] != 5 {
		t.Errorf("UnknownWaiters = %v, want [5]", u)
	}
	var buf bytes.Buffer // mysql.get_lock keeps the locks --json contract
	if err := report.WriteJSON(&buf, []string{"127.0.0.1:3306"}, qs); err != nil {
		t.Fatal(err)
	}
	doc, err := contracttest.DecodeReport(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	contracttest.Check(t, doc)
}
