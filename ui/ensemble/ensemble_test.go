package ensemble

import (
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/zkview/fourlw"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/zkview"
)

var at = time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)

// member is an answering member of a 3-member ensemble.
func member(id int64, mode string, zxid int64) zkview.Member {
	return zkview.Member{Addr: fmt.Sprintf("10.0.0.%d:2181", id), ID: id, Mode: mode, Version: "3.8.0-abc, built on 2024-12-29", Zxid: zxid,
		Srvr:      fourlw.Srvr{LatencyMin: 0, LatencyAvg: 1.5, LatencyMax: 12, Connections: 4, Outstanding: 0, NodeCount: 120},
		Mntr:      fourlw.Mntr{ApproximateDataSize: 20480, WatchCount: 9},
		Wchs:      fourlw.Wchs{Connections: 2, Paths: 3, Watches: 5},
		MntrKnown: true, ConfKnown: true, WchsKnown: true,
		Via:  map[string]string{"srvr": "4lw", "cons": "4lw", "wchp": "4lw", "dump": "4lw", "mntr": "4lw", "conf": "4lw", "wchs": "4lw"},
		Errs: map[string]error{}}
}

func styles(t *testing.T) *themes.Styles {
	t.Helper()
	p, err := themes.Pick("dark", true, false)
	if err != nil {
		t.Fatal(err)
	}
	s := themes.New(p)
	return &s
}

func snapshot(ms ...zkview.Member) *zkview.Ensemble {
	return &zkview.Ensemble{Members: ms, At: at}
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

// TestFailoverHighlighted draws one leader and two followers, then the
// leader down and a follower re-elected: both rows are marked and the
// changes listed.
func TestFailoverHighlighted(t *testing.T) {
	st := styles(t)
	m := New(st)
	m.SetSize(140, 16)
	if !strings.Contains(view(t, m), "asking the members") {
		t.Error("no waiting line before the first snapshot")
	}
	m.SetEnsemble(snapshot(member(1, "follower", 0x100000009), member(2, "leader", 0x100000009), member(3, "follower", 0x100000009)))
	t.Run("healthy", func(t *testing.T) { golden.RequireEqual(t, view(t, m)) })

	down := zkview.Member{Addr: "10.0.0.2:2181", Err: errors.New("srvr on 10.0.0.2:2181: connection refused")}
	next := snapshot(member(1, "follower", 0x200000000), down, member(3, "leader", 0x200000000))
	next.At = at.Add(3 * time.Second)
	m.SetEnsemble(next)
	out := view(t, m)
	for _, want := range []string{"10.0.0.2:2181 went down", "new leader: 10.0.0.3:2181", "◀ down", "◀ new leader"} {
		if !strings.Contains(out, want) {
			t.Errorf("view lacks %q:\n%s", want, out)
		}
	}
	t.Run("failover", func(t *testing.T) { golden.RequireEqual(t, out) })

	// The next quiet snapshot keeps the marks (until the member changes
	// again) but lists no new change.
	again := snapshot(member(1, "follower", 0x200000001), down, member(3, "leader", 0x200000001))
	again.At = at.Add(6 * time.Second)
	m.SetEnsemble(again)
	if got := strings.Count(view(t, m), "went down"); got != 1 {
		t.Errorf("the change is listed %d times", got)
	}
	back := member(2, "follower", 0x200000001)
	m.SetEnsemble(snapshot(member(1, "follower", 0x200000001), back, member(3, "leader", 0x200000001)))
	if out := view(t, m); strings.Contains(out, "◀ down") || !strings.Contains(out, "is back (follower)") {
		t.Errorf("member back:\n%s", out)
	}
}

// TestRefusedWords shows the zoo.cfg line when a member refuses words.
func TestRefusedWords(t *testing.T) {
	st := styles(t)
	m := New(st)
	m.SetSize(120, 12)
	mem := zkview.Member{Addr: "10.0.0.1:2181", Mode: "standalone", Via: map[string]string{"srvr": "4lw"},
		Errs: map[string]error{"cons": &fourlw.WordRefusedError{Addr: "10.0.0.1:2181", Word: "cons"}}}
	m.SetEnsemble(snapshot(mem))
	out := view(t, m)
	if !strings.Contains(out, "refused: cons") || !strings.Contains(out, zkview.WhitelistLine()) {
		t.Errorf("view:\n%s", out)
	}
}
