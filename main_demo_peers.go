package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/take"
)

// The demo's contenders are the lock libraries themselves when they are
// installed here: Apache Curator in a Java process (its jars in
// demoJavaDir, run by java's source launcher, so no compiler step) and
// kazoo in a Python process, each contender on its own session, taking
// turns as an application would. A library that is not installed has
// zkscope processes write its format instead (take.RunDemoLocks), and
// the demo says so.

// demoJavaDir is where Debian's packages put Curator's and ZooKeeper's jars.
const demoJavaDir = "/usr/share/java"

// demoCuratorJars are the class path of the Curator contenders; the
// slf4j-nop binding, when present, keeps their logging quiet.
var demoCuratorJars = []string{"curator-framework.jar", "curator-client.jar", "curator-recipes.jar",
	"zookeeper.jar", "zookeeper-jute.jar", "guava.jar", "slf4j-api.jar"}

// demoPeerReady bounds how long a library's process may take to connect
// its contenders (a JVM compiling its source on a busy machine is slow)
// before zkscope's contenders take its place.
const demoPeerReady = 90 * time.Second

// demoCuratorJava is the Curator contenders' program: java -cp JARS
// DemoCurator.java CONNECT PATH=MODE… runs one contender per PATH=MODE
// (exclusive: InterProcessMutex; read, write: InterProcessReadWriteLock),
// prints "ready" once all are connected and stops when its stdin closes.
const demoCuratorJava = `
import org.apache.curator.framework.*;
import org.apache.curator.framework.recipes.locks.*;
import org.apache.curator.retry.ExponentialBackoffRetry;
import java.io.*;
import java.util.*;
import java.util.concurrent.*;

public class DemoCurator {
  static volatile boolean closing;

  public static void main(String[] a) throws Exception {
    List<CuratorFramework> clients = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 1; i < a.length; i++) {
      String[] f = a[i].split("=", 2);
      String path = f[0], mode = f[1];
      CuratorFramework c = CuratorFrameworkFactory.builder().connectString(a[0])
          .sessionTimeoutMs(10000).connectionTimeoutMs(15000).retryPolicy(new ExponentialBackoffRetry(200, 10))
          .defaultData(("Curator contender " + i + " (" + mode + ")").getBytes("UTF-8")).build();
      c.start();
      if (!c.blockUntilConnected(60, TimeUnit.SECONDS)) {
        System.err.println("could not connect to " + a[0]);
        System.exit(1);
      }
      clients.add(c);
      InterProcessLock l = mode.equals("read") ? new InterProcessReadWriteLock(c, path).readLock()
          : mode.equals("write") ? new InterProcessReadWriteLock(c, path).writeLock()
          : new InterProcessMutex(c, path);
      Thread t = new Thread(() -> contend(l));
      t.setDaemon(true);
      threads.add(t);
    }
    for (Thread t : threads) t.start();
    System.out.println("ready");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    while (in.readLine() != null) {}
    closing = true;
    for (CuratorFramework c : clients) c.close();
    System.exit(0);
  }

  static void contend(InterProcessLock l) {
    Random r = new Random();
    pause(10 + r.nextInt(1500));
    while (!closing) {
      try {
        l.acquire();
        try { pause(2000 + r.nextInt(3000)); } finally { l.release(); }
        pause(500 + r.nextInt(1500));
      } catch (Exception e) {
        pause(1000 + r.nextInt(1000));
      }
    }
  }

  static void pause(int ms) {
    try { Thread.sleep(ms); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
  }
}
`

// demoKazooPython is the kazoo contenders' program: python3
// demo_kazoo.py CONNECT PATH=MODE… runs one contender per PATH=MODE
// (exclusive: Lock; read, write: ReadLock, WriteLock), prints "ready"
// once all are connected and stops when its stdin closes.
const demoKazooPython = `
import os, random, sys, threading
from kazoo.client import KazooClient

clients, locks = [], []
for n, spec in enumerate(sys.argv[2:], 1):
    path, mode = spec.split("=", 1)
    zk = KazooClient(hosts=sys.argv[1], timeout=10)
    zk.start(timeout=60)
    clients.append(zk)
    make = {"read": zk.ReadLock, "write": zk.WriteLock}.get(mode, zk.Lock)
    locks.append(make(path, "kazoo contender %d (%s)" % (n, mode)))

closing = threading.Event()

def contend(lock):
    closing.wait(random.uniform(0.01, 1.5))
    while not closing.is_set():
        try:
            lock.acquire()
            try:
                closing.wait(random.uniform(2, 5))
            finally:
                lock.release()
            closing.wait(random.uniform(0.5, 2))
        except Exception:
            closing.wait(random.uniform(1, 2))

for lock in locks:
    threading.Thread(target=contend, args=(lock,), daemon=True).start()
print("ready", flush=True)
for _ in sys.stdin:
    pass
closing.set()
for zk in clients:
    try:
        zk.stop()
        zk.close()
    except Exception:
        pass
os._exit(0)
`

// demoPeer is one library's process running the contenders of its locks.
type demoPeer struct {
	lib   *lockops.Library
	locks []take.DemoLock
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed when the process has exited
	mu    sync.Mutex
	errs  strings.Builder // the start of its stderr
}

// demoPeerCommand is the command that runs lib's contenders in dir, or
// why lib is not installed here.
func demoPeerCommand(lib *lockops.Library, dir string) (*exec.Cmd, error) {
	switch lib {
	case lockops.Curator:
		java, err := exec.LookPath("java")
		if err != nil {
			return nil, errors.New("java is not installed")
		}
		cp := make([]string, 0, len(demoCuratorJars)+1)
		for _, j := range demoCuratorJars {
			p := filepath.Join(demoJavaDir, j)
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("Curator is not installed here (no %s; apt-get install libcurator-recipes-java)", p)
			}
			cp = append(cp, p)
		}
		if p := filepath.Join(demoJavaDir, "slf4j-nop.jar"); fileExists(p) {
			cp = append(cp, p)
		}
		src := filepath.Join(dir, "DemoCurator.java")
		if err := os.WriteFile(src, []byte(demoCuratorJava), 0o600); err != nil {
			return nil, err
		}
		return exec.Command(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", strings.Join(cp, string(os.PathListSeparator)), src), nil
	case lockops.Kazoo:
		python := kazooPython()
		if python == "" {
			return nil, errors.New("kazoo is not installed for python3 (apt-get install python3-kazoo, or pip install kazoo)")
		}
		src := filepath.Join(dir, "demo_kazoo.py")
		if err := os.WriteFile(src, []byte(demoKazooPython), 0o600); err != nil {
			return nil, err
		}
		return exec.Command(python, src), nil
	}
	return nil, fmt.Errorf("zkscope runs no %s process of its own", lib.Title)
}

// kazooPython is the first python3 that imports kazoo: the one on PATH,
// else the system's, where Debian's python3-kazoo installs it ("" none).
func kazooPython() string {
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

// peerCommand makes the command that runs a library's contenders in a
// directory, or says why it cannot (demoPeerCommand).
type peerCommand func(lib *lockops.Library, dir string) (*exec.Cmd, error)

// startDemoPeer starts lib's process (made by command) for locks against
// connect and waits until its contenders are connected (or it fails, or
// ctx ends).
func startDemoPeer(ctx context.Context, command peerCommand, lib *lockops.Library, locks []take.DemoLock, dir, connect string) (*demoPeer, error) {
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
	p := &demoPeer{lib: lib, locks: locks, cmd: cmd, done: make(chan struct{})}
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
	case <-time.After(demoPeerReady):
		err = fmt.Errorf("its contenders did not connect within %s", demoPeerReady)
	}
	p.stop()
	return nil, err
}

// firstError is the last line of the process's stderr that says what went
// wrong (an exception's, a traceback's last).
func (p *demoPeer) firstError() string {
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
func (p *demoPeer) stop() {
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// demoContenders is what runs the demo's locks: the libraries' own
// processes, and the locks left to zkscope's contenders, with a line per
// library saying which.
type demoContenders struct {
	peers []*demoPeer
	rest  []take.DemoLock
	lines []string // "curator-mutex, curator-rwlock: Apache Curator's own clients (java, 8 sessions)"
	// faked is set when zkscope writes some library's format.
	faked bool
}

// startDemoContenders starts, for each library of locks, its own process
// (made by command) when it is installed here, else leaves its locks to
// zkscope.
func startDemoContenders(ctx context.Context, command peerCommand, dir, connect string, locks []take.DemoLock) *demoContenders {
	var libs []*lockops.Library
	byLib := map[*lockops.Library][]take.DemoLock{}
	for _, l := range locks {
		if byLib[l.Library] == nil {
			libs = append(libs, l.Library)
		}
		byLib[l.Library] = append(byLib[l.Library], l)
	}
	type started struct {
		peer *demoPeer
		err  error
	}
	results := make([]started, len(libs))
	var wg sync.WaitGroup
	for i, lib := range libs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := startDemoPeer(ctx, command, lib, byLib[lib], dir, connect)
			results[i] = started{p, err}
		}()
	}
	wg.Wait()
	c := &demoContenders{}
	for i, lib := range libs {
		ls := byLib[lib]
		sessions := 0
		var names []string
		for _, l := range ls {
			names = append(names, strings.TrimPrefix(l.Path, demoLocksRoot+"/"))
			sessions += len(l.Modes)
		}
		where := strings.Join(names, ", ") + ": "
		if r := results[i]; r.err == nil {
			c.peers = append(c.peers, r.peer)
			c.lines = append(c.lines, where+fmt.Sprintf("%s's own clients (%s, %d sessions)", demoLibName(lib), filepath.Base(r.peer.cmd.Path), sessions))
		} else {
			c.rest = append(c.rest, ls...)
			c.faked = true
			c.lines = append(c.lines, where+fmt.Sprintf("zkscope processes writing %s's format, not %s itself: %v", lib.Title, lib.Title, r.err))
		}
	}
	return c
}

// demoLibName is a library's full name.
func demoLibName(lib *lockops.Library) string {
	if lib == lockops.Curator {
		return "Apache Curator"
	}
	return lib.Title
}

// notice is the TUI's first status line when zkscope stands in for a
// library ("" when the libraries themselves run).
func (c *demoContenders) notice() string {
	var faked, where []string
	seen := map[*lockops.Library]bool{}
	for _, l := range c.rest {
		where = append(where, strings.TrimPrefix(l.Path, demoLocksRoot+"/"))
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
func (c *demoContenders) stop() {
	var wg sync.WaitGroup
	for _, p := range c.peers {
		wg.Add(1)
		go func() { defer wg.Done(); p.stop() }()
	}
	wg.Wait()
}

// demoWatchCommand is the command that watches the demo's locks from
// another terminal.
func demoWatchCommand(addrs string) string {
	return demoSelfCommand() + " -s " + addrs + " locks /app --watch"
}

// demoSelfCommand is how a second terminal runs this zkscope: the name
// when PATH finds this very binary, else its absolute path; under `go
// run` (a binary in a go-build directory, gone when the demo ends) the
// `go -C MODULE run .` that builds it again.
func demoSelfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "zkscope"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		if dir := moduleDir(); dir != "" {
			return "go -C " + shellQuote(dir) + " run ."
		}
	}
	if p, err := exec.LookPath("zkscope"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && real == exe {
			return "zkscope"
		}
	}
	return shellQuote(exe)
}

// moduleDir is the directory of zkscope's go.mod at or above the working
// directory ("" when there is none).
func moduleDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	module := "github.com/zkscope/zkscope"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != "" {
		module = bi.Main.Path
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modfileModule(b) == module {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// modfileModule is the module path a go.mod declares.
func modfileModule(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
