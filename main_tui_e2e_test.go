package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// tmuxScreen drives the real zkscope binary in a detached tmux session.
type tmuxScreen struct {
	t       *testing.T
	socket  string // a private tmux server (-L), so other tmux users are not disturbed
	session string
}

// startTmux runs the zkscope binary with args in a new w×h tmux session
// of its own (a private server named after name and the process), with
// an empty configuration directory; the server is killed at the end.
func startTmux(t *testing.T, name string, w, h int, args string) *tmuxScreen {
	t.Helper()
	bin := zktest.Zkscope(t)
	s := &tmuxScreen{t: t, socket: fmt.Sprintf("zkscope-%s-%d", name, os.Getpid()), session: "zkscope"}
	s.tmux("new-session", "-d", "-s", s.session, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h),
		"-e", "XDG_CONFIG_HOME="+t.TempDir(), bin+" "+args+"; sleep 60")
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxScreen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys sends tmux key names ("Enter", "Escape", "j", or literal text).
func (s *tmuxScreen) keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", s.session}, keys...)...)
}

// text types s literally.
func (s *tmuxScreen) text(str string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", s.session, "-l", str)
}

func (s *tmuxScreen) capture() string {
	s.t.Helper()
	return s.tmux("capture-pane", "-p", "-t", s.session)
}

// waitFor polls the screen until cond holds (15 s at most).
func (s *tmuxScreen) waitFor(what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.capture()
		if cond(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited 15s for %s; screen:\n%s", what, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func has(subs ...string) func(string) bool {
	return func(scr string) bool {
		for _, x := range subs {
			if !strings.Contains(scr, x) {
				return false
			}
		}
		return true
	}
}

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
	c := dial(t, srv.Addrs()[0])
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

	s := startTmux(t, "e2e", 120, 35, "-s "+srv.ConnectString())

	s.waitFor("the first frame", has("zkscope", "connected", "zookeeper"))

	// Expand: open the app directory; its children appear.
	s.keys(":")
	s.text("cd " + base + "/app")
	s.keys("Enter")
	s.waitFor("app expanded", has("settings.json", "services"))

	// Expand with the keyboard: the cursor is on app, its first child is
	// services; j moves onto it, → expands it.
	s.keys("j")
	s.waitFor("the cursor on services", has("app › services"))
	s.keys("Right")
	s.waitFor("services expanded", has("svc-00", "svc-19"))

	// Filter the services.
	s.keys("/")
	s.text("svc-1")
	scr := s.waitFor("the filter applied", has("svc-10", "svc-19", `filter "svc-1"`))
	if strings.Contains(scr, "svc-05") {
		t.Fatalf("the filter kept svc-05:\n%s", scr)
	}
	s.keys("Enter")
	s.waitFor("the filter kept after enter", has("⏎", "svc-19"))
	// Esc clears the filter. Wait for it: an Esc followed at once by ":"
	// would reach the program as alt+:.
	s.keys("Escape")
	s.waitFor("the filter cleared", func(scr string) bool { return !strings.Contains(scr, `filter "`) })

	// Open the lock: alpha holds, beta waits.
	s.keys(":")
	s.text("cd " + lock)
	s.keys("Enter")
	s.waitFor("the lock queue", has("kazoo.lock", `"alpha"`, `"beta"`, "holding", "waiting"))

	// alpha releases: beta becomes the holder.
	peers.Release(t, "alpha")
	peers.Await(t, "beta", "acquired")
	s.waitFor("beta holding alone", func(scr string) bool {
		return strings.Contains(scr, `"beta"`) && !strings.Contains(scr, `"alpha"`) && strings.Contains(scr, "1 holding")
	})

	// gamma queues behind beta; we force-delete beta's node (as if beta's
	// process were stuck): the dialog wants the sequence number typed,
	// then gamma gets the lock.
	peers.Acquire(t, "gamma", "lock", lock)
	s.waitFor("gamma waiting", has(`"gamma"`, "1 holding · 1 waiting"))
	s.keys("Tab") // the lock pane; its cursor starts on the holder
	s.keys("X")
	scr = s.waitFor("the force-delete dialog", has("Force-delete H1", "Type "))
	m := regexp.MustCompile(`Type (\d{10}) to confirm`).FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no sequence number to type:\n%s", scr)
	}
	s.text("1" + m[1]) // a wrong number first: refused
	s.keys("Enter")
	s.waitFor("the wrong number refused", has("exactly to confirm"))
	s.keys("BSpace")
	for range m[1] {
		s.keys("BSpace")
	}
	s.text(m[1])
	s.keys("Enter")
	peers.Await(t, "gamma", "acquired")
	s.waitFor("gamma holding", func(scr string) bool {
		return strings.Contains(scr, "gets the lock") && strings.Contains(scr, `"gamma"`) && !strings.Contains(scr, "1 waiting")
	})
	if kids, _, err := c.Children(lock); err != nil || len(kids) != 1 {
		t.Fatalf("after the force-delete the lock has %v (%v), want gamma's node alone", kids, err)
	}

	// Resize: still whole at 60×15, a plain message below it.
	s.tmux("resize-window", "-t", s.session, "-x", "60", "-y", "15")
	scr = s.waitFor("the 60×15 layout", has("╭─ tree", "connected"))
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	for _, l := range lines {
		if w := utf8.RuneCountInString(l); w > 60 {
			t.Errorf("line wider than 60 cells at 60×15 (%d): %q", w, l)
		}
	}
	if len(lines) > 15 {
		t.Errorf("%d lines at 60×15", len(lines))
	}
	s.tmux("resize-window", "-t", s.session, "-x", "59", "-y", "15")
	s.waitFor("the too-small message", has("Terminal too small"))
	s.tmux("resize-window", "-t", s.session, "-x", "120", "-y", "35")
	s.waitFor("the full layout again", has("╭─ tree", "kazoo.lock"))

	s.keys("q")
}
