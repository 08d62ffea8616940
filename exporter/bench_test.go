package exporter_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// The big tree of the lock benchmarks: 50 apps × 100 lock directories ×
// 3 contenders, plus 1,000 config nodes per app (70,151 znodes).
const (
	benchApps, benchLocks, benchContenders, benchConfigs = 50, 100, 3, 1000
)

// benchName is contender n's node name in lock directory d (Curator's).
func benchName(d, n int) string {
	return fmt.Sprintf("_c_%08x-0000-4000-8000-%012x-lock-%010d", d, n, n)
}

// fillBenchTree creates the big tree below root and returns each lock
// directory with its children, in order.
func fillBenchTree(b *testing.B, conn *zk.Conn, root string) (dirs []string, children [][]string) {
	b.Helper()
	zktest.MakePath(b, conn, root)
	acl := zk.WorldACL(zk.PermAll)
	var levels [4][]string
	for a := range benchApps {
		app := fmt.Sprintf("%s/app-%02d", root, a)
		levels[0] = append(levels[0], app)
		levels[1] = append(levels[1], app+"/locks", app+"/config")
		for l := range benchLocks {
			dir := fmt.Sprintf("%s/locks/lock-%03d", app, l)
			levels[2] = append(levels[2], dir)
			dirs = append(dirs, dir)
			var names []string
			for c := range benchContenders {
				names = append(names, benchName(len(dirs)-1, c))
				levels[3] = append(levels[3], dir+"/"+names[c])
			}
			children = append(children, names)
		}
		for c := range benchConfigs {
			levels[2] = append(levels[2], fmt.Sprintf("%s/config/c%05d", app, c))
		}
	}
	for _, paths := range levels {
		reqs := make([]*zk.CreateRequest, len(paths))
		for i, p := range paths {
			reqs[i] = &zk.CreateRequest{Path: p, Data: []byte("10.0.0.1 worker"), Acl: acl}
		}
		if err := zktest.CreateAll(conn, reqs); err != nil {
			b.Fatalf("create the tree: %v", err)
		}
	}
	return dirs, children
}

// procCPU is a process's user and system time so far (/proc; Linux).
func procCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * (time.Second / 100) // USER_HZ
}

// procMem is a process's resident and peak resident memory in bytes.
func procMem(b *testing.B, pid int) (rss, peak int64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			if f[0] == "VmRSS:" {
				rss = kb << 10
			} else {
				peak = kb << 10
			}
		}
	}
	return rss, peak
}

// churn releases the holder of a random lock directory and queues a new
// contender in another, rate operations a second in all, until stop
// closes; skip is left alone.
func churn(b *testing.B, conn *zk.Conn, dirs []string, children [][]string, skip int, rate int, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		next := benchContenders
		r := rand.New(rand.NewPCG(1, 2))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			d := r.IntN(len(dirs))
			if d == skip {
				continue
			}
			if i%2 == 0 && len(children[d]) > 1 {
				if err := conn.Delete(dirs[d]+"/"+children[d][0], -1); err != nil {
					b.Errorf("churn: %v", err)
					return
				}
				children[d] = children[d][1:]
				continue
			}
			name := benchName(d, next)
			next++
			if _, err := conn.Create(dirs[d]+"/"+name, []byte("10.0.0.9 worker"), 0, zk.WorldACL(zk.PermAll)); err != nil {
				b.Errorf("churn: %v", err)
				return
			}
			children[d] = append(children[d], name)
		}
	}()
	return &wg
}

// srvrReceived is the server's count of packets received (srvr).
func srvrReceived(b *testing.B, addr string) int64 {
	out, err := zktest.FourLetterWord(addr, "srvr", 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "Received: "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	b.Fatalf("srvr: no Received line: %s", out)
	return 0
}

// BenchmarkExporterFollow70k runs `zkscope exporter` (the binary, every
// lock served: --max-locks 0, a full scan every 30s) on the 70,151-znode
// tree (5,000 lock directories) while it churns at 200 operations a
// second, and measures over a minute: the process's CPU (% of a core)
// and resident memory (now and peak), the time of a scrape of /metrics,
// how long a change of a lock with a children watch takes to show in
// /metrics, and the packets the server received during 100 scrapes
// without churn (a scrape reads nothing). The old path in the same run,
// alternated: a cron job's `zkscope exporter --once --textfile`, which
// reads the whole tree each time.
//
//	go test ./exporter -run '^$' -bench ExporterFollow70k -benchtime 1x -timeout 20m
func BenchmarkExporterFollow70k(b *testing.B) {
	cl := zktest.StartStandalone(b, zktest.Options{Extra: []string{"forceSync=no", "4lw.commands.whitelist=*"}})
	conn, _, err := zk.Connect(cl.Addrs(), 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	const root = "/scan"
	dirs, children := fillBenchTree(b, conn, root)
	bin := zktest.Zkscope(b)
	port, err := zktest.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	metrics := "http://" + addr + "/metrics"

	once := func() time.Duration { // the cron job's way
		file := filepath.Join(b.TempDir(), "zkscope.prom")
		start := time.Now()
		out, err := exec.Command(bin, "-s", cl.ConnectString(), "exporter", "--once", "--textfile", file, "--max-locks", "0", root).CombinedOutput()
		if err != nil {
			b.Fatalf("exporter --once: %v: %s", err, out)
		}
		return time.Since(start)
	}
	var onceWalls []time.Duration
	onceWalls = append(onceWalls, once())

	cmd := exec.Command(bin, "-s", cl.ConnectString(), "exporter", "--listen", addr, "--max-locks", "0", "--interval", "30s", root)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
		}
	}()
	watched := root + "/app-00/locks/lock-000"
	waitersOf := func(p string) (float64, time.Duration) {
		start := time.Now()
		body := getB(b, metrics)
		took := time.Since(start)
		prefix := `zkscope_lock_waiters{cluster="` + cl.ConnectString() + `",path="` + p + `",recipe="curator.mutex"} `
		for _, line := range strings.Split(body, "\n") {
			if v, ok := strings.CutPrefix(line, prefix); ok {
				n, _ := strconv.ParseFloat(v, 64)
				return n, took
			}
		}
		return -1, took
	}
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(tryGet(metrics), `path="`+watched+`",recipe="curator.mutex"} 2`) {
		if time.Now().After(deadline) {
			b.Fatal("the exporter never served the tree")
		}
		time.Sleep(100 * time.Millisecond)
	}

	b.ResetTimer()
	stop := make(chan struct{})
	wg := churn(b, conn, dirs, children, 0, 200, stop)
	cpu0, t0 := procCPU(b, cmd.Process.Pid), time.Now()
	var scrapes, lags []time.Duration
	next := 1001 // odd: a contender more first, then one fewer
	for time.Since(t0) < time.Minute {
		// A change of the watched lock: a contender more or one fewer.
		want := 3.0
		if next%2 == 0 {
			want = 2
			if err := conn.Delete(watched+"/"+children[0][len(children[0])-1], -1); err != nil {
				b.Fatal(err)
			}
			children[0] = children[0][:len(children[0])-1]
		} else {
			name := benchName(0, next)
			if _, err := conn.Create(watched+"/"+name, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				b.Fatal(err)
			}
			children[0] = append(children[0], name)
		}
		next++
		changed := time.Now()
		for {
			n, took := waitersOf(watched)
			scrapes = append(scrapes, took)
			if n == want {
				lags = append(lags, time.Since(changed))
				break
			}
			if time.Since(changed) > 30*time.Second {
				var cl []string
				for _, line := range strings.Split(tryGet(metrics), "\n") {
					if strings.HasPrefix(line, "zkscope_cluster") || strings.Contains(line, watched+`"`) || strings.HasPrefix(line, "process_") {
						cl = append(cl, line)
					}
				}
				b.Fatalf("a change of %s (%v waiters) not served within 30s:\n%s", watched, want, strings.Join(cl, "\n"))
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(time.Second)
	}
	cpu := procCPU(b, cmd.Process.Pid) - cpu0
	window := time.Since(t0)
	close(stop)
	wg.Wait()
	rss, peak := procMem(b, cmd.Process.Pid)
	b.StopTimer()

	// A scrape reads nothing: the server's packets over 100 scrapes with
	// no change (the session's pings, one every few seconds, remain).
	time.Sleep(2 * time.Second)
	before, quiet := srvrReceived(b, cl.Addrs()[0]), time.Now()
	for range 100 {
		getB(b, metrics)
	}
	packets := srvrReceived(b, cl.Addrs()[0]) - before
	quietFor := time.Since(quiet)
	onceWalls = append(onceWalls, once())

	slices.Sort(scrapes)
	slices.Sort(lags)
	slices.Sort(onceWalls)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(100*cpu.Seconds()/window.Seconds(), "cpu-%-of-core")
	b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MB")
	b.ReportMetric(ms(scrapes[len(scrapes)/2]), "scrape-median-ms")
	b.ReportMetric(ms(scrapes[len(scrapes)*99/100]), "scrape-p99-ms")
	b.ReportMetric(ms(lags[len(lags)/2]), "change-visible-median-ms")
	b.ReportMetric(ms(lags[len(lags)-1]), "change-visible-max-ms")
	b.ReportMetric(float64(packets), "zk-packets-100-scrapes")
	b.ReportMetric(ms(onceWalls[len(onceWalls)/2]), "once-textfile-ms")
	b.Logf("%d scrapes, %d changes timed over %s; 100 scrapes took %s; exposition %d bytes",
		len(scrapes), len(lags), window.Round(time.Second), quietFor.Round(time.Millisecond), len(getB(b, metrics)))
}

// tryGet is url's body, "" on an error (the exporter not serving yet).
func tryGet(url string) string {
	resp, err := httpClient.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var sb strings.Builder
	bufio.NewReader(resp.Body).WriteTo(&sb)
	return sb.String()
}

func getB(b *testing.B, url string) string {
	resp, err := httpClient.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	if _, err := bufio.NewReader(resp.Body).WriteTo(&sb); err != nil {
		b.Fatal(err)
	}
	return sb.String()
}
