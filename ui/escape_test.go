package ui

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/tree"
)

// issueData is the node data of issue 22: a window title change, a red
// background and a reset.
const issueData = "hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end"

// withNode adds a node below /app to the fixture's tree, with data.
func withNode(t testing.TB, m Model, name string, data []byte) Model {
	t.Helper()
	m.tree.Opened(tree.Listing{Path: "/app", Names: []string{"blob", "config", "jobs", "locks", "services", "session", "zipped", name}, Stat: stat(2, 0, 8, 0)})
	m.tree.SetNodes(common.Node{Path: "/app/" + name, Data: data, HasStat: true, Stat: stat(40, int32(len(data)), 0, 0)})
	return m
}

// TestViewerModeStickyDoesNotPassData is issue 22's scenario: the json
// viewer chosen on one node, the cursor moved onto a node whose data is
// escape sequences. The json viewer falls back to text and must show
// them escaped, not hand them to the terminal (the raw frame is checked,
// styles and all).
func TestViewerModeStickyDoesNotPassData(t *testing.T) {
	m := withNode(t, fixture(t, 100, 30, "dark"), "evil", []byte(issueData))
	m = pressKeys(t, cdLocal(t, m, "/app/config"), "v", "v") // auto → text → json
	m = cdLocal(t, m, "/app/evil")
	if m.detail.Viewer().String() != "json" {
		t.Fatalf("viewer %s, want json (kept across nodes)", m.detail.Viewer())
	}
	raw := m.View().Content
	for _, bad := range []string{"\x1b]2;", "\x07", "\x1b[41m", "\x1b[0m end"} {
		if strings.Contains(raw, bad) {
			t.Errorf("the frame holds %q from the node's data", bad)
		}
	}
	out := screen(m)
	if !strings.Contains(out, "(not valid JSON; shown as text)") || !strings.Contains(out, `hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end`) {
		t.Errorf("the data is not shown escaped:\n%s", out)
	}
}

// blob is 1 MB of random bytes, the same on every run.
func blob() []byte {
	r := rand.New(rand.NewPCG(22, 1))
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestBlobInEveryViewer draws a 1 MB random node in each data viewer:
// the frame keeps its size and both panes their borders on every line
// (issue 22: borders lost, lines repeated), its golden is the visible
// frame.
func TestBlobInEveryViewer(t *testing.T) {
	const w, h = 100, 30
	m := cdLocal(t, withNode(t, fixture(t, w, h, "dark"), "blob1m", blob()), "/app/blob1m")
	for range 5 {
		name := m.detail.Viewer().String()
		t.Run(name, func(t *testing.T) {
			out := screen(m)
			checkSize(t, out, w, h)
			lines := strings.Split(out, "\n")
			for i := bodyTop; i < h-2; i++ {
				if lw := ansi.StringWidth(lines[i]); lw != w || !strings.ContainsAny(lines[i][len(lines[i])-3:], "│╮╯") {
					t.Errorf("line %d (%d cells) lost the pane's border: %q", i, lw, lines[i])
				}
			}
			golden.RequireEqual(t, out)
		})
		m = pressKeys(t, m, "v")
	}
}
