package sessions

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/themes"
)

var at = time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)

func styles(t *testing.T) *themes.Styles {
	t.Helper()
	p, err := themes.Pick("dark", true, false)
	if err != nil {
		t.Fatal(err)
	}
	s := themes.New(p)
	return &s
}

// fixture is a kazoo holder of /locks/a waiting on /locks/b, a Curator
// holder of /locks/b waiting on /locks/a, an idle session and ours.
func fixture() []diagnose.Session {
	lock := func(dir, node string, kind lockops.Kind, ago time.Duration) diagnose.SessionLock {
		return diagnose.SessionLock{Lock: dir, Kind: kind, Node: dir + "/" + node, Mode: lockops.ModeExclusive, Since: at.Add(-ago)}
	}
	base := func(id int64, client string, est time.Duration, lop string) diagnose.Session {
		return diagnose.Session{ID: id, Client: client, Member: "127.0.0.1:2181", Timeout: 10 * time.Second,
			Established: at.Add(-est), LastOp: lop, Received: 40, Sent: 41, EphemeralsKnown: true,
			ConnectedToSome: true, ConnectionsKnown: true}
	}
	k := base(0x100000a2b0001, "127.0.0.1:50112", time.Hour, "PING")
	k.Holds = []diagnose.SessionLock{lock("/locks/a", "8b1e4f2a__lock__0000000000", lockops.KindKazooLock, 5*time.Minute)}
	k.WaitsOn = []diagnose.SessionLock{lock("/locks/b", "c1d0__lock__0000000001", lockops.KindKazooLock, 4*time.Minute)}
	k.Ephemerals = []string{k.Holds[0].Node, k.WaitsOn[0].Node}
	c := base(0x100000a2b0002, "127.0.0.1:50114", 2*time.Hour, "GETD")
	c.Holds = []diagnose.SessionLock{lock("/locks/b", "_c_77-lock-0000000000", lockops.KindCuratorMutex, 6*time.Minute)}
	c.WaitsOn = []diagnose.SessionLock{lock("/locks/a", "_c_78-lock-0000000001", lockops.KindCuratorMutex, 4*time.Minute)}
	idle := base(0x100000a2b0003, "10.1.2.3:40000", 3*time.Hour, "PING")
	ours := base(0x100000a2b0004, "127.0.0.1:50200", time.Second, "GETC")
	ours.Ours = true
	return []diagnose.Session{idle, c, ours, k}
}

func view(t *testing.T, m Model) string {
	t.Helper()
	out := ansi.Strip(m.View())
	for i, l := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(l); w > m.w {
			t.Errorf("line %d is %d wide: %q", i, w, l)
		}
	}
	return out
}

func TestSessionsView(t *testing.T) {
	m := New(styles(t))
	m.SetSize(130, 16)
	if !strings.Contains(view(t, m), "asking the members") {
		t.Error("no waiting line before the first result")
	}
	m.SetSessions(fixture(), "/locks", at)
	m.SetNotes(map[int64]string{0x100000a2b0001: "answers only pings"})
	golden.RequireEqual(t, view(t, m))
}

// TestSortFilterSelect cycles the sort key, filters, and walks the rows:
// the cursor stays on its row through a refresh and a re-sort.
func TestSortFilterSelect(t *testing.T) {
	m := New(styles(t))
	m.SetSize(130, 20)
	m.SetSessions(fixture(), "/locks", at)
	s, l, ok := m.Selected()
	if !ok || l != nil || s.ID != 0x100000a2b0001 {
		t.Fatalf("first row by locks: %x %v", s.ID, l)
	}
	m.Move(1)
	if s, l, _ := m.Selected(); l == nil || l.Lock != "/locks/a" || s.ID != 0x100000a2b0001 {
		t.Fatalf("second row: %v", l)
	}
	m.SetSessions(fixture(), "/locks", at.Add(time.Second))
	if _, l, _ := m.Selected(); l == nil || l.Lock != "/locks/a" {
		t.Fatalf("a refresh moved the cursor: %v", l)
	}
	if k := m.CycleSort(); k != SortID {
		t.Fatalf("next sort key %v", k)
	}
	if _, l, _ := m.Selected(); l == nil || l.Lock != "/locks/a" {
		t.Fatalf("sorting moved the cursor off its row: %v", l)
	}
	m.Top()
	if s, _, _ := m.Selected(); s.ID != 0x100000a2b0001 {
		t.Fatalf("by id, first %x", s.ID)
	}
	m.CycleSort() // age: oldest first
	m.Top()
	if s, _, _ := m.Selected(); s.ID != 0x100000a2b0003 {
		t.Fatalf("by age, first %x", s.ID)
	}
	m.SetFilter("_c_")
	if out := view(t, m); strings.Contains(out, "10.1.2.3") || !strings.Contains(out, "127.0.0.1:50114") {
		t.Errorf("filter _c_:\n%s", out)
	}
	if !m.Focus(0x100000a2b0003) || m.Filter() != "" {
		t.Errorf("Focus on a filtered-out session kept the filter %q", m.Filter())
	}
	if s, l, _ := m.Selected(); s.ID != 0x100000a2b0003 || l != nil {
		t.Errorf("focused %x %v", s.ID, l)
	}
	if m.Focus(0x42) {
		t.Error("Focus found an unknown session")
	}
	m.SetFilter("nothing-like-this")
	if !strings.Contains(view(t, m), "no session matches") {
		t.Error("empty filter result not said")
	}
}

// TestWatchOnlyWait: a wait by watch alone (no node, no time the servers
// keep) names the node it watches and, from the next refresh on, how long
// the view has seen it waiting; another root starts over.
func TestWatchOnlyWait(t *testing.T) {
	m := New(styles(t))
	m.SetSize(130, 12)
	w := diagnose.Session{ID: 0x7, Client: "127.0.0.1:6000", Member: "127.0.0.1:2181", ConnectedToSome: true, ConnectionsKnown: true,
		WaitsOn: []diagnose.SessionLock{{Lock: "/app/leader", Kind: lockops.KindEphemeralLock, Node: "/app/leader", Mode: lockops.ModeExclusive, WatchOnly: true}}}
	m.SetSessions([]diagnose.Session{w}, "/app", at)
	if out := view(t, m); !strings.Contains(out, "waits on /app/leader  zookeeper.ephemeral-lock exclusive  watching /app/leader (owns no node)") || strings.Contains(out, "seen waiting") {
		t.Errorf("first refresh:\n%s", out)
	}
	m.SetSessions([]diagnose.Session{w}, "/app", at.Add(30*time.Second))
	if out := view(t, m); !strings.Contains(out, "(owns no node), seen waiting for 30s") {
		t.Errorf("second refresh:\n%s", out)
	}
	m.SetSessions([]diagnose.Session{w}, "/", at.Add(40*time.Second))
	if out := view(t, m); strings.Contains(out, "seen waiting") {
		t.Errorf("another root kept the times:\n%s", out)
	}
}

// TestSessionsFitWidth: at 120 columns, with the widths a real demo
// server shows (our session marked, a member's address, thousands of
// packets, Curator's long node names), the header is whole, no row is
// cut, and a lock's line ends with how long.
func TestSessionsFitWidth(t *testing.T) {
	var ss []diagnose.Session
	for i, name := range []string{"_c_ea2cbf23-fba3-4430-99a3-eb317e02c5a4-lock-0000000104", "_c_13b92084-49a0-486e-abbb-b24bf7d24bdf-__READ__0000000042"} {
		s := diagnose.Session{ID: 0x100000483930001 + int64(i), Client: "127.0.0.1:58436", Member: "127.0.0.1:44339", Timeout: 10 * time.Second,
			Established: at.Add(-6 * time.Minute), LastOp: "EXIS", Received: 18260, Sent: 20120, EphemeralsKnown: true,
			ConnectedToSome: true, ConnectionsKnown: true}
		l := diagnose.SessionLock{Lock: "/app/locks/curator-mutex", Kind: lockops.KindCuratorMutex, Node: "/app/locks/curator-mutex/" + name, Mode: lockops.ModeExclusive, Since: at.Add(-75 * time.Second)}
		if i == 0 {
			s.Ours = true
			s.Holds = []diagnose.SessionLock{l}
		} else {
			s.WaitsOn = []diagnose.SessionLock{l}
		}
		s.Ephemerals = []string{l.Node}
		ss = append(ss, s)
	}
	m := New(styles(t))
	m.SetSize(120, 10)
	m.SetSessions(ss, "/", at)
	out := view(t, m)
	lines := strings.Split(out, "\n")
	if !strings.HasSuffix(strings.TrimRight(strings.Trim(lines[1], "│"), " "), "WAITS") {
		t.Errorf("the header is cut: %q", lines[1])
	}
	for _, l := range lines[1:] {
		if strings.Contains(l, "…") && !strings.Contains(l, "_c_") {
			t.Errorf("a row is cut: %q", l)
		}
		if strings.Contains(l, "/app/locks/curator-mutex") && !strings.Contains(l, "for 1m15s") && !strings.Contains(l, "1m15s") {
			t.Errorf("a lock's line does not say how long: %q", l)
		}
	}
	golden.RequireEqual(t, out)
}
