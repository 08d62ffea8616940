package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestEnsembleCommand runs `ensemble` and `ensemble --json` on the shared
// standalone server.
func TestEnsembleCommand(t *testing.T) {
	srv := zktest.Shared(t)
	out, err := run(t, "-s", srv.ConnectString(), "ensemble")
	if err != nil {
		t.Fatal(err, out)
	}
	for _, want := range []string{"MEMBER", srv.Addrs()[0], "standalone", "3.", "4lw"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	t.Logf("\n%s", out)
	out, err = run(t, "-s", srv.ConnectString(), "ensemble", "--json")
	if err != nil {
		t.Fatal(err, out)
	}
	var doc struct {
		Schema  int
		Leader  *string
		Members []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err, out)
	}
	if doc.Schema != 1 || doc.Leader == nil || len(doc.Members) != 1 || doc.Members[0]["role"] != "standalone" {
		t.Errorf("document: %s", out)
	}
	for _, k := range []string{"addr", "id", "role", "in_connect_string", "version", "zxid", "epoch", "latency_ms",
		"outstanding", "connections", "watches", "watches_all", "znodes", "data_size", "sessions", "answered", "refused", "fix", "error"} {
		if _, ok := doc.Members[0][k]; !ok {
			t.Errorf("member lacks %q", k)
		}
	}
}
