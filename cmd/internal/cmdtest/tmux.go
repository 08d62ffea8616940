package cmdtest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TmuxScreen drives the real zkscope binary in a detached tmux session.
type TmuxScreen struct {
	t       *testing.T
	socket  string // a private tmux server (-L), so other tmux users are not disturbed
	Session string
}

// StartTmux runs the zkscope binary with args in a new w×h tmux session
// of its own (a private server named after name and the process), with
// an empty configuration directory; the server is killed at the end.
func StartTmux(t *testing.T, name string, w, h int, args string) *TmuxScreen {
	t.Helper()
	bin := Binary(t)
	s := &TmuxScreen{t: t, socket: fmt.Sprintf("zkscope-%s-%d", name, os.Getpid()), Session: "zkscope"}
	s.Tmux("new-session", "-d", "-s", s.Session, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h),
		"-e", "XDG_CONFIG_HOME="+t.TempDir(), bin+" "+args+"; sleep 60")
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

// Tmux runs a tmux command on the session's server and returns its output.
func (s *TmuxScreen) Tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Keys sends tmux key names ("Enter", "Escape", "j", or literal text).
func (s *TmuxScreen) Keys(keys ...string) {
	s.t.Helper()
	s.Tmux(append([]string{"send-keys", "-t", s.Session}, keys...)...)
}

// Text types str literally.
func (s *TmuxScreen) Text(str string) {
	s.t.Helper()
	s.Tmux("send-keys", "-t", s.Session, "-l", str)
}

// Capture is the screen as text.
func (s *TmuxScreen) Capture() string {
	s.t.Helper()
	return s.Tmux("capture-pane", "-p", "-t", s.Session)
}

// WaitFor polls the screen until cond holds (15 s at most).
func (s *TmuxScreen) WaitFor(what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.Capture()
		if cond(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited 15s for %s; screen:\n%s", what, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Has is a screen condition: every one of subs is on it.
func Has(subs ...string) func(string) bool {
	return func(scr string) bool {
		for _, x := range subs {
			if !strings.Contains(scr, x) {
				return false
			}
		}
		return true
	}
}
