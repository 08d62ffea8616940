package demo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/zkview/zkserver"
)

// The demo's contenders are the lock libraries themselves when they are
// installed here: Apache Curator in a Java process (its jars in
// zkserver.JavaDir, run by java's source launcher, so no compiler step) and
// kazoo in a Python process, each contender on its own session, taking
// turns as an application would. A library that is not installed has
// zkscope processes write its format instead (take.RunDemoLocks), and
// the demo says so.

// curatorJars are the class path of the Curator contenders; the
// slf4j-nop binding, when present, keeps their logging quiet.
var curatorJars = []string{"curator-framework.jar", "curator-client.jar", "curator-recipes.jar",
	"zookeeper.jar", "zookeeper-jute.jar", "guava.jar", "slf4j-api.jar"}

// peerReady bounds how long a library's process may take to connect
// its contenders (a JVM compiling its source on a busy machine is slow)
// before zkscope's contenders take its place.
const peerReady = 90 * time.Second

// peer is one library's process running the contenders of its locks.
type peer struct {
	lib   *lockops.Library
	locks []take.DemoLock
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed when the process has exited
	mu    sync.Mutex
	errs  strings.Builder // the start of its stderr
}

// LibraryCommand is the command that runs lib's contenders in dir, or
// why lib is not installed here: the default [PeerCommand].
func LibraryCommand(lib *lockops.Library, dir string) (*exec.Cmd, error) {
	switch lib {
	case lockops.Curator:
		java, err := exec.LookPath("java")
		if err != nil {
			return nil, errors.New("java is not installed")
		}
		cp := make([]string, 0, len(curatorJars)+1)
		for _, j := range curatorJars {
			p := filepath.Join(zkserver.JavaDir, j)
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("Curator is not installed here (no %s; apt-get install libcurator-recipes-java)", p)
			}
			cp = append(cp, p)
		}
		if p := filepath.Join(zkserver.JavaDir, "slf4j-nop.jar"); fileExists(p) {
			cp = append(cp, p)
		}
		src := filepath.Join(dir, "DemoCurator.java")
		if err := os.WriteFile(src, []byte(curatorJava), 0o600); err != nil {
			return nil, err
		}
		return exec.Command(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", strings.Join(cp, string(os.PathListSeparator)), src), nil
	case lockops.Kazoo:
		python := pythonWithKazoo()
		if python == "" {
			return nil, errors.New("kazoo is not installed for python3 (apt-get install python3-kazoo, or pip install kazoo)")
		}
		src := filepath.Join(dir, "demo_kazoo.py")
		if err := os.WriteFile(src, []byte(kazooPython), 0o600); err != nil {
			return nil, err
		}
		return exec.Command(python, src), nil
	}
	return nil, fmt.Errorf("zkscope runs no %s process of its own", lib.Title)
}

// pythonWithKazoo is the first python3 that imports kazoo: the one on PATH,
// else the system's, where Debian's python3-kazoo installs it ("" none).
func pythonWithKazoo() string {
	var tried []string
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(p)
		if err != nil || slices.Contains(tried, path) {
			continue
		}
		tried = append(tried, path)
		if exec.Command(path, "-c", "import kazoo").Run() == nil {
			return path
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// PeerCommand makes the command that runs a library's contenders in a
// directory, or says why it cannot ([LibraryCommand]).
type PeerCommand func(lib *lockops.Library, dir string) (*exec.Cmd, error)

// startPeer starts lib's process (made by command) for locks against
// connect and waits until its contenders are connected (or it fails, or
// ctx ends).
func startPeer(ctx context.Context, command PeerCommand, lib *lockops.Library, locks []take.DemoLock, dir, connect string) (*peer, error) {
	cmd, err := command(lib, dir)
	if err != nil {
		return nil, err
	}
	cmd.Args = append(cmd.Args, connect)
	for _, l := range locks {
		for _, m := range l.Modes {
			cmd.Args = append(cmd.Args, l.Path+"="+string(m))
		}
	}
	p := &peer{lib: lib, locks: locks, cmd: cmd, done: make(chan struct{})}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "ready" {
				close(ready)
			}
		}
	}()
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			if p.errs.Len() < 4<<10 {
				p.errs.WriteString(sc.Text() + "\n")
			}
			p.mu.Unlock()
		}
	}()
	go func() { cmd.Wait(); close(p.done) }()
	select {
	case <-ready:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("%s stopped: %s", filepath.Base(cmd.Path), p.firstError())
	case <-ctx.Done():
		err = ctx.Err()
	case <-time.After(peerReady):
		err = fmt.Errorf("its contenders did not connect within %s", peerReady)
	}
	p.stop()
	return nil, err
}

// firstError is the last line of the process's stderr that says what went
// wrong (an exception's, a traceback's last).
func (p *peer) firstError() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(p.errs.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "at ") {
			return l
		}
	}
	return "no message"
}

// stop closes the contenders' sessions (the process does when its stdin
// closes) and ends the process, at the latest after a few seconds.
func (p *peer) stop() {
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// contenders is what runs the demo's locks: the libraries' own
// processes, and the locks left to zkscope's contenders, with a line per
// library saying which.
type contenders struct {
	peers []*peer
	rest  []take.DemoLock
	lines []string // "curator-mutex, curator-rwlock: Apache Curator's own clients (java, 8 sessions)"
	// faked is set when zkscope writes some library's format.
	faked bool
}

// startContenders starts, for each library of locks, its own process
// (made by command) when it is installed here, else leaves its locks to
// zkscope.
func startContenders(ctx context.Context, command PeerCommand, dir, connect string, locks []take.DemoLock) *contenders {
	var libs []*lockops.Library
	byLib := map[*lockops.Library][]take.DemoLock{}
	for _, l := range locks {
		if byLib[l.Library] == nil {
			libs = append(libs, l.Library)
		}
		byLib[l.Library] = append(byLib[l.Library], l)
	}
	type started struct {
		peer *peer
		err  error
	}
	results := make([]started, len(libs))
	var wg sync.WaitGroup
	for i, lib := range libs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := startPeer(ctx, command, lib, byLib[lib], dir, connect)
			results[i] = started{p, err}
		}()
	}
	wg.Wait()
	c := &contenders{}
	for i, lib := range libs {
		ls := byLib[lib]
		sessions := 0
		var names []string
		for _, l := range ls {
			names = append(names, strings.TrimPrefix(l.Path, LocksRoot+"/"))
			sessions += len(l.Modes)
		}
		where := strings.Join(names, ", ") + ": "
		if r := results[i]; r.err == nil {
			c.peers = append(c.peers, r.peer)
			c.lines = append(c.lines, where+fmt.Sprintf("%s's own clients (%s, %d sessions)", libName(lib), filepath.Base(r.peer.cmd.Path), sessions))
		} else {
			c.rest = append(c.rest, ls...)
			c.faked = true
			c.lines = append(c.lines, where+fmt.Sprintf("zkscope processes writing %s's format, not %s itself: %v", lib.Title, lib.Title, r.err))
		}
	}
	return c
}

// libName is a library's full name.
func libName(lib *lockops.Library) string {
	if lib == lockops.Curator {
		return "Apache Curator"
	}
	return lib.Title
}

// notice is the TUI's first status line when zkscope stands in for a
// library ("" when the libraries themselves run).
func (c *contenders) notice() string {
	var faked, where []string
	seen := map[*lockops.Library]bool{}
	for _, l := range c.rest {
		where = append(where, strings.TrimPrefix(l.Path, LocksRoot+"/"))
		if !seen[l.Library] {
			seen[l.Library] = true
			faked = append(faked, l.Library.Title)
		}
	}
	if len(faked) == 0 {
		return ""
	}
	return fmt.Sprintf("Demo: %s not installed here, so zkscope processes write %s's format on %s.",
		strings.Join(faked, " and "), strings.Join(faked, "'s and "), strings.Join(where, ", "))
}

// stop ends the libraries' processes, closing their sessions.
func (c *contenders) stop() {
	var wg sync.WaitGroup
	for _, p := range c.peers {
		wg.Add(1)
		go func() { defer wg.Done(); p.stop() }()
	}
	wg.Wait()
}
