package root_test

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// hostileData is issue 22's node data (a window title change, a red
// background) with a C1 CSI and a bidi override after it.
const hostileData = "hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end \u009b2J \u202eevil"

// redBackground is a red background (SGR 41) in tmux's capture of a
// styled screen.
var redBackground = regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?41m`)

// TestServerTextEscapedEndToEnd puts escape sequences in a node's data
// and a lock holder's data on a real server, then reads them as an
// operator would: the real binary in tmux (the json viewer chosen on one
// node, the cursor moved onto the hostile one), and `locks` as a table
// and as JSON. The terminal's title must not change and no red
// background may appear; the data shows escaped.
func TestServerTextEscapedEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		zktest.Unavailable(t, "tmux is not installed")
	}
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	c := cmdtest.Dial(t, srv.ConnectString())
	for _, p := range []string{"/zkscope-test", base, base + "/locks", base + "/locks/deploy"} {
		if _, err := c.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && err != zk.ErrNodeExists {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	for p, data := range map[string]string{base + "/config": `{"replicas":3}`, base + "/evil": hostileData} {
		if _, err := c.Create(p, []byte(data), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	holder := base + "/locks/deploy/_c_6f1d2a40-94b7-4e0c-8a51-3c2d9e7b1f03-lock-0000000000"
	if _, err := c.Create(holder, []byte(hostileData), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	// locks: the table and the JSON document.
	out, err := cmdtest.Run(t, "-s", srv.ConnectString(), "locks", base+"/locks")
	if err != nil {
		t.Fatalf("locks: %v\n%s", err, out)
	}
	if strings.ContainsAny(out, "\x1b\x07\u009b\u202e") || !strings.Contains(out, `hello \x1b]2;PWNED\x07`) {
		t.Errorf("locks table:\n%q", out)
	}
	out, err = cmdtest.Run(t, "-s", srv.ConnectString(), "locks", base+"/locks", "--json")
	if err != nil {
		t.Fatalf("locks --json: %v\n%s", err, out)
	}
	var doc struct {
		Locks []struct {
			Participants []struct {
				Data string `json:"data"`
			} `json:"participants"`
		} `json:"locks"`
	}
	if strings.ContainsAny(out, "\x1b\x07\u009b\u202e") || json.Unmarshal([]byte(out), &doc) != nil ||
		len(doc.Locks) != 1 || len(doc.Locks[0].Participants) != 1 || doc.Locks[0].Participants[0].Data != hostileData {
		t.Errorf("locks --json: the data must come back whole through escapes:\n%q", out)
	}

	// The TUI on a real terminal.
	s := cmdtest.StartTmux(t, "esc", 120, 35, "-s "+srv.ConnectString())
	s.WaitFor("the first frame", cmdtest.Has("zkscope", "connected"))
	title := strings.TrimSpace(s.Tmux("display-message", "-p", "-t", s.Session, "#{pane_title}")) // zkscope's own

	s.Keys(":")
	s.Text("cd " + base + "/config")
	s.Keys("Enter")
	s.WaitFor("the config node", cmdtest.Has(`"replicas"`))
	s.Keys("v", "v") // auto → text → json, kept for the next node
	s.WaitFor("the json viewer", cmdtest.Has(`"replicas": 3`))
	s.Keys(":")
	s.Text("cd " + base + "/evil")
	s.Keys("Enter")
	s.WaitFor("the hostile data escaped", cmdtest.Has("(not valid JSON; shown as text)", `hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end \u009b2J \u202eevil`))
	if got := strings.TrimSpace(s.Tmux("display-message", "-p", "-t", s.Session, "#{pane_title}")); got != title {
		t.Errorf("the node's data retitled the terminal: %q (was %q)", got, title)
	}
	if styled := s.Tmux("capture-pane", "-e", "-p", "-t", s.Session); redBackground.MatchString(styled) {
		t.Errorf("the node's data turned the background red:\n%q", styled)
	}

	// The lock pane: the holder's data.
	s.Keys(":")
	s.Text("cd " + base + "/locks/deploy")
	s.Keys("Enter")
	s.WaitFor("the lock pane", cmdtest.Has("curator.mutex", "1 holding"))
	if got := strings.TrimSpace(s.Tmux("display-message", "-p", "-t", s.Session, "#{pane_title}")); got != title {
		t.Errorf("the holder's data retitled the terminal: %q (was %q)", got, title)
	}
	s.Keys("q")
}
