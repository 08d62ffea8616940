package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
)

// TestSessionsTableAligned: the session rows stay aligned in columns
// across the lock lines between them, and a wait by watch alone says
// which node it watches instead of a time.
func TestSessionsTableAligned(t *testing.T) {
	now := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	lock := diagnose.SessionLock{Lock: "/app/l", Kind: lockops.KindKazooLock, Node: "/app/l/x__lock__0000000000", Mode: lockops.ModeExclusive, Since: now.Add(-time.Minute)}
	watch := diagnose.SessionLock{Lock: "/app/leader", Kind: lockops.KindEphemeralLock, Node: "/app/leader", Mode: lockops.ModeExclusive, WatchOnly: true}
	ss := []diagnose.Session{
		{ID: 0x1, Client: "127.0.0.1:1", Member: "m:2181", Holds: []diagnose.SessionLock{lock}},
		{ID: 0x100000000000002, Client: "10.0.0.1:50000", Member: "m:2181", WaitsOn: []diagnose.SessionLock{watch}},
	}
	var b bytes.Buffer
	if err := WriteSessionsTable(&b, ss, now); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("table:\n%s", b.String())
	}
	col := strings.Index(lines[0], "CLIENT")
	for _, i := range []int{1, 3} {
		if got := strings.Index(lines[i], "127.0.0.1:1"); i == 1 && got != col {
			t.Errorf("row %d: client at %d, header at %d:\n%s", i, got, col, b.String())
		}
		if got := strings.Index(lines[i], "10.0.0.1"); i == 3 && got != col {
			t.Errorf("row %d: client at %d, header at %d:\n%s", i, got, col, b.String())
		}
	}
	if !strings.Contains(lines[2], "holds /app/l (exclusive), node age 1m") || !strings.Contains(lines[4], "waits on /app/leader (exclusive) watching /app/leader (owns no node") {
		t.Errorf("lock lines:\n%s", b.String())
	}

	b.Reset()
	if err := WriteSessionsJSON(&b, nil, "/app", ss, now); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sessions []struct {
			WaitsOn []map[string]any `json:"waits_on"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	w := doc.Sessions[1].WaitsOn[0]
	if w["own_node"] != false || w["ctime"] != nil || w["seconds"] != nil || w["node"] != "/app/leader" {
		t.Errorf("a wait by watch: %v", w)
	}
}
