package demo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	cmddemo "github.com/zkscope/zkscope/cmd/demo"
	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/demo"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// runTestDemo runs `zkscope demo` in-process without a terminal until it
// is ready; stop ends it and checks it cleaned up: its server, its
// directory and the libraries' processes are gone.
func runTestDemo(t *testing.T, o cmddemo.Options) (env demo.Env, out *cmdtest.SyncBuffer, stop func()) {
	t.Helper()
	zktest.Require(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	out = &cmdtest.SyncBuffer{}
	ready := make(chan demo.Env, 1)
	done := make(chan error, 1)
	o.NoTUI, o.Out, o.PrintEvery, o.Ready = true, out, 300*time.Millisecond, func(env demo.Env) { ready <- env }
	go func() { done <- cmddemo.Run(ctx, o) }()
	select {
	case env = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("the demo ended before it was ready: %v\n%s", err, out.String())
	case <-time.After(3 * time.Minute):
		cancel()
		t.Fatalf("the demo was not ready within 3m:\n%s", out.String())
	}
	stopped := false
	stop = func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the demo ended with %v", err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the demo did not stop within 60s of its context ending")
		}
		if _, err := os.Stat(env.Dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the demo left %s behind (%v)", env.Dir, err)
		}
		if _, err := zktest.FourLetterWord(env.Servers[0], "ruok", time.Second); err == nil {
			t.Errorf("the demo server still answers on %s", env.Servers[0])
		}
		for _, p := range env.Peers {
			if err := p.Signal(syscall.Signal(0)); err == nil {
				t.Errorf("a contender process (pid %d) outlived the demo", p.Pid)
			}
		}
	}
	t.Cleanup(stop)
	return env, out, stop
}

// requireDemoPeers makes sure Curator (java) and kazoo (python3) can run
// the demo's contenders here.
func requireDemoPeers(t *testing.T) {
	for _, lib := range []*lockops.Library{lockops.Curator, lockops.Kazoo} {
		if _, err := demo.LibraryCommand(lib, t.TempDir()); err != nil {
			zktest.Unavailable(t, err.Error())
		}
	}
}

// demoLockData is the data of the nodes in each demo lock once every one
// has a holder and waiters.
func demoLockData(t *testing.T, c *zk.Conn) map[string][]string {
	t.Helper()
	data := map[string][]string{}
	deadline := time.Now().Add(60 * time.Second)
	for _, l := range []string{"curator-mutex", "curator-rwlock", "kazoo-lock"} {
		for {
			kids, _, err := c.Children("/app/locks/" + l)
			if err == nil && len(kids) >= 2 {
				for _, k := range kids {
					if d, _, err := c.Get("/app/locks/" + l + "/" + k); err == nil {
						data[l] = append(data[l], string(d))
					}
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no contenders on %s (%v, %v)", l, kids, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return data
}

// TestDemo runs `zkscope demo` in-process without a terminal: its own
// server starts and answers, the tree is filled, the contenders — real
// Apache Curator (java) and kazoo (python3) clients — queue on the three
// demo locks, decoded as Curator's and kazoo's recipes (and the queues are
// printed), the command it prints for another terminal runs and watches
// them, and stopping it stops the server, the contenders' processes and
// removes its temporary directory.
func TestDemo(t *testing.T) {
	zktest.Require(t)
	requireDemoPeers(t)
	env, out, stop := runTestDemo(t, cmddemo.Options{})
	if st, err := os.Stat(env.Dir); err != nil || !st.IsDir() {
		t.Fatalf("the demo's directory %s: %v", env.Dir, err)
	}
	if got, err := zktest.FourLetterWord(env.Servers[0], "ruok", 2*time.Second); err != nil || got != "imok" {
		t.Fatalf("the demo server does not answer ruok: %q, %v", got, err)
	}
	// Who the contenders are and the second-terminal hint are printed
	// before the queues.
	for hintBy := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "Ctrl-C"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(hintBy) {
			t.Fatalf("the demo printed no start banner:\n%s", out.String())
		}
	}
	hint := demo.WatchCommand(env.Servers[0])
	for _, want := range []string{"From another terminal: " + hint, "curator-mutex, curator-rwlock: Apache Curator's own clients (java, 8 sessions)", "kazoo-lock: kazoo's own clients (python3, 3 sessions)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the demo does not say %q:\n%s", want, out.String())
		}
	}
	if len(env.Peers) != 2 || env.Notice != "" {
		t.Errorf("%d library processes, notice %q: want Curator's and kazoo's, and no notice", len(env.Peers), env.Notice)
	}
	c := cmdtest.Dial(t, env.Servers[0])
	for _, p := range []string{"/app/config", "/app/deploy-plan", "/services/billing/instances/web-1", "/app/locks/nightly-report"} {
		if ok, _, err := c.Exists(p); err != nil || !ok {
			t.Errorf("the demo tree lacks %s (%v)", p, err)
		}
	}
	// The nodes are the libraries' own (the data their clients write).
	for l, data := range demoLockData(t, c) {
		want := "Curator contender "
		if l == "kazoo-lock" {
			want = "kazoo contender "
		}
		for _, d := range data {
			if !strings.HasPrefix(d, want) {
				t.Errorf("a node of %s holds %q, not %s's", l, d, strings.Fields(want)[0])
			}
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, want := range []string{"curator-mutex            curator.mutex    holds: ", "curator-rwlock           curator.rwlock   holds: ", "kazoo-lock               kazoo.lock       holds: "} {
		for !strings.Contains(out.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("the queues were not printed as %q:\n%s", want, out.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	runDemoHint(t, hint)
	stop()
}

// runDemoHint runs the command the demo prints for another terminal until
// it shows the three demo locks decoded (under `go test` it is a `go run`,
// which builds zkscope first), then stops it.
func runDemoHint(t *testing.T, hint string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", hint)
	cmd.Dir = t.TempDir() // another terminal, elsewhere
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var got cmdtest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &got, &got
	if err := cmd.Start(); err != nil {
		t.Fatalf("run %q: %v", hint, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}()
	deadline := time.After(5 * time.Minute)
	for {
		s := got.String()
		if strings.Contains(s, "/app/locks/curator-mutex  curator.mutex") && strings.Contains(s, "/app/locks/curator-rwlock  curator.rwlock") && strings.Contains(s, "/app/locks/kazoo-lock  kazoo.lock") {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("%q ended (%v) before it showed the demo's locks:\n%s", hint, err, s)
		case <-deadline:
			t.Fatalf("%q did not show the demo's locks within 5m:\n%s", hint, s)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestDemoStandIns: where a library is not installed, zkscope processes
// write its format instead, and the demo says so in its start text, in
// the TUI's first status line and in each node's data.
func TestDemoStandIns(t *testing.T) {
	missing := func(lib *lockops.Library, _ string) (*exec.Cmd, error) {
		return nil, fmt.Errorf("%s is not installed here (a test)", lib.Title)
	}
	env, out, stop := runTestDemo(t, cmddemo.Options{PeerCommand: missing})
	for hintBy := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "Ctrl-C"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(hintBy) {
			t.Fatalf("the demo printed no start banner:\n%s", out.String())
		}
	}
	for _, want := range []string{
		"curator-mutex, curator-rwlock: zkscope processes writing Curator's format, not Curator itself: Curator is not installed here (a test)",
		"kazoo-lock: zkscope processes writing kazoo's format, not kazoo itself: kazoo is not installed here (a test)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the demo does not say %q:\n%s", want, out.String())
		}
	}
	if want := "Demo: Curator and kazoo not installed here, so zkscope processes write Curator's and kazoo's format on curator-mutex, curator-rwlock, kazoo-lock."; env.Notice != want {
		t.Errorf("the TUI's first status line: %q, want %q", env.Notice, want)
	}
	for l, data := range demoLockData(t, cmdtest.Dial(t, env.Servers[0])) {
		for _, d := range data {
			if !strings.Contains(d, "zkscope pid") || !strings.Contains(d, "stand-in for a ") {
				t.Errorf("a node of %s holds %q: it does not say it is zkscope standing in", l, d)
			}
		}
	}
	stop()
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
	var out cmdtest.SyncBuffer
	err := cmddemo.Run(context.Background(), cmddemo.Options{NoTUI: true, Out: &out})
	if err == nil {
		t.Fatal("the demo started without java")
	}
	msg := err.Error()
	if !strings.Contains(msg, demo.InstallHint()) || strings.Contains(msg, "\n") {
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
