package lockops

// Interop: zkscope's locks against the real libraries (Curator 5.4 from
// /usr/share/java, kazoo 2.8 for /usr/bin/python3). The peers here are
// minimal stand-ins until zkview/zktest's shared peers land; then this file
// should use those.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

const curatorPeerSource = `
import org.apache.curator.framework.*;
import org.apache.curator.framework.recipes.locks.*;
import org.apache.curator.retry.RetryOneTime;
import java.io.*;

public class LockPeer {
  public static void main(String[] a) throws Exception {
    CuratorFramework c = CuratorFrameworkFactory.newClient(a[0], new RetryOneTime(100));
    c.start();
    c.blockUntilConnected();
    InterProcessLock l;
    switch (a[2]) {
      case "read": l = new InterProcessReadWriteLock(c, a[1]).readLock(); break;
      case "write": l = new InterProcessReadWriteLock(c, a[1]).writeLock(); break;
      default: l = new InterProcessMutex(c, a[1]);
    }
    System.out.println("started");
    l.acquire();
    System.out.println("acquired");
    new BufferedReader(new InputStreamReader(System.in)).readLine();
    l.release();
    System.out.println("released");
    c.close();
  }
}
`

const kazooPeerSource = `
import sys
from kazoo.client import KazooClient
hosts, path, kind = sys.argv[1:4]
zk = KazooClient(hosts=hosts)
zk.start()
lock = {"lock": zk.Lock, "read": zk.ReadLock, "write": zk.WriteLock}[kind](path, "kazoo-peer")
print("started", flush=True)
lock.acquire()
print("acquired", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
zk.stop()
`

var (
	peerOnce sync.Once
	peerDir  string
	peerErr  error
)

var curatorJars = []string{"curator-framework.jar", "curator-client.jar", "curator-recipes.jar",
	"zookeeper.jar", "zookeeper-jute.jar", "guava.jar", "slf4j-api.jar"}

func curatorClassPath(dir string) string {
	cp := []string{dir}
	for _, j := range curatorJars {
		cp = append(cp, filepath.Join(zktest.JavaDir, j))
	}
	return strings.Join(cp, ":")
}

// preparePeers compiles the Curator peer and writes the kazoo peer once.
func preparePeers(t *testing.T) string {
	t.Helper()
	zktest.Require(t)
	for _, j := range curatorJars {
		if _, err := os.Stat(filepath.Join(zktest.JavaDir, j)); err != nil {
			zktest.Unavailable(t, "Curator jar "+j+" is missing")
		}
	}
	if _, err := exec.LookPath("javac"); err != nil {
		zktest.Unavailable(t, "javac is not installed")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import kazoo").Run(); err != nil {
		zktest.Unavailable(t, "kazoo is not installed for /usr/bin/python3")
	}
	peerOnce.Do(func() {
		peerDir, peerErr = os.MkdirTemp("", "zkscope-peers-")
		if peerErr != nil {
			return
		}
		src := filepath.Join(peerDir, "LockPeer.java")
		if peerErr = os.WriteFile(src, []byte(curatorPeerSource), 0o644); peerErr != nil {
			return
		}
		if peerErr = os.WriteFile(filepath.Join(peerDir, "kazoo_peer.py"), []byte(kazooPeerSource), 0o644); peerErr != nil {
			return
		}
		out, err := exec.Command("javac", "-cp", curatorClassPath(peerDir), "-d", peerDir, src).CombinedOutput()
		if err != nil {
			peerErr = fmt.Errorf("javac: %v\n%s", err, out)
		}
	})
	if peerErr != nil {
		t.Fatalf("prepare peers: %v", peerErr)
	}
	return peerDir
}

// peer is one real-library contender in its own process.
type peer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	out   *lockedBuffer
}

func startPeer(t *testing.T, lib, servers, lockPath, kind string) *peer {
	t.Helper()
	dir := preparePeers(t)
	var cmd *exec.Cmd
	if lib == "curator" {
		cmd = exec.Command("java", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", curatorClassPath(dir), "LockPeer", servers, lockPath, kind)
	} else {
		cmd = exec.Command("/usr/bin/python3", filepath.Join(dir, "kazoo_peer.py"), servers, lockPath, kind)
	}
	p := &peer{cmd: cmd, lines: make(chan string, 16), out: &lockedBuffer{}}
	cmd.Stderr = p.out
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- strings.TrimSpace(sc.Text())
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	p.expect(t, "started")
	return p
}

// expect waits for the peer to print want.
func (p *peer) expect(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(90 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("peer exited before %q; stderr:\n%s", want, p.out.String())
			}
			if l == want {
				return
			}
		case <-timeout:
			t.Fatalf("peer did not print %q; stderr:\n%s", want, p.out.String())
		}
	}
}

// acquiredYet reports whether the peer printed "acquired" so far.
func (p *peer) acquiredYet() bool {
	for {
		select {
		case l := <-p.lines:
			if l == "acquired" {
				return true
			}
		default:
			return false
		}
	}
}

func (p *peer) release(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, "release\n"); err != nil {
		t.Fatal(err)
	}
	p.expect(t, "released")
}

// watchedBy waits until some session holds a data watch on node according
// to the server (4lw wchp): the real client is waiting on it.
func watchedBy(t *testing.T, addr, node string) {
	t.Helper()
	waitFor(t, "a watch on "+node, 90*time.Second, func() bool {
		out, err := zktest.FourLetterWord(addr, "wchp", 2*time.Second)
		if err != nil {
			return false
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.TrimSpace(l) == node {
				return true
			}
		}
		return false
	})
}

func nodeOfPeer(t *testing.T, c *zkview.Client, lockPath, exclude string) string {
	t.Helper()
	var found string
	waitFor(t, "the peer's node in "+lockPath, 90*time.Second, func() bool {
		for _, k := range children(t, c, lockPath) {
			if n := zkview.Join(lockPath, k); n != exclude {
				found = n
				return true
			}
		}
		return false
	})
	return found
}

// TestInteropRealClients: real Curator and kazoo contenders wait while
// zkscope holds and proceed when it releases, and zkscope waits for them.
func TestInteropRealClients(t *testing.T) {
	auditToTemp(t)
	cl := zktest.Shared(t)
	addr := cl.Addrs()[0]
	for _, tc := range []struct {
		lib      string
		recipe   Recipe
		ourMode  Mode
		peerKind string
		shared   bool // both hold at once (readers)
	}{
		{"curator", RecipeCurator, ModeExclusive, "mutex", false},
		{"curator", RecipeCurator, ModeWrite, "read", false},
		{"curator", RecipeCurator, ModeRead, "write", false},
		{"curator", RecipeCurator, ModeRead, "read", true},
		{"kazoo", RecipeKazoo, ModeExclusive, "lock", false},
		{"kazoo", RecipeKazoo, ModeWrite, "read", false},
		{"kazoo", RecipeKazoo, ModeRead, "write", false},
	} {
		t.Run(fmt.Sprintf("%s/ours-%s/theirs-%s", tc.lib, tc.ourMode, tc.peerKind), func(t *testing.T) {
			ctx := context.Background()
			c := newClient(t, cl.Addrs())
			lockPath := zktest.Path(t)

			// We hold; they queue (or share) and proceed when we release.
			h, err := Take(ctx, c, lockPath, TakeOptions{Recipe: tc.recipe, Mode: tc.ourMode})
			if err != nil {
				t.Fatal(err)
			}
			p := startPeer(t, tc.lib, cl.ConnectString(), lockPath, tc.peerKind)
			if tc.shared {
				p.expect(t, "acquired")
				if h.State() != StateHeld {
					t.Fatalf("our read lock: %s", h.State())
				}
				h.Release(ctx)
				p.release(t)
				return
			}
			watchedBy(t, addr, h.Node)
			if p.acquiredYet() {
				t.Fatal("the peer acquired while zkscope holds the lock")
			}
			if err := h.Release(ctx); err != nil {
				t.Fatal(err)
			}
			p.expect(t, "acquired")

			// They hold; we wait on their node and proceed when they release.
			theirs := nodeOfPeer(t, c, lockPath, "")
			w := takeAsync(ctx, c, lockPath, TakeOptions{Recipe: RecipeAuto, Mode: tc.ourMode})
			pr := w.waitingOn(t, theirs)
			if !strings.HasPrefix(pr.Recipe, tc.lib) {
				t.Fatalf("auto-detected %s in a %s directory", pr.Recipe, tc.lib)
			}
			p.release(t)
			h2, err := w.wait(t)
			if err != nil {
				t.Fatal(err)
			}
			if err := h2.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if kids := children(t, c, lockPath); len(kids) != 0 {
				t.Fatalf("nodes left: %v", kids)
			}
		})
	}
}

// TestInteropTimeoutHandsOn: zkscope waits with --timeout behind a real
// holder while another real client queues behind zkscope's node. When the
// timeout expires zkscope deletes its node; the real client behind it must
// move on to the holder (not stay stuck, not jump the queue) and acquire
// once the holder releases.
func TestInteropTimeoutHandsOn(t *testing.T) {
	auditToTemp(t)
	cl := zktest.Shared(t)
	addr := cl.Addrs()[0]
	for _, lib := range []string{"curator", "kazoo"} {

		t.Run(lib, func(t *testing.T) {
			t.Parallel() // each mostly waits out its timeout
			ctx := context.Background()
			c := newClient(t, cl.Addrs())
			lockPath := zktest.Path(t)
			kind := map[string]string{"curator": "mutex", "kazoo": "lock"}[lib]

			holder := startPeer(t, lib, cl.ConnectString(), lockPath, kind)
			holder.expect(t, "acquired")
			theirs := nodeOfPeer(t, c, lockPath, "")

			const timeout = 20 * time.Second
			w := takeAsync(ctx, c, lockPath, TakeOptions{Recipe: RecipeAuto, Wait: WaitTimeout, Timeout: timeout})
			pr := w.waitingOn(t, theirs)

			behind := startPeer(t, lib, cl.ConnectString(), lockPath, kind)
			watchedBy(t, addr, pr.Node) // the second real client waits on our node

			_, err := w.wait(t)
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("take with --timeout: %v, want ErrTimeout", err)
			}
			for _, k := range children(t, c, lockPath) {
				if zkview.Join(lockPath, k) == pr.Node {
					t.Fatalf("our node %s is still there after the timeout", pr.Node)
				}
			}
			if behind.acquiredYet() {
				t.Fatal("the client behind us acquired while the real holder still holds")
			}
			holder.release(t)
			behind.expect(t, "acquired")
			behind.release(t)
		})
	}
}
