package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDemo runs `zkscope demo` in-process without a terminal: its own
// server starts and answers, the tree is filled, the contenders queue on
// the three demo locks (and the queues are printed), and stopping it stops
// the server and removes its temporary directory.
func TestDemo(t *testing.T) {
	zktest.Require(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	ready := make(chan demoEnv, 1)
	done := make(chan error, 1)
	go func() {
		done <- runDemo(ctx, demoOptions{NoTUI: true, Out: &out, PrintEvery: 300 * time.Millisecond,
			Ready: func(env demoEnv) { ready <- env }})
	}()
	var env demoEnv
	select {
	case env = <-ready:
	case err := <-done:
		t.Fatalf("the demo ended before it was ready: %v\n%s", err, out.String())
	case <-time.After(90 * time.Second):
		t.Fatalf("the demo was not ready within 90s:\n%s", out.String())
	}
	if st, err := os.Stat(env.Dir); err != nil || !st.IsDir() {
		t.Fatalf("the demo's directory %s: %v", env.Dir, err)
	}
	if got, err := zktest.FourLetterWord(env.Servers[0], "ruok", 2*time.Second); err != nil || got != "imok" {
		t.Fatalf("the demo server does not answer ruok: %q, %v", got, err)
	}
	// The address and the second-terminal hint are printed before the queues.
	for hintBy := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "Ctrl-C"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(hintBy) {
			t.Fatalf("the demo printed no start banner:\n%s", out.String())
		}
	}
	if hint := "zkscope -s " + env.Servers[0] + " locks /app --watch"; !strings.Contains(out.String(), hint) {
		t.Errorf("the demo does not say how to watch it from another terminal (%q):\n%s", hint, out.String())
	}
	c := dial(t, env.Servers[0])
	for _, p := range []string{"/app/config", "/app/deploy-plan", "/services/billing/instances/web-1", "/app/locks/nightly-report"} {
		if ok, _, err := c.Exists(p); err != nil || !ok {
			t.Errorf("the demo tree lacks %s (%v)", p, err)
		}
	}
	// Contenders: every demo lock gets a holder and waiters.
	deadline := time.Now().Add(30 * time.Second)
	for _, l := range []string{"curator-mutex", "curator-rwlock", "kazoo-lock"} {
		for {
			kids, _, err := c.Children("/app/locks/" + l)
			if err == nil && len(kids) >= 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no contenders on %s (%v, %v)", l, kids, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for !strings.Contains(out.String(), "kazoo-lock") || !strings.Contains(out.String(), "holds: ") {
		if time.Now().After(deadline) {
			t.Fatalf("the queues were not printed:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the demo ended with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the demo did not stop within 30s of its context ending")
	}
	if _, err := os.Stat(env.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the demo left %s behind (%v)", env.Dir, err)
	}
	if _, err := zktest.FourLetterWord(env.Servers[0], "ruok", time.Second); err == nil {
		t.Errorf("the demo server still answers on %s", env.Servers[0])
	}
}

// demoScreen drives one tmux session on a private tmux server.
type demoScreen struct {
	t       *testing.T
	session string
}

func (s *demoScreen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.session}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *demoScreen) capture() string { return s.tmux("capture-pane", "-p", "-t", s.session) }

func (s *demoScreen) keys(k ...string) {
	s.tmux(append([]string{"send-keys", "-t", s.session}, k...)...)
}

// waitFor polls the screen until cond holds or the deadline passes.
func (s *demoScreen) waitFor(what string, d time.Duration, cond func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		scr := s.capture()
		if cond(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited %s for %s; screen:\n%s", d, what, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var holderRE = regexp.MustCompile(`H1\s+● exclusive \S*?(\d{10})`)

// TestDemoTmux runs the real binary's `zkscope demo` in tmux: the lock pane
// shows the Curator mutex live and its holder changes; t takes the lock as
// a real contender (we wait, then hold), u releases it, q quits, and the
// demo's server and temporary directory are gone afterwards.
func TestDemoTmux(t *testing.T) {
	zktest.Require(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		zktest.Unavailable(t, "tmux is not installed")
	}
	bin := zktest.Zkscope(t)
	tmp := t.TempDir()
	s := &demoScreen{t: t, session: fmt.Sprintf("zkscope-demo-e2e-%d", os.Getpid())}
	s.tmux("new-session", "-d", "-s", s.session, "-x", "140", "-y", "40",
		"-e", "TMPDIR="+tmp, "-e", "XDG_STATE_HOME="+t.TempDir(), "-e", "XDG_CONFIG_HOME="+t.TempDir(),
		bin+" demo --theme dark; echo DEMO-EXIT=$?; sleep 60")
	t.Cleanup(func() { exec.Command("tmux", "-L", s.session, "kill-server").Run() })

	scr := s.waitFor("the demo's lock pane", 90*time.Second, func(scr string) bool {
		return strings.Contains(scr, "curator.mutex") && holderRE.MatchString(scr) && strings.Contains(scr, "──watches")
	})
	first := holderRE.FindStringSubmatch(scr)[1]
	s.waitFor("the holder to change", 30*time.Second, func(scr string) bool {
		m := holderRE.FindStringSubmatch(scr)
		return m != nil && m[1] != first
	})

	// Take the lock: the dialog opens on the mode; enter takes it.
	s.keys("t")
	s.waitFor("the take dialog", 10*time.Second, func(scr string) bool { return strings.Contains(scr, "Take a lock") })
	s.keys("Enter")
	s.waitFor("our lock held", 60*time.Second, func(scr string) bool {
		return strings.Contains(scr, "We hold this lock") && strings.Contains(scr, " you ")
	})
	s.keys("u")
	s.waitFor("our lock released", 15*time.Second, func(scr string) bool {
		return strings.Contains(scr, "Released /app/locks/curator-mutex") && !strings.Contains(scr, "We hold this lock")
	})
	s.keys("q")
	s.waitFor("the demo to exit cleanly", 30*time.Second, func(scr string) bool { return strings.Contains(scr, "DEMO-EXIT=0") })
	left, _ := filepath.Glob(filepath.Join(tmp, "zkscope-demo-*"))
	if len(left) > 0 {
		t.Fatalf("the demo left %v behind", left)
	}
}

// TestDemoWithoutZooKeeper: without java on PATH the demo fails at once
// with one line naming the install command, and leaves nothing behind.
func TestDemoWithoutZooKeeper(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("PATH", t.TempDir())
	var out syncBuffer
	err := runDemo(context.Background(), demoOptions{NoTUI: true, Out: &out})
	if err == nil {
		t.Fatal("the demo started without java")
	}
	msg := err.Error()
	if !strings.Contains(msg, demoInstallHint()) || strings.Contains(msg, "\n") {
		t.Errorf("want one line with the install command, got %q", msg)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "zkscope-demo-*")); len(left) > 0 {
		t.Errorf("the demo left %v behind", left)
	}
}

// TestDemoTmuxSignals: SIGTERM and SIGINT sent to the running demo (TUI
// open) stop its server and remove its directory; SIGTERM exits 0, SIGINT
// 130.
func TestDemoTmuxSignals(t *testing.T) {
	zktest.Require(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		zktest.Unavailable(t, "tmux is not installed")
	}
	bin := zktest.Zkscope(t)
	serverRE := regexp.MustCompile(`server (127\.0\.0\.1:\d+)`)
	for _, sig := range []struct {
		name string
		sig  syscall.Signal
		exit string
	}{{"TERM", syscall.SIGTERM, "DEMO-EXIT=0"}, {"INT", syscall.SIGINT, "DEMO-EXIT=130"}} {
		t.Run(sig.name, func(t *testing.T) {
			tmp := t.TempDir()
			s := &demoScreen{t: t, session: fmt.Sprintf("zkscope-demo-sig-%d-%s", os.Getpid(), sig.name)}
			s.tmux("new-session", "-d", "-s", s.session, "-x", "120", "-y", "35",
				"-e", "TMPDIR="+tmp, "-e", "XDG_STATE_HOME="+t.TempDir(), "-e", "XDG_CONFIG_HOME="+t.TempDir(),
				bin+" demo --theme dark; echo DEMO-EXIT=$?; sleep 60")
			t.Cleanup(func() { exec.Command("tmux", "-L", s.session, "kill-server").Run() })
			scr := s.waitFor("the demo's lock pane", 90*time.Second, func(scr string) bool {
				return strings.Contains(scr, "curator.mutex") && serverRE.MatchString(scr)
			})
			addr := serverRE.FindStringSubmatch(scr)[1]
			shell := strings.TrimSpace(s.tmux("display-message", "-p", "-t", s.session, "#{pane_pid}"))
			out, err := exec.Command("pgrep", "-P", shell, "-x", "zkscope").Output()
			pid, convErr := strconv.Atoi(strings.TrimSpace(string(out)))
			if err != nil || convErr != nil {
				t.Fatalf("find the demo process under %s: %v %v (%q)", shell, err, convErr, out)
			}
			if err := syscall.Kill(pid, sig.sig); err != nil {
				t.Fatal(err)
			}
			s.waitFor("the demo to exit", 30*time.Second, func(scr string) bool { return strings.Contains(scr, sig.exit) })
			if left, _ := filepath.Glob(filepath.Join(tmp, "zkscope-demo-*")); len(left) > 0 {
				t.Errorf("the demo left %v behind", left)
			}
			if _, err := zktest.FourLetterWord(addr, "ruok", time.Second); err == nil {
				t.Errorf("the demo server still answers on %s", addr)
			}
		})
	}
}
