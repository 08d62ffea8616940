package demo

// The programs that run the libraries' own contenders: Curator's in a
// Java source file (run by java's source launcher, so no compiler step),
// kazoo's in a Python one.

// curatorJava is the Curator contenders' program: java -cp JARS
// DemoCurator.java CONNECT PATH=MODE… runs one contender per PATH=MODE
// (exclusive: InterProcessMutex; read, write: InterProcessReadWriteLock),
// prints "ready" once all are connected and stops when its stdin closes.
const curatorJava = `
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

// kazooPython is the kazoo contenders' program: python3
// demo_kazoo.py CONNECT PATH=MODE… runs one contender per PATH=MODE
// (exclusive: Lock; read, write: ReadLock, WriteLock), prints "ready"
// once all are connected and stops when its stdin closes.
const kazooPython = `
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
