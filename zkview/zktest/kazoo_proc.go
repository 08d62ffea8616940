package zktest

// Single kazoo clients, each in a Python process of its own (one session
// each), for the tests that need a process to stop (SIGSTOP) or several
// processes contending as real services do: a lock loop, a holder, and a
// hand-made lock node whose client never watches anything.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// kazooProcPython runs one kazoo client: argv[1] the connect string,
// argv[2] what to do, the rest its arguments. It reports on stdout.
//
//	loop PATH ID HOLD   take kazoo's Lock at PATH, hold it HOLD seconds, let
//	                    go, again, forever ("ID acquired" each time)
//	hold PATH ID TO     take the Lock on a session of TO seconds and keep it
//	                    ("acquired NODE")
//	nowatch DIR         create DIR/<uuid hex>__lock__ sequential ephemeral, as
//	                    kazoo names its nodes, and never set a watch
//	                    ("created NODE")
const kazooProcPython = `
import sys, time, uuid
from kazoo.client import KazooClient

def say(s):
    sys.stdout.write(s + "\n")
    sys.stdout.flush()

hosts, what = sys.argv[1], sys.argv[2]
if what == "loop":
    path, cid, hold = sys.argv[3], sys.argv[4], float(sys.argv[5])
    zk = KazooClient(hosts=hosts, timeout=30)
    zk.start()
    lock = zk.Lock(path, cid)
    say("started")
    while True:
        with lock:
            say(cid + " acquired")
            time.sleep(hold)
elif what == "hold":
    path, cid, to = sys.argv[3], sys.argv[4], float(sys.argv[5])
    zk = KazooClient(hosts=hosts, timeout=to)
    zk.start()
    lock = zk.Lock(path, cid)
    lock.acquire()
    say("acquired " + path + "/" + lock.node)
    while True:
        time.sleep(3600)
elif what == "nowatch":
    d = sys.argv[3]
    zk = KazooClient(hosts=hosts, timeout=30)
    zk.start()
    zk.ensure_path(d)
    node = zk.create(d + "/" + uuid.uuid4().hex + "__lock__", b"", ephemeral=True, sequence=True)
    say("created " + node)
    while True:
        time.sleep(3600)
`

// KazooProc is one Python process with one kazoo client.
type KazooProc struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	cond  *sync.Cond
	lines []string
	done  bool
}

// KazooLoop starts a process taking kazoo's Lock at path, holding it for
// hold, letting go, and taking it again until the test ends.
func KazooLoop(t testing.TB, connect, path, id string, hold time.Duration) *KazooProc {
	return startKazooProc(t, connect, "loop", path, id, fmt.Sprintf("%.3f", hold.Seconds()))
}

// KazooHolder starts a process that takes kazoo's Lock at path on a
// session of timeout and keeps it; it returns once the lock is held, with
// the holder's node.
func KazooHolder(t testing.TB, connect, path, id string, timeout time.Duration) (*KazooProc, string) {
	p := startKazooProc(t, connect, "hold", path, id, fmt.Sprintf("%.0f", timeout.Seconds()))
	return p, strings.TrimPrefix(p.Await(t, "acquired "), "acquired ")
}

// KazooNodeWithoutWatch starts a process whose kazoo client creates a
// lock node in dir named as kazoo's Lock names them and never sets a
// watch (a waiter that will never wake); it returns the node.
func KazooNodeWithoutWatch(t testing.TB, connect, dir string) (*KazooProc, string) {
	p := startKazooProc(t, connect, "nowatch", dir)
	return p, strings.TrimPrefix(p.Await(t, "created "), "created ")
}

func startKazooProc(t testing.TB, connect string, args ...string) *KazooProc {
	t.Helper()
	dir := buildPeers(t) // checks kazoo is installed
	script := filepath.Join(dir, "kazoo_proc.py")
	if err := writeOnce(script, kazooProcPython); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", append([]string{script, connect}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start kazoo process: %v", err)
	}
	p := &KazooProc{cmd: cmd}
	p.cond = sync.NewCond(&p.mu)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.cond.Broadcast()
			p.mu.Unlock()
		}
		p.mu.Lock()
		p.done = true
		p.cond.Broadcast()
		p.mu.Unlock()
	}()
	t.Cleanup(p.Kill)
	return p
}

// Await waits (up to a minute) for a line starting with prefix and
// returns it.
func (p *KazooProc) Await(t testing.TB, prefix string) string {
	t.Helper()
	timer := time.AfterFunc(time.Minute, func() { p.mu.Lock(); p.done = true; p.cond.Broadcast(); p.mu.Unlock() })
	defer timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for _, l := range p.lines {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		if p.done {
			t.Fatalf("kazoo process %v: no %q line within a minute (or it ended); its output: %q", p.cmd.Args[2:], prefix, p.lines)
		}
		p.cond.Wait()
	}
}

// Count is how many lines so far start with prefix.
func (p *KazooProc) Count(prefix string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, l := range p.lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// Stop stops the process (SIGSTOP): its client sends nothing, not even a
// ping, until [KazooProc.Continue].
func (p *KazooProc) Stop(t testing.TB) {
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
}

// Continue resumes a stopped process (SIGCONT).
func (p *KazooProc) Continue(t testing.TB) {
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// Kill ends the process (resuming it first, if stopped) and waits for it.
func (p *KazooProc) Kill() {
	p.cmd.Process.Signal(syscall.SIGCONT)
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

var scriptMu sync.Mutex

// writeOnce writes text to file unless it holds it already.
func writeOnce(file, text string) error {
	scriptMu.Lock()
	defer scriptMu.Unlock()
	if b, err := os.ReadFile(file); err == nil && string(b) == text {
		return nil
	}
	return os.WriteFile(file, []byte(text), 0o644)
}
