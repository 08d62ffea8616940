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

// TestTimelineEscapesServerText draws the timeline (the strip's legend
// and a past state) of a lock whose nodes' names and data hold control
// and bidi characters: none reaches the frame. The data holds no ESC, so
// every SGR sequence in the frame is the pane's own styling and is taken
// out before the check.
func TestTimelineEscapesServerText(t *testing.T) {
	const bad = "\x1a[41m \u009b2J \u202eevil \xff\x07"
	p := testPane(themes.Dark, 100, 24)
	p.resetDir(lockDir)
	p.visible = true
	p.client = &zkview.Client{} // commands are built, never run
	for i := range 2 {
		q := handOver(i)
		for j := range q.Participants {
			x := &q.Participants[j]
			x.Data = []byte(bad)
			x.Name = bad + x.Name
			if x.Watches != "" {
				x.Watches = lockDir + "/" + bad
			}
		}
		at := lockT0.Add(time.Duration(i) * 10 * time.Second)
		p.clock = func() time.Time { return at }
		readAt(p, q, at)
	}
	press(p, "T")
	press(p, "[")
	sgr := regexp.MustCompile("\x1b\\[[0-9;:]*m")
	out := sgr.ReplaceAllString(p.View(), "")
	for i, l := range strings.Split(out, "\n") {
		if !printable.Clean(l) {
			t.Errorf("line %d holds text to escape: %q", i, l)
		}
	}
	if !strings.Contains(out, `\u202eevil`) {
		t.Errorf("the data is not shown escaped:\n%s", out)
	}
}
