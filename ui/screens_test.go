package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/zkscope/zkscope/zkview"
)

// TestEnsembleScreen opens `:ensemble`, feeds it a snapshot (a stale one
// is dropped), draws it, and goes back to the tree with esc.
func TestEnsembleScreen(t *testing.T) {
	m := fixture(t, 100, 24, "dark")
	m = typeKeys(t, pressKeys(t, m, ":"), "ensemble")
	m = pressKeys(t, m, "enter")
	if m.screen != screenEnsemble {
		t.Fatalf("screen %v after :ensemble", m.screen)
	}
	stale := m.nextID("ensemble-view")
	id := m.nextID("ensemble-view")
	mem := zkview.Member{Addr: "127.0.0.1:2181", Mode: "standalone", Version: "3.8.0-x, built on y", Zxid: 0x100000002,
		Srvr: zkview.Srvr{LatencyAvg: 0.5, LatencyMax: 3, Connections: 2, NodeCount: 42},
		Via:  map[string]string{"srvr": "4lw", "cons": "4lw"}, Errs: map[string]error{}}
	m = step(t, m, ensembleViewMsg{id: stale, ens: &zkview.Ensemble{At: fixedTime, Members: []zkview.Member{{Addr: "stale:1"}}}})
	if m.ensView.Loaded() {
		t.Fatal("a stale snapshot was shown")
	}
	m = step(t, m, ensembleViewMsg{id: id, ens: &zkview.Ensemble{At: fixedTime, Members: []zkview.Member{mem}}})
	out := screen(m)
	checkSize(t, out, 100, 24)
	if !strings.Contains(out, "standalone") || !strings.Contains(out, "0x100000002") {
		t.Errorf("screen:\n%s", out)
	}
	golden.RequireEqual(t, out)
	m = pressKeys(t, m, "esc")
	if m.screen != screenTree || !strings.Contains(screen(m), "app") {
		t.Errorf("esc did not go back to the tree")
	}
}
