package scan

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// walkFloorJava is the floor zkscope's scan is measured against: ZooKeeper's
// own Java client, in one process, walking the tree breadth-first with
// multi-read getChildren of every node (batches of 1,000) and then
// multi-read getData of every lock node (children of a directory whose
// children have lock names), batches of 1,000.
const walkFloorJava = `
import java.util.*;
import java.util.concurrent.CountDownLatch;
import org.apache.zookeeper.*;

public class WalkFloor {
    public static void main(String[] a) throws Exception {
        int runs = Integer.parseInt(a[2]);
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(a[0], 30000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) up.countDown();
        });
        up.await();
        long[] n = walk(zk, a[1]);
        for (int i = 0; i < 5; i++) walk(zk, a[1]); // warm up
        long start = System.nanoTime();
        for (int i = 0; i < runs; i++) n = walk(zk, a[1]);
        System.out.println(n[0] + " " + n[1] + " " + (System.nanoTime() - start) / 1e9 / runs);
        zk.close();
    }

    static long[] walk(ZooKeeper zk, String root) throws Exception {
        List<String> level = List.of(root);
        List<String> lockNodes = new ArrayList<>();
        long nodes = 1;
        while (!level.isEmpty()) {
            List<String> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i += 1000) {
                List<String> part = level.subList(i, Math.min(i + 1000, level.size()));
                List<Op> ops = new ArrayList<>(part.size());
                for (String p : part) ops.add(Op.getChildren(p));
                List<OpResult> rs = zk.multi(ops);
                for (int j = 0; j < rs.size(); j++) {
                    if (!(rs.get(j) instanceof OpResult.GetChildrenResult)) continue;
                    List<String> kids = ((OpResult.GetChildrenResult) rs.get(j)).getChildren();
                    boolean lockDir = false;
                    for (String k : kids) if (k.contains("-lock-")) { lockDir = true; break; }
                    String p = part.get(j);
                    for (String k : kids) {
                        String c = p.equals("/") ? "/" + k : p + "/" + k;
                        nodes++;
                        (lockDir ? lockNodes : next).add(c);
                    }
                }
            }
            level = next;
        }
        for (int i = 0; i < lockNodes.size(); i += 1000) {
            List<Op> ops = new ArrayList<>();
            for (String p : lockNodes.subList(i, Math.min(i + 1000, lockNodes.size()))) ops.add(Op.getData(p));
            zk.multi(ops);
        }
        return new long[]{nodes, lockNodes.size()};
    }
}
`

// javaClientClassPath is what the floor and ZooKeeper's own command line
// client need.
var javaClientClassPath = []string{"zookeeper.jar", "zookeeper-jute.jar", "slf4j-api.jar", "slf4j-nop.jar", "commons-cli.jar"}

// buildWalkFloor compiles the Java floor and returns its class path.
func buildWalkFloor(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("javac"); err != nil {
		zktest.Unavailable(b, "javac is not installed (apt-get install -y default-jdk-headless)")
	}
	dir := b.TempDir()
	cp := []string{dir}
	for _, j := range javaClientClassPath {
		cp = append(cp, filepath.Join(zktest.JavaDir, j))
	}
	src := filepath.Join(dir, "WalkFloor.java")
	if err := os.WriteFile(src, []byte(walkFloorJava), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("javac", "-nowarn", "-cp", strings.Join(cp, ":"), "-d", dir, src).CombinedOutput(); err != nil {
		b.Fatalf("javac: %v\n%s", err, out)
	}
	return strings.Join(cp, ":")
}

// fillScanTree creates below root: apps × (locks/lock-NNN with contenders
// lock nodes each, and config/ with configs leaves), each level in
// multi-create batches of 1,000, 8 in flight. It returns the node count.
func fillScanTree(b *testing.B, conn *zk.Conn, root string, apps, locks, contenders, configs int) int {
	b.Helper()
	zktest.MakePath(b, conn, root)
	acl := zk.WorldACL(zk.PermAll)
	var levels [4][]string
	for a := 0; a < apps; a++ {
		app := fmt.Sprintf("%s/app-%02d", root, a)
		levels[0] = append(levels[0], app)
		levels[1] = append(levels[1], app+"/locks", app+"/config")
		for l := 0; l < locks; l++ {
			dir := fmt.Sprintf("%s/locks/lock-%03d", app, l)
			levels[2] = append(levels[2], dir)
			for c := 0; c < contenders; c++ {
				levels[3] = append(levels[3], fmt.Sprintf("%s/_c_%08x-0000-4000-8000-%012x-lock-%010d", dir, a*locks+l, c, c))
			}
		}
		for c := 0; c < configs; c++ {
			levels[2] = append(levels[2], fmt.Sprintf("%s/config/c%05d", app, c))
		}
	}
	total := 1
	for _, paths := range levels {
		total += len(paths)
		reqs := make([]*zk.CreateRequest, len(paths))
		for i, p := range paths {
			reqs[i] = &zk.CreateRequest{Path: p, Data: []byte("10.0.0.1 worker"), Acl: acl}
		}
		if err := zktest.CreateAll(conn, reqs); err != nil {
			b.Fatalf("create the tree: %v", err)
		}
	}
	return total
}

// processRun is one whole zkscope (or other) process: wall time and peak
// RSS.
type processRun struct {
	wall time.Duration
	rss  int64 // bytes
}

// runProcess runs cmd with stdout into a buffer and returns its wall time
// and peak RSS; want, when set, must be in the output.
func runProcess(b *testing.B, cmd *exec.Cmd, stdout *bytes.Buffer, want string, okCodes ...int) processRun {
	b.Helper()
	// The child's own peak RSS, measured by time(1): the rusage Go's
	// exec.Cmd returns also counts this process's peak, as Linux carries
	// the peak of the address space a child is started from (Go starts
	// children with vfork) across exec.
	rssFile := filepath.Join(b.TempDir(), "rss")
	cmd.Args = append([]string{"/usr/bin/time", "-f", "%M", "-o", rssFile}, cmd.Args...)
	cmd.Path = "/usr/bin/time"
	stdout.Reset()
	cmd.Stdout = stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	code := cmd.ProcessState.ExitCode()
	ok := err == nil
	for _, c := range okCodes {
		ok = ok || code == c
	}
	if !ok || want != "" && !bytes.Contains(stdout.Bytes(), []byte(want)) {
		b.Fatalf("%s: %v (exit %d): %s", strings.Join(cmd.Args, " "), err, code, stderr.String())
	}
	raw, err := os.ReadFile(rssFile)
	if err != nil {
		b.Fatalf("peak RSS of %s (time(1), Debian package time): %v", strings.Join(cmd.Args, " "), err)
	}
	// The last line: a first one says when the command exited non-zero.
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	kb, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil {
		b.Fatalf("peak RSS of %s: time(1) wrote %q", strings.Join(cmd.Args, " "), raw)
	}
	return processRun{wall: wall, rss: kb * 1024}
}

// median is the runs' median wall time and median peak RSS.
func median(runs []processRun) processRun {
	walls := make([]time.Duration, len(runs))
	rss := make([]int64, len(runs))
	for i, r := range runs {
		walls[i], rss[i] = r.wall, r.rss
	}
	slices.Sort(walls)
	slices.Sort(rss)
	return processRun{wall: walls[len(walls)/2], rss: rss[len(rss)/2]}
}

// mean averages runs: mean wall time and the highest peak RSS.
func mean(runs []processRun) processRun {
	var out processRun
	for _, r := range runs {
		out.wall += r.wall
		out.rss = max(out.rss, r.rss)
	}
	out.wall /= time.Duration(len(runs))
	return out
}

// BenchmarkScan70k builds a 70k-znode tree (50 apps × 100 lock directories
// × 3 contenders, plus 1,000 config nodes per app: 70,151 znodes) and, in
// the same run against the same server, times:
//
//   - the floor: ZooKeeper's Java client in one process, a breadth-first
//     multi-read walk (getChildren of every node, getData of the 15,000
//     lock nodes, batches of 1,000), warm;
//   - `zkscope locks /scan --json`, `zkscope doctor /scan` and
//     `zkscope tree /scan` as whole processes (wall time, peak RSS);
//   - `zkCli.sh ls -R /scan` as a whole process (once: it takes seconds).
//
// Metrics: ms and MB of each, and the ratios to the floor.
//
//	go test ./lockops -run '^$' -bench Scan70k -benchtime 3x
func BenchmarkScan70k(b *testing.B) {
	cl := zktest.StartStandalone(b, zktest.Options{Extra: []string{"forceSync=no", "4lw.commands.whitelist=*"}})
	conn, _, err := zk.Connect(cl.Addrs(), 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	const root = "/scan"
	total := fillScanTree(b, conn, root, 50, 100, 3, 1000)
	cp := buildWalkFloor(b)
	bin := locktest.ZkscopeBinary(b)

	// The floor, warm (which also warms the server up).
	out, err := exec.Command("java", "-Djute.maxbuffer=16777216", "-cp", cp, "WalkFloor", cl.ConnectString(), root, strconv.Itoa(max(b.N, 5))).CombinedOutput()
	if err != nil {
		b.Fatalf("java floor: %v: %s", err, out)
	}
	f := strings.Fields(string(out))
	if len(f) < 3 || f[0] != strconv.Itoa(total) || f[1] != "15000" {
		b.Fatalf("java floor walked %q, want %d nodes and 15000 lock nodes", out, total)
	}
	secs, _ := strconv.ParseFloat(f[len(f)-1], 64)
	floor := time.Duration(secs * float64(time.Second))

	var stdout bytes.Buffer
	stdout.Grow(16 << 20)
	zkscope := func(want string, okCodes []int, args ...string) processRun {
		var runs []processRun
		for i := 0; i < 2; i++ { // warm-up: the server's paths, the page cache
			runProcess(b, exec.Command(bin, append([]string{"-s", cl.ConnectString()}, args...)...), &stdout, want, okCodes...)
		}
		for i := 0; i < b.N; i++ {
			runs = append(runs, runProcess(b, exec.Command(bin, append([]string{"-s", cl.ConnectString()}, args...)...), &stdout, want, okCodes...))
		}
		return mean(runs)
	}
	b.ResetTimer()
	locks := zkscope(`"curator.mutex"`, nil, "locks", root, "--json")
	doctor := zkscope("", []int{1}, "doctor", root)
	tree := zkscope("c00999", nil, "tree", root)
	b.StopTimer()

	// ZooKeeper's own command line client, once.
	cli := exec.Command("java", "-Djute.maxbuffer=16777216", "-cp", cp, "org.apache.zookeeper.ZooKeeperMain", "-server", cl.ConnectString(), "ls", "-R", root)
	zkCli := runProcess(b, cli, &stdout, "c00999")

	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	mb := func(n int64) float64 { return float64(n) / (1 << 20) }
	b.ReportMetric(ms(floor), "java-floor-ms")
	b.ReportMetric(ms(locks.wall), "locks-json-ms")
	b.ReportMetric(mb(locks.rss), "locks-json-MB")
	b.ReportMetric(ms(locks.wall)/ms(floor), "locks-x-floor")
	b.ReportMetric(ms(doctor.wall), "doctor-ms")
	b.ReportMetric(mb(doctor.rss), "doctor-MB")
	b.ReportMetric(ms(tree.wall), "tree-ms")
	b.ReportMetric(mb(tree.rss), "tree-MB")
	b.ReportMetric(ms(zkCli.wall), "zkCli-ls-R-ms")
	b.ReportMetric(ms(zkCli.wall)/ms(locks.wall), "zkCli-x-locks")
}

// BenchmarkDoctor1M runs `zkscope doctor /` as a whole process on a
// server holding 1,000,001 znodes (100 apps × 100 lock directories × 3
// contenders, plus 9,597 config nodes per app). Metrics: wall time and
// peak RSS (the goal: ≤ 5 s, ≤ 150 MB). ZKSCOPE_PEER_BIN names another
// build to run alternately with this one (the peer-* metrics).
//
//	go test ./lockops -run '^$' -bench Doctor1M -benchtime 2x -timeout 30m
func BenchmarkDoctor1M(b *testing.B) {
	cl := zktest.StartStandalone(b, zktest.Options{
		Extra:    []string{"forceSync=no", "4lw.commands.whitelist=*", "snapCount=2000000"},
		JVMFlags: []string{"-Xmx3g"},
	})
	conn, _, err := zk.Connect(cl.Addrs(), 60*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	total := fillScanTree(b, conn, "/big", 100, 100, 3, 9597)
	bins := []string{locktest.ZkscopeBinary(b)}
	if peer := os.Getenv("ZKSCOPE_PEER_BIN"); peer != "" {
		bins = append(bins, peer) // another build, alternated with this one
	}
	var stdout bytes.Buffer
	doctor := func(bin string) processRun {
		return runProcess(b, exec.Command(bin, "-s", cl.ConnectString(), "doctor", "/"), &stdout, "", 1)
	}
	doctor(bins[0]) // warm-up: the server's paths
	b.ResetTimer()
	runs := make([][]processRun, len(bins))
	for i := 0; i < b.N; i++ {
		for j, bin := range bins {
			runs[j] = append(runs[j], doctor(bin))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(total), "znodes")
	for j, prefix := range []string{"", "peer-"}[:len(bins)] {
		r := mean(runs[j])
		b.ReportMetric(float64(r.wall)/1e6, prefix+"doctor-ms")
		b.ReportMetric(float64(r.rss)/(1<<20), prefix+"doctor-MB")
	}
}
