package zktest

// Real peer clients for interop tests: one Java process driving Apache
// Curator 5.4 and one Python process driving kazoo, each hosting any
// number of contenders, every contender on its OWN session. They read
// commands on stdin and report on stdout:
//
//	acquire ID KIND PATH [ARG]   start contender ID (ARG: a semaphore's leases)
//	release ID                   release and close contender ID's session
//
//	ID started | ID acquired | ID released | ID error MESSAGE
//
// Curator kinds: mutex, read, write, downgrade (write then read, both
// held), semaphore N (InterProcessSemaphoreV2), latch (LeaderLatch),
// zklock (ZooKeeper's own recipes WriteLock). kazoo kinds: lock, read,
// write, semaphore N. Both: ephemeral (a plain ephemeral lock, as
// hand-written code takes one: create PATH EPHEMERAL with the ID as data;
// on NodeExists watch it with exists and try again once it is deleted;
// "ID waiting" after each watch is set).

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const curatorPeerJava = `
import org.apache.curator.framework.*;
import org.apache.curator.framework.recipes.locks.*;
import org.apache.curator.framework.recipes.leader.*;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.recipes.lock.WriteLock;
import org.apache.zookeeper.recipes.lock.LockListener;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.ZooDefs;
import java.io.*;
import java.util.*;
import java.util.concurrent.*;

public class CuratorPeer {
  // Curator's locks are owned by the thread that acquired them: each
  // contender's thread acquires, waits for its release request, releases.
  static final Map<String, Runnable> releases = new ConcurrentHashMap<>();
  static final Map<String, CountDownLatch> releaseRequests = new ConcurrentHashMap<>();
  static synchronized void say(String s) { System.out.println(s); System.out.flush(); }

  public static void main(String[] a) throws Exception {
    String connect = a[0];
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.trim().split(" ");
      if (f[0].equals("acquire")) start(connect, f);
      else if (f[0].equals("release")) {
        CountDownLatch l = releaseRequests.get(f[1]);
        if (l != null) l.countDown();
      }
    }
    System.exit(0);
  }

  static void start(String connect, String[] f) {
    final String id = f[1], kind = f[2], path = f[3];
    releaseRequests.put(id, new CountDownLatch(1));
    new Thread(() -> {
      try {
        if (kind.equals("zklock")) { zkLock(connect, id, path); return; }
        if (kind.equals("ephemeral")) { ephemeralLock(connect, id, path); return; }
        // "mutex-timeout PATH MS": a mutex on a session of MS ms whose
        // connection states are reported ("ID suspended", "ID lost"), as
        // an application that stops its work on them would see them.
        int sessionMs = kind.equals("mutex-timeout") ? Integer.parseInt(f[4]) : 30000;
        CuratorFramework c = newClient(connect, sessionMs);
        if (kind.equals("mutex-timeout")) {
          c.getConnectionStateListenable().addListener((cl, st) -> {
            if (st == org.apache.curator.framework.state.ConnectionState.SUSPENDED) say(id + " suspended");
            if (st == org.apache.curator.framework.state.ConnectionState.LOST) say(id + " lost");
          });
        }
        c.start();
        c.blockUntilConnected();
        final CountDownLatch done = new CountDownLatch(1);
        switch (kind) {
          case "mutex": case "mutex-timeout": case "read": case "write": {
            InterProcessLock l = kind.startsWith("mutex") ? new InterProcessMutex(c, path)
              : kind.equals("read") ? new InterProcessReadWriteLock(c, path).readLock()
              : new InterProcessReadWriteLock(c, path).writeLock();
            releases.put(id, () -> { try { l.release(); c.close(); say(id + " released"); } catch (Exception e) { say(id + " error " + e); } });
            say(id + " started");
            l.acquire();
            break;
          }
          case "downgrade": {
            InterProcessReadWriteLock rw = new InterProcessReadWriteLock(c, path);
            releases.put(id, () -> { try { rw.readLock().release(); rw.writeLock().release(); c.close(); say(id + " released"); } catch (Exception e) { say(id + " error " + e); } });
            say(id + " started");
            rw.writeLock().acquire();
            rw.readLock().acquire();
            break;
          }
          case "semaphore": {
            InterProcessSemaphoreV2 s = new InterProcessSemaphoreV2(c, path, Integer.parseInt(f[4]));
            final Lease[] lease = new Lease[1];
            releases.put(id, () -> { try { s.returnLease(lease[0]); c.close(); say(id + " released"); } catch (Exception e) { say(id + " error " + e); } });
            say(id + " started");
            lease[0] = s.acquire();
            break;
          }
          case "latch": {
            LeaderLatch l = new LeaderLatch(c, path, id);
            releases.put(id, () -> { try { l.close(); c.close(); say(id + " released"); } catch (Exception e) { say(id + " error " + e); } });
            l.start();
            say(id + " started");
            l.await();
            break;
          }
          default: say(id + " error unknown kind " + kind); return;
        }
        say(id + " acquired");
        releaseRequests.get(id).await();
        releases.remove(id).run();
      } catch (Exception e) { say(id + " error " + e); }
    }).start();
  }

  // With -Dzkscope.acl=SCHEME:ID[,SCHEME:ID:r] every node a contender
  // creates gets that ACL (all permissions, or read only with :r).
  static CuratorFramework newClient(String connect, int sessionMs) {
    CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder().connectString(connect)
      .sessionTimeoutMs(sessionMs).connectionTimeoutMs(15000).retryPolicy(new RetryOneTime(100));
    String spec = System.getProperty("zkscope.acl");
    if (spec != null) {
      final List<org.apache.zookeeper.data.ACL> acl = new ArrayList<>();
      for (String e : spec.split(",")) {
        String[] p = e.split(":");
        int perms = p.length > 2 && p[2].equals("r") ? ZooDefs.Perms.READ : ZooDefs.Perms.ALL;
        acl.add(new org.apache.zookeeper.data.ACL(perms, new org.apache.zookeeper.data.Id(p[0], p[1])));
      }
      b.aclProvider(new org.apache.curator.framework.api.ACLProvider() {
        public List<org.apache.zookeeper.data.ACL> getDefaultAcl() { return acl; }
        public List<org.apache.zookeeper.data.ACL> getAclForPath(String path) { return acl; }
      });
    }
    return b.build();
  }

  // A plain ephemeral lock: create, or watch with exists and try again.
  static void ephemeralLock(String connect, String id, String path) throws Exception {
    CuratorFramework c = newClient(connect, 30000);
    c.start();
    c.blockUntilConnected();
    releases.put(id, () -> { try { c.delete().forPath(path); c.close(); say(id + " released"); } catch (Exception e) { say(id + " error " + e); } });
    say(id + " started");
    while (true) {
      try {
        c.create().creatingParentsIfNeeded().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL).forPath(path, id.getBytes("UTF-8"));
        break;
      } catch (org.apache.zookeeper.KeeperException.NodeExistsException e) {
        CountDownLatch gone = new CountDownLatch(1);
        if (c.checkExists().usingWatcher((org.apache.curator.framework.api.CuratorWatcher) ev -> gone.countDown()).forPath(path) == null) continue;
        say(id + " waiting");
        gone.await();
      }
    }
    say(id + " acquired");
    releaseRequests.get(id).await();
    releases.remove(id).run();
  }

  static void zkLock(String connect, String id, String path) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(connect, 30000, ev -> { if (ev.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) connected.countDown(); });
    connected.await();
    WriteLock l = new WriteLock(zk, path, ZooDefs.Ids.OPEN_ACL_UNSAFE, new LockListener() {
      public void lockAcquired() { say(id + " acquired"); }
      public void lockReleased() {}
    });
    releases.put(id, () -> { try { l.unlock(); zk.close(); say(id + " released"); } catch (Exception e) { say(id + " error " + e); } });
    say(id + " started");
    if (l.lock()) say(id + " acquired");
    releaseRequests.get(id).await();
    releases.remove(id).run();
  }
}
`

const kazooPeerPython = `
import sys, threading
from kazoo.client import KazooClient

hosts = sys.argv[1]
out = threading.Lock()
def say(s):
    with out:
        sys.stdout.write(s + "\n")
        sys.stdout.flush()

class EphemeralLock:
    """A plain ephemeral lock, as hand-written code takes one: create the
    node; on NodeExists watch it with exists and try again once deleted."""
    def __init__(self, zk, path, cid):
        self.zk, self.path, self.cid = zk, path, cid
    def acquire(self):
        from kazoo.exceptions import NodeExistsError
        while True:
            try:
                self.zk.create(self.path, self.cid.encode(), ephemeral=True, makepath=True)
                return
            except NodeExistsError:
                gone = threading.Event()
                if self.zk.exists(self.path, watch=lambda ev: gone.set()) is None:
                    continue
                say(self.cid + " waiting")
                gone.wait()
    def release(self):
        self.zk.delete(self.path)

releases = {}
def start(cid, kind, path, arg):
    try:
        zk = KazooClient(hosts=hosts, timeout=30)
        zk.start()
        if kind == "ephemeral":
            l = EphemeralLock(zk, path, cid)
        elif kind == "semaphore":
            l = zk.Semaphore(path, identifier=cid, max_leases=int(arg))
        else:
            l = {"lock": zk.Lock, "read": zk.ReadLock, "write": zk.WriteLock}[kind](path, cid)
        def release():
            try:
                l.release()
                zk.stop()
                zk.close()
                say(cid + " released")
            except Exception as e:
                say(cid + " error " + repr(e))
        releases[cid] = release
        say(cid + " started")
        l.acquire()
        say(cid + " acquired")
    except Exception as e:
        say(cid + " error " + repr(e))

for line in sys.stdin:
    f = line.split()
    if not f:
        continue
    if f[0] == "acquire":
        arg = f[4] if len(f) > 4 else None
        threading.Thread(target=start, args=(f[1], f[2], f[3], arg), daemon=True).start()
    elif f[0] == "release":
        r = releases.pop(f[1], None)
        if r:
            threading.Thread(target=r, daemon=True).start()
`

var curatorPeerJars = []string{"curator-framework.jar", "curator-client.jar", "curator-recipes.jar",
	"zookeeper.jar", "zookeeper-jute.jar", "zookeeper-recipes-lock.jar", "guava.jar", "slf4j-api.jar", "slf4j-nop.jar"}

var (
	peerBuildOnce sync.Once
	peerBuildDir  string
	peerBuildErr  error
)

// buildPeers compiles the Curator peer and writes the kazoo peer, once per
// test process.
func buildPeers(t testing.TB) string {
	t.Helper()
	Require(t)
	for _, j := range curatorPeerJars {
		if _, err := os.Stat(filepath.Join(JavaDir, j)); err != nil {
			Unavailable(t, "Curator peer needs "+filepath.Join(JavaDir, j)+" (apt-get install -y libcurator-recipes-java zookeeper)")
		}
	}
	if _, err := exec.LookPath("javac"); err != nil {
		Unavailable(t, "javac is not installed (apt-get install -y default-jdk-headless)")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import kazoo").Run(); err != nil {
		Unavailable(t, "kazoo is not installed for /usr/bin/python3 (apt-get install -y python3-kazoo)")
	}
	peerBuildOnce.Do(func() {
		peerBuildDir, peerBuildErr = os.MkdirTemp("", "zkscope-peers-")
		if peerBuildErr != nil {
			return
		}
		src := filepath.Join(peerBuildDir, "CuratorPeer.java")
		if peerBuildErr = os.WriteFile(src, []byte(curatorPeerJava), 0o644); peerBuildErr != nil {
			return
		}
		if peerBuildErr = os.WriteFile(filepath.Join(peerBuildDir, "kazoo_peer.py"), []byte(kazooPeerPython), 0o644); peerBuildErr != nil {
			return
		}
		out, err := exec.Command("javac", "-nowarn", "-cp", curatorClassPath(peerBuildDir), "-d", peerBuildDir, src).CombinedOutput()
		if err != nil {
			peerBuildErr = fmt.Errorf("javac: %v\n%s", err, out)
		}
	})
	if peerBuildErr != nil {
		t.Fatalf("build peers: %v", peerBuildErr)
	}
	return peerBuildDir
}

func curatorClassPath(dir string) string {
	cp := []string{dir}
	for _, j := range curatorPeerJars {
		cp = append(cp, filepath.Join(JavaDir, j))
	}
	return strings.Join(cp, ":")
}

// Peers is one running peer process hosting many contenders.
type Peers struct {
	lib    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	mu     sync.Mutex
	cond   *sync.Cond
	events map[string]time.Time // "ID acquired", "ID started", … and when each was read
	errs   []string
	stderr strings.Builder
	exited bool
}

// StartCurator starts the Curator peer process against connect.
func StartCurator(t testing.TB, connect string) *Peers {
	return StartCuratorWith(t, connect)
}

// StartCuratorWith is [StartCurator] with JVM flags: a JAAS login config
// (-Djava.security.auth.login.config, whose Client section the ZooKeeper
// client authenticates with), and -Dzkscope.acl=SCHEME:ID[,SCHEME:ID:r],
// the ACL of every node the contenders create.
func StartCuratorWith(t testing.TB, connect string, jvmFlags ...string) *Peers {
	dir := buildPeers(t)
	args := append([]string{"-Xmx128m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"}, jvmFlags...)
	return startPeers(t, "curator", exec.Command("java", append(args, "-cp", curatorClassPath(dir), "CuratorPeer", connect)...))
}

// StartKazoo starts the kazoo peer process against connect.
func StartKazoo(t testing.TB, connect string) *Peers {
	dir := buildPeers(t)
	return startPeers(t, "kazoo", exec.Command("/usr/bin/python3", filepath.Join(dir, "kazoo_peer.py"), connect))
}

func startPeers(t testing.TB, lib string, cmd *exec.Cmd) *Peers {
	t.Helper()
	p := &Peers{lib: lib, cmd: cmd, events: map[string]time.Time{}}
	p.cond = sync.NewCond(&p.mu)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s peer: %v", lib, err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			if p.stderr.Len() < 64<<10 {
				p.stderr.WriteString(sc.Text() + "\n")
			}
			p.mu.Unlock()
		}
	}()
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			p.mu.Lock()
			if id, msg, ok := strings.Cut(l, " error "); ok {
				p.errs = append(p.errs, id+": "+msg)
			}
			if _, seen := p.events[l]; !seen {
				p.events[l] = time.Now()
			}
			p.cond.Broadcast()
			p.mu.Unlock()
		}
		p.mu.Lock()
		p.exited = true
		p.cond.Broadcast()
		p.mu.Unlock()
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return p
}

// Acquire starts contender id (its own session) on kind at path and waits
// until it has begun (its session is open and it is about to queue).
func (p *Peers) Acquire(t testing.TB, id, kind, path string, arg ...string) {
	t.Helper()
	line := strings.Join(append([]string{"acquire", id, kind, path}, arg...), " ")
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatalf("%s peer: %v", p.lib, err)
	}
	p.Await(t, id, "started")
}

// Release releases contender id and waits until it has.
func (p *Peers) Release(t testing.TB, id string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, "release "+id+"\n"); err != nil {
		t.Fatalf("%s peer: %v", p.lib, err)
	}
	p.Await(t, id, "released")
}

// Await waits (up to 90 s) until contender id reports event.
func (p *Peers) Await(t testing.TB, id, event string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	timer := time.AfterFunc(90*time.Second, func() { p.mu.Lock(); p.cond.Broadcast(); p.mu.Unlock() })
	defer timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.events[id+" "+event].IsZero() {
		if len(p.errs) > 0 {
			t.Fatalf("%s peer: %s\nstderr:\n%s", p.lib, strings.Join(p.errs, "\n"), p.stderr.String())
		}
		if p.exited || time.Now().After(deadline) {
			t.Fatalf("%s peer: %s never reported %q\nstderr:\n%s", p.lib, id, event, p.stderr.String())
		}
		p.cond.Wait()
	}
}

// Has reports whether contender id has reported event so far.
func (p *Peers) Has(id, event string) bool { return !p.When(id, event).IsZero() }

// When is the moment contender id's event was read from the peer (zero
// when not yet).
func (p *Peers) When(id, event string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.events[id+" "+event]
}
