package lockpane

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/zkview"
)

// timelineBad is a name and data holding control, C1, bidi and invalid
// bytes, but no ESC (see drawTimeline).
const timelineBad = "\x1a[41m \u009b2J \u202eevil \xff\x07"

// TestTimelineEscapesServerText draws the timeline (the strip's legend
// and a past state) of a lock whose nodes' names and data hold control
// and bidi characters: none reaches the frame, and the data is shown
// escaped.
func TestTimelineEscapesServerText(t *testing.T) {
	if out := drawTimeline(t, timelineBad, []byte(timelineBad)); !strings.Contains(out, `\u202eevil`) {
		t.Errorf("the data is not shown escaped:\n%s", out)
	}
}

// FuzzTimelineEscapesServerText draws the lock pane's history over a
// name and data from a server: the timeline's strip and legend, each past
// state ([ and ]), the live queue and the problems dialog (⏎ or i). The
// timeline is the pane's own (the states its reads kept, or a
// transaction log's replay drawn the same way), which the root model's
// FuzzServerTextEscaped cannot feed.
func FuzzTimelineEscapesServerText(f *testing.F) {
	for _, s := range []string{timelineBad, "\x9b31m", "\u2066x\u2069\u200b", "tab\tnew\nline\rcr\x7f", strings.Repeat("long-", 60)} {
		f.Add(s, []byte(s))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		drawTimeline(t, name, data)
	})
}

// sgr is one SGR sequence: the pane's own styling.
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// drawTimeline reads two states of a lock whose participants' names, data
// and watch targets hold name and data, then draws the timeline, its past
// states, the live queue and the problems dialog; it fails when a line of
// any frame holds text to escape, and returns the frames. The frames are
// styled: every SGR sequence is taken out before the check, and to keep
// that sound ESC in name and data is replaced by SUB (0x1a), another C0
// control escaped the same way, so a SUB in a frame is a leak.
func drawTimeline(t *testing.T, name string, data []byte) string {
	t.Helper()
	name = strings.ReplaceAll(strings.ReplaceAll(name, "\x1b", "\x1a"), "/", "_")
	data = []byte(strings.ReplaceAll(string(data), "\x1b", "\x1a"))
	p := testPane(themes.Dark, 100, 24)
	p.resetDir(lockDir)
	p.visible = true
	p.client = &zkview.Client{} // commands are built, never run
	for i := range 2 {
		q := handOver(i)
		for j := range q.Participants {
			x := &q.Participants[j]
			x.Data = data
			x.Name = name + x.Name
			x.Node = lockDir + "/" + x.Name
			if x.Watches != "" {
				x.Watches = lockDir + "/" + name
			}
		}
		if i == 1 {
			q.Problems = append(q.Problems, mutexQueue().Problems[0])
			q.Problems[0].Node, q.Problems[0].Detail = q.Participants[1].Node, name+" "+string(data)
		}
		at := lockT0.Add(time.Duration(i) * 10 * time.Second)
		p.clock = func() time.Time { return at }
		readAt(p, q, at)
	}
	var frames []string
	check := func(what, frame string) {
		frame = sgr.ReplaceAllString(frame, "")
		for i, l := range strings.Split(frame, "\n") {
			if !printable.Clean(l) {
				t.Fatalf("%s: line %d holds text to escape: %q", what, i, l)
			}
		}
		frames = append(frames, frame)
	}
	check("live queue", p.View())
	press(p, "T")
	check("timeline", p.View())
	for _, k := range []string{"[", "[", "]"} {
		press(p, k)
		check("timeline "+k, p.View())
	}
	press(p, "T")
	press(p, "j")
	press(p, "enter") // the selected node's problems in full (i from the tree)
	d := p.dialogs.Front()
	if d == nil {
		t.Fatal("⏎ on a node with a problem opened no dialog")
	}
	check("problems dialog", d.View(60))
	return strings.Join(frames, "\n")
}
