package tui_test

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestTUITmuxEndToEnd runs the real binary in tmux against a real server
// with real kazoo contenders: expand, filter, open a lock, and watch the
// holder change when the holder releases.
func TestTUITmuxEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		zktest.Unavailable(t, "tmux is not installed")
	}
	// A server of its own: the tree it draws must not grow with what
	// other tests leave on a shared one.
	srv := zktest.StartStandalone(t, zktest.Options{})
	base := zktest.Path(t)
	c := cmdtest.Dial(t, srv.Addrs()[0])
	for _, p := range []string{"/zkscope-test", base, base + "/app", base + "/app/services", base + "/locks"} {
		if _, err := c.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && err != zk.ErrNodeExists {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	if _, err := c.Create(base+"/app/settings.json", []byte(`{"replicas":3}`), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := c.Create(fmt.Sprintf("%s/app/services/svc-%02d", base, i), []byte("up"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}

	lock := base + "/locks/deploy"
	peers := zktest.StartKazoo(t, srv.ConnectString())
	peers.Acquire(t, "alpha", "lock", lock)
	peers.Await(t, "alpha", "acquired")
	peers.Acquire(t, "beta", "lock", lock)
	deadline := time.Now().Add(15 * time.Second)
	for {
		kids, _, err := c.Children(lock)
		if err == nil && len(kids) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("beta never queued behind alpha (children %v, %v)", kids, err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	s := cmdtest.StartTmux(t, "e2e", 120, 35, "-s "+srv.ConnectString())

	s.WaitFor("the first frame", cmdtest.Has("zkscope", "connected", "zookeeper"))

	// Expand: open the app directory; its children appear.
	s.Keys(":")
	s.Text("cd " + base + "/app")
	s.Keys("Enter")
	s.WaitFor("app expanded", cmdtest.Has("settings.json", "services"))

	// Expand with the keyboard: the cursor is on app, its first child is
	// services; j moves onto it, → expands it.
	s.Keys("j")
	s.WaitFor("the cursor on services", cmdtest.Has("app › services"))
	s.Keys("Right")
	s.WaitFor("services expanded", cmdtest.Has("svc-00", "svc-19"))

	// Filter the services.
	s.Keys("/")
	s.Text("svc-1")
	scr := s.WaitFor("the filter applied", cmdtest.Has("svc-10", "svc-19", `filter "svc-1"`))
	if strings.Contains(scr, "svc-05") {
		t.Fatalf("the filter kept svc-05:\n%s", scr)
	}
	s.Keys("Enter")
	s.WaitFor("the filter kept after enter", cmdtest.Has("⏎", "svc-19"))
	// Esc clears the filter. Wait for it: an Esc followed at once by ":"
	// would reach the program as alt+:.
	s.Keys("Escape")
	s.WaitFor("the filter cleared", func(scr string) bool { return !strings.Contains(scr, `filter "`) })

	// Open the lock: alpha holds, beta waits.
	s.Keys(":")
	s.Text("cd " + lock)
	s.Keys("Enter")
	s.WaitFor("the lock queue", cmdtest.Has("kazoo.lock", `"alpha"`, `"beta"`, "holding", "waiting"))

	// alpha releases: beta becomes the holder.
	peers.Release(t, "alpha")
	peers.Await(t, "beta", "acquired")
	s.WaitFor("beta holding alone", func(scr string) bool {
		return strings.Contains(scr, `"beta"`) && !strings.Contains(scr, `"alpha"`) && strings.Contains(scr, "1 holding")
	})

	// gamma queues behind beta; we force-delete beta's node (as if beta's
	// process were stuck): the dialog wants the sequence number typed,
	// then gamma gets the lock.
	peers.Acquire(t, "gamma", "lock", lock)
	s.WaitFor("gamma waiting", cmdtest.Has(`"gamma"`, "1 holding · 1 waiting"))
	s.Keys("Tab") // the lock pane; its cursor starts on the holder
	s.Keys("X")
	scr = s.WaitFor("the force-delete dialog", cmdtest.Has("Force-delete H1", "Type "))
	m := regexp.MustCompile(`Type (\d{10}) to confirm`).FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no sequence number to type:\n%s", scr)
	}
	s.Text("1" + m[1]) // a wrong number first: refused
	s.Keys("Enter")
	s.WaitFor("the wrong number refused", cmdtest.Has("exactly to confirm"))
	s.Keys("BSpace")
	for range m[1] {
		s.Keys("BSpace")
	}
	s.Text(m[1])
	s.Keys("Enter")
	peers.Await(t, "gamma", "acquired")
	s.WaitFor("gamma holding", func(scr string) bool {
		return strings.Contains(scr, "gets the lock") && strings.Contains(scr, `"gamma"`) && !strings.Contains(scr, "1 waiting")
	})
	if kids, _, err := c.Children(lock); err != nil || len(kids) != 1 {
		t.Fatalf("after the force-delete the lock has %v (%v), want gamma's node alone", kids, err)
	}

	// Resize: still whole at 60×15, a plain message below it.
	s.Tmux("resize-window", "-t", s.Session, "-x", "60", "-y", "15")
	scr = s.WaitFor("the 60×15 layout", cmdtest.Has("╭─ tree", "connected"))
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	for _, l := range lines {
		if w := utf8.RuneCountInString(l); w > 60 {
			t.Errorf("line wider than 60 cells at 60×15 (%d): %q", w, l)
		}
	}
	if len(lines) > 15 {
		t.Errorf("%d lines at 60×15", len(lines))
	}
	s.Tmux("resize-window", "-t", s.Session, "-x", "59", "-y", "15")
	s.WaitFor("the too-small message", cmdtest.Has("Terminal too small"))
	s.Tmux("resize-window", "-t", s.Session, "-x", "120", "-y", "35")
	s.WaitFor("the full layout again", cmdtest.Has("╭─ tree", "kazoo.lock"))

	s.Keys("q")
}
