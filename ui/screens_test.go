package ui

import (
	"github.com/zkscope/zkscope/zkview/fourlw"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
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
		Srvr: fourlw.Srvr{LatencyAvg: 0.5, LatencyMax: 3, Connections: 2, NodeCount: 42},
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

// sessionsFixture is a kazoo holder of /app/locks waiting on /app/jobs and
// an idle session.
func sessionsFixture() []diagnose.Session {
	lock := func(dir, name string, ago time.Duration) diagnose.SessionLock {
		return diagnose.SessionLock{Lock: dir, Kind: lockops.KindKazooLock, Node: dir + "/" + name, Mode: lockops.ModeExclusive, Since: fixedTime.Add(-ago)}
	}
	k := diagnose.Session{ID: 0x1000abcdef00007, Client: "127.0.0.1:50112", Member: "127.0.0.1:2181", Timeout: 10 * time.Second,
		Established: fixedTime.Add(-time.Hour), LastOp: "PING", Received: 7, Sent: 7, EphemeralsKnown: true,
		Holds:   []diagnose.SessionLock{lock("/app/locks", "ab__lock__0000000003", 3*time.Minute)},
		WaitsOn: []diagnose.SessionLock{lock("/app/jobs", "cd__lock__0000000001", time.Minute)}}
	idle := diagnose.Session{ID: 0x1000abcdef00009, Client: "10.0.0.9:4000", Member: "127.0.0.1:2181", Timeout: 10 * time.Second,
		Established: fixedTime.Add(-2 * time.Hour), LastOp: "GETD", EphemeralsKnown: true}
	return []diagnose.Session{idle, k}
}

// TestSessionsScreen opens `:sessions /app`, drops a stale read, draws
// the view, sorts, filters, and goes from a lock to the tree with the
// node selected in the lock pane.
func TestSessionsScreen(t *testing.T) {
	m := fixture(t, 120, 24, "dark")
	m = pressKeys(t, typeKeys(t, pressKeys(t, m, ":"), "sessions /app"), "enter")
	if m.screen != screenSessions || m.sessRoot != "/app" {
		t.Fatalf("screen %v root %q after :sessions /app", m.screen, m.sessRoot)
	}
	stale := m.nextID("sessions-view")
	id := m.nextID("sessions-view")
	m = step(t, m, sessionsViewMsg{id: stale, root: "/app", ss: sessionsFixture()[:1], at: fixedTime})
	if m.sessView.Loaded() {
		t.Fatal("a stale read was shown")
	}
	m = step(t, m, sessionsViewMsg{id: id, root: "/app", ss: sessionsFixture(), at: fixedTime, ens: &zkview.Ensemble{At: fixedTime}})
	out := screen(m)
	checkSize(t, out, 120, 24)
	golden.RequireEqual(t, out)

	m = pressKeys(t, m, "s") // by id
	if s, _, _ := m.sessView.Selected(); s.ID != 0x1000abcdef00007 {
		t.Errorf("cursor left its session on sorting: %x", s.ID)
	}
	m = typeKeys(t, pressKeys(t, m, "/"), "10.0.0.9")
	if m.mode != modeFilter || m.sessView.Filter() != "10.0.0.9" || strings.Contains(screen(m), "127.0.0.1:50112") {
		t.Fatalf("filter %q:\n%s", m.sessView.Filter(), screen(m))
	}
	m = pressKeys(t, m, "esc")
	if m.sessView.Filter() != "" || m.screen != screenSessions {
		t.Fatalf("esc in the filter: filter %q screen %v", m.sessView.Filter(), m.screen)
	}
	m.sessView.Focus(0x1000abcdef00007)
	m = pressKeys(t, m, "down", "down", "enter") // waits on /app/jobs
	if m.screen != screenTree || m.focus != focusDetail || m.lock.SelectNodePending() != "/app/jobs/cd__lock__0000000001" {
		t.Errorf("enter on a lock: screen %v focus %v pending %q", m.screen, m.focus, m.lock.SelectNodePending())
	}
}

// TestLockPaneJumpsToSession: S on a participant of the lock pane opens
// the session view on its session.
func TestLockPaneJumpsToSession(t *testing.T) {
	m := fixture(t, 120, 24, "dark")
	m.detail.SetLock(true)
	q := lockops.Queue{Path: "/app/locks", Kind: lockops.KindKazooLock, Participants: []lockops.Participant{
		{Node: "/app/locks/ab__lock__0000000003", Name: "ab__lock__0000000003", Ephemeral: true, Mode: lockops.ModeExclusive,
			State: lockops.StateHolding, Session: 0x1000abcdef00007, Ctime: fixedTime.Add(-time.Minute)}}}
	m.lock.SetQueueAt(q, fixedTime)
	m = pressKeys(t, m, "S")
	if m.screen != screenSessions || m.sessFocus != 0x1000abcdef00007 {
		t.Fatalf("S: screen %v focus %x", m.screen, m.sessFocus)
	}
	m = step(t, m, sessionsViewMsg{id: m.nextID("sessions-view"), root: "/", ss: sessionsFixture(), at: fixedTime, ens: &zkview.Ensemble{At: fixedTime}})
	if s, l, _ := m.sessView.Selected(); s.ID != 0x1000abcdef00007 || l != nil {
		t.Errorf("selected %x %v", s.ID, l)
	}
}

// TestScreenKeyHelp: the ensemble and session views' footers and `?`
// screens show their own keys, not the tree's.
func TestScreenKeyHelp(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"ensemble", []string{"ask the members now", "back to the tree"}},
		{"sessions", []string{"go to the lock", "sort", "clear filter / back"}},
	} {
		m := fixture(t, 120, 40, "dark")
		m = pressKeys(t, typeKeys(t, pressKeys(t, m, ":"), c.cmd), "enter")
		foot := screen(m)
		m = pressKeys(t, m, "?")
		help := screen(m)
		for _, w := range c.want {
			if !strings.Contains(foot, w) || !strings.Contains(help, w) {
				t.Errorf(":%s: %q missing from the footer or the help:\n%s\n%s", c.cmd, w, foot, help)
			}
		}
		for _, tree := range []string{"expand", "new child", "delete tree"} {
			if strings.Contains(foot, tree) || strings.Contains(help, tree) {
				t.Errorf(":%s shows the tree's key %q:\n%s\n%s", c.cmd, tree, foot, help)
			}
		}
	}
}
