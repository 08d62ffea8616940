package ui

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/tree"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// The tests in this file build the model's state from plain values (no
// server): every screen is deterministic, so its text is a golden file.

var fixedTime = time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)

func stat(czxid int64, dataLen, kids int32, owner int64) zk.Stat {
	ms := fixedTime.UnixMilli()
	return zk.Stat{Czxid: czxid, Mzxid: czxid + 1, Pzxid: czxid + 2, Ctime: ms, Mtime: ms + 1500,
		Version: 2, Cversion: kids, DataLength: dataLen, NumChildren: kids, EphemeralOwner: owner}
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// fixture is a small tree: /app with config (JSON), a binary blob, a gzip
// node, services, a lock directory and an ephemeral node.
func fixture(t testing.TB, w, h int, theme string) Model {
	t.Helper()
	m := New(Options{Theme: theme, Context: "local"})
	m.now = func() time.Time { return fixedTime }
	m.state = zkview.ConnEvent{State: zkview.StateConnected, Server: "127.0.0.1:2181", SessionID: 0x1000abcdef00001}
	m.ens = &zkview.Ensemble{Members: []zkview.Member{{Addr: "127.0.0.1:2181", Mode: "standalone"}}}
	var services []string
	for i := range 40 {
		services = append(services, fmt.Sprintf("svc-%02d", i))
	}
	m.tree.Opened(
		tree.Listing{Path: "/", Names: []string{"app", "zookeeper"}, Stat: stat(0, 0, 2, 0)},
		tree.Listing{Path: "/app", Names: []string{"blob", "config", "jobs", "locks", "services", "session", "zipped"}, Stat: stat(2, 0, 7, 0)},
		tree.Listing{Path: "/app/services", Names: services, Stat: stat(9, 0, 40, 0)})
	config := []byte(`{"name":"billing","replicas":3,"features":{"beta":true,"limits":[1,2,3]}}`)
	blob := []byte{0x00, 0x01, 0x02, 0xff, 'z', 'k', 0x10, 0x20, 0x7f, 0x80, 'o', 'k', 0x00, 0x00, 0x0a, 0x0d, 0x1b, 0x41}
	zipped := gz("hello compressed world\n")
	add := func(p string, data []byte, kids int32, owner int64, cz int64) {
		m.tree.SetNodes(common.Node{Path: p, Data: data, HasStat: true, Stat: stat(cz, int32(len(data)), kids, owner)})
	}
	add("/", nil, 2, 0, 0)
	add("/zookeeper", nil, 2, 0, 0)
	add("/app", nil, 7, 0, 2)
	add("/app/blob", blob, 0, 0, 3)
	add("/app/config", config, 0, 0, 4)
	add("/app/jobs", nil, 2, 0, 5)
	add("/app/locks", nil, 3, 0, 6)
	add("/app/services", nil, 40, 0, 9)
	add("/app/session", []byte("worker-7"), 0, 0x1000abcdef00002, 10)
	add("/app/zipped", zipped, 0, 0, 11)
	for i, s := range services {
		add("/app/services/"+s, []byte(fmt.Sprintf("host-%d:8080", i)), 0, 0, int64(20+i))
	}
	m.tree.SetLock("/app/locks", tree.LockTag{Kind: "curator.mutex", Length: 3})
	m = step(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// step runs one message through Update (commands are not run: there is no
// server in these tests).
func step(t testing.TB, m Model, msg tea.Msg) Model {
	t.Helper()
	nm, _ := m.Update(msg)
	return nm.(Model)
}

func pressKeys(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		m = step(t, m, keyMsg(k))
	}
	return m
}

// keyMsg builds the key press a terminal sends for k ("j", "enter", "ctrl+c", "space").
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	if r >= 'A' && r <= 'Z' {
		return tea.KeyPressMsg{Code: r + ('a' - 'A'), ShiftedCode: r, Text: k, Mod: tea.ModShift}
	}
	return tea.KeyPressMsg{Code: r, Text: k}
}

func typeKeys(t testing.TB, m Model, s string) Model {
	for _, r := range s {
		m = step(t, m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return m
}

func screen(m Model) string { return ansi.Strip(m.View().Content) }

func TestGolden(t *testing.T) {
	screens := []struct {
		name string
		prep func(t testing.TB, m Model) Model
	}{
		{"tree_json", func(t testing.TB, m Model) Model { return cdLocal(t, m, "/app/config") }},
		{"hex", func(t testing.TB, m Model) Model { return cdLocal(t, m, "/app/blob") }},
		{"gzip", func(t testing.TB, m Model) Model { return cdLocal(t, m, "/app/zipped") }},
		{"ephemeral", func(t testing.TB, m Model) Model { return cdLocal(t, m, "/app/session") }},
		{"filter", func(t testing.TB, m Model) Model {
			m = cdLocal(t, m, "/app/services/svc-00")
			m = pressKeys(t, m, "/")
			return typeKeys(t, m, "s1")
		}},
		{"command", func(t testing.TB, m Model) Model {
			m = pressKeys(t, m, ":")
			return typeKeys(t, m, "cd /app/locks")
		}},
		{"delete", func(t testing.TB, m Model) Model { return pressKeys(t, cdLocal(t, m, "/app/config"), "d") }},
		{"delete_tree", func(t testing.TB, m Model) Model { return pressKeys(t, cdLocal(t, m, "/app/services"), "D") }},
		{"create", func(t testing.TB, m Model) Model {
			m = pressKeys(t, cdLocal(t, m, "/app"), "n")
			return typeKeys(t, m, "feature-flags")
		}},
		{"help", func(t testing.TB, m Model) Model { return pressKeys(t, m, "?") }},
		{"results", func(t testing.TB, m Model) Model {
			m.search = searchState{root: "/app", query: "svc-1", hits: []searchHit{{Path: "/app/services/svc-10"}, {Path: "/app/services/svc-11"}, {Path: "/app/config", InData: true}}}
			m.mode = modeResults
			return pressKeys(t, m, "j")
		}},
		{"scrolled", func(t testing.TB, m Model) Model {
			m = cdLocal(t, m, "/app/services/svc-00")
			return pressKeys(t, m, "pgdown", "j", "j")
		}},
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		for _, theme := range []string{"dark", "light"} {
			for _, s := range screens {
				t.Run(fmt.Sprintf("%s_%dx%d_%s", s.name, size.w, size.h, theme), func(t *testing.T) {
					m := s.prep(t, fixture(t, size.w, size.h, theme))
					out := screen(m)
					checkSize(t, out, size.w, size.h)
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

// checkSize asserts the screen fills exactly w×h cells (no wrapping line).
func checkSize(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("screen has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, lw, w, l)
		}
	}
}

// cdLocal moves the cursor to p within the fixture's already-open rows.
func cdLocal(t testing.TB, m Model, p string) Model {
	t.Helper()
	if !m.tree.CursorTo(p) {
		t.Fatalf("%s is not a row", p)
	}
	return step(t, m, nil)
}

func TestTooSmall(t *testing.T) {
	for _, s := range []struct{ w, h int }{{59, 24}, {80, 14}, {20, 5}} {
		m := fixture(t, s.w, s.h, "dark")
		if out := screen(m); !strings.HasPrefix(out, "Terminal too small") {
			t.Errorf("%dx%d: got %q", s.w, s.h, out)
		}
	}
	// The smallest supported size still draws everything in bounds.
	m := cdLocal(t, fixture(t, 60, 15, "dark"), "/app/config")
	checkSize(t, screen(m), 60, 15)
	golden.RequireEqual(t, screen(m))
}

func TestThemesRender(t *testing.T) {
	for _, theme := range []string{"high-contrast", "none"} {
		m := cdLocal(t, fixture(t, 100, 30, theme), "/app/config")
		checkSize(t, screen(m), 100, 30)
	}
	// NO_COLOR: no colour sequences at all.
	m := New(Options{NoColor: true, Theme: "dark"})
	m = step(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if out := m.View().Content; strings.Contains(out, "38;2;") || strings.Contains(out, "48;2;") {
		t.Errorf("NO_COLOR output has colour sequences")
	}
}
