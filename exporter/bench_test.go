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

// BenchmarkExporterFollow70k runs `zkscope exporter` (the binary, its
// defaults: --max-locks 500, a full scan every --interval, here 30s) on
// the 70,151-znode tree (5,000 lock directories) while it churns at 200
// operations a second, and measures:
//
//   - over a minute scraped every 5 s, as a Prometheus server would: the
//     process's CPU (% of a core) and resident memory (then, and peak);
//
//   - then, scraped every 20 ms: the time of a scrape of /metrics, and how
//     long a change of a lock with a children watch (one with 20
//     contenders, so always among the 500 served) takes to show;
//
//   - churn stopped: the packets the server receives in 10 s without a
//     scrape and in 10 s of 100 scrapes (a scrape reads nothing);
//
//   - the old path, in the same run before and after: a cron job's
//     `zkscope exporter --once --textfile`, which reads the whole tree
//     each time (wall and CPU time).
//
//     go test ./exporter -run '^$' -bench ExporterFollow70k -benchtime 1x -timeout 20m
func BenchmarkExporterFollow70k(b *testing.B) {
	cl := zktest.StartStandalone(b, zktest.Options{Extra: []string{"forceSync=no", "4lw.commands.whitelist=*"}})
	conn, _, err := zk.Connect(cl.Addrs(), 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	const root = "/scan"
	dirs, children := fillBenchTree(b, conn, root)
	watched := dirs[0] // the first lock: watched, and the most waiters
	next := 1001
	for len(children[0]) < 20 {
		children[0] = append(children[0], benchName(0, next))
		if _, err := conn.Create(watched+"/"+benchName(0, next), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			b.Fatal(err)
		}
		next++
	}
	bin := zktest.Zkscope(b)
	once := onceRunner(b, bin, cl.ConnectString(), root)
	var onceRuns []processCost
	onceRuns = append(onceRuns, once())

	port, err := zktest.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	metrics := "http://" + addr + "/metrics"
	cmd := exec.Command(bin, "-s", cl.ConnectString(), "exporter", "--listen", addr, "--interval", "30s", root)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			b.Log(sc.Text())
		}
	}()
	series := `zkscope_lock_waiters{cluster="` + cl.ConnectString() + `",path="` + watched + `",recipe="curator.mutex"} `
	waiters := func() (float64, time.Duration) {
		start := time.Now()
		body := getB(b, metrics)
		took := time.Since(start)
		if i := strings.Index(body, series); i >= 0 {
			v, _, _ := strings.Cut(body[i+len(series):], "\n")
			n, _ := strconv.ParseFloat(v, 64)
			return n, took
		}
		return -1, took
	}
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(tryGet(metrics), series+"19") {
		if time.Now().After(deadline) {
			b.Fatal("the exporter never served the tree")
		}
		time.Sleep(100 * time.Millisecond)
	}

	b.ResetTimer()
	stop := make(chan struct{})
	wg := churn(b, conn, dirs, children, 0, 200, stop)
	pid := cmd.Process.Pid
	cpu0, t0 := procCPU(b, pid), time.Now()
	for time.Since(t0) < time.Minute {
		time.Sleep(5 * time.Second)
		getB(b, metrics)
	}
	cpu, window := procCPU(b, pid)-cpu0, time.Since(t0)
	rss, peak := procMem(b, pid)

	var scrapes, lags []time.Duration
	for range 15 {
		want := float64(len(children[0]) - 1) // a contender more, then one fewer
		if want == 19 {
			name := benchName(0, next)
			next++
			if _, err := conn.Create(watched+"/"+name, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				b.Fatal(err)
			}
			children[0] = append(children[0], name)
			want = 20
		} else {
			if err := conn.Delete(watched+"/"+children[0][len(children[0])-1], -1); err != nil {
				b.Fatal(err)
			}
			children[0] = children[0][:len(children[0])-1]
			want = 19
		}
		changed := time.Now()
		for {
			n, took := waiters()
			scrapes = append(scrapes, took)
			if n == want {
				lags = append(lags, time.Since(changed))
				break
			}
			if time.Since(changed) > 30*time.Second {
				b.Fatalf("a change of %s (%v waiters) not served within 30s", watched, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	b.StopTimer()

	// A scrape reads nothing: the server's packets in 10 s without a
	// scrape and in 10 s of 100 scrapes, alternated three times (the
	// medians: a full scan every 30 s falls in one window or another).
	time.Sleep(2 * time.Second)
	var idles, scrapeds []int64
	for range 3 {
		idles = append(idles, packetsDuring(b, cl.Addrs()[0], 10*time.Second, nil))
		scrapeds = append(scrapeds, packetsDuring(b, cl.Addrs()[0], 10*time.Second, func() { getB(b, metrics) }))
	}
	b.Logf("packets in 10 s, idle: %v; with 100 scrapes: %v", idles, scrapeds)
	slices.Sort(idles)
	slices.Sort(scrapeds)
	idle, scraped := idles[1], scrapeds[1]
	onceRuns = append(onceRuns, once())

	slices.Sort(scrapes)
	slices.Sort(lags)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(100*cpu.Seconds()/window.Seconds(), "cpu-%-of-core")
	b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MB")
	b.ReportMetric(ms(scrapes[len(scrapes)/2]), "scrape-median-ms")
	b.ReportMetric(ms(scrapes[len(scrapes)*99/100]), "scrape-p99-ms")
	b.ReportMetric(ms(lags[len(lags)/2]), "change-visible-median-ms")
	b.ReportMetric(ms(lags[len(lags)-1]), "change-visible-max-ms")
	b.ReportMetric(float64(idle), "zk-packets-10s-idle")
	b.ReportMetric(float64(scraped), "zk-packets-10s-100-scrapes")
	b.ReportMetric(ms(max(onceRuns[0].wall, onceRuns[1].wall)), "once-textfile-ms")
	b.ReportMetric(ms(max(onceRuns[0].cpu, onceRuns[1].cpu)), "once-textfile-cpu-ms")
	b.Logf("%d scrapes, %d changes; once: %+v; exposition %d bytes", len(scrapes), len(lags), onceRuns, len(getB(b, metrics)))
}

// processCost is a whole process's wall and CPU time.
type processCost struct{ wall, cpu time.Duration }

// onceRunner runs `zkscope exporter --once --textfile` on root: the
// cron job's way.
func onceRunner(b *testing.B, bin, connect, root string) func() processCost {
	return func() processCost {
		file := filepath.Join(b.TempDir(), "zkscope.prom")
		cmd := exec.Command(bin, "-s", connect, "exporter", "--once", "--textfile", file, root)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("exporter --once: %v: %s", err, out)
		}
		return processCost{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	}
}

// packetsDuring is how many packets the server at addr received during d,
// calling each 100 times evenly (when not nil).
func packetsDuring(b *testing.B, addr string, d time.Duration, each func()) int64 {
	before := srvrReceived(b, addr)
	start := time.Now()
	for i := range 100 {
		if each != nil {
			each()
		}
		time.Sleep(time.Until(start.Add(d * time.Duration(i+1) / 100)))
	}
	return srvrReceived(b, addr) - before
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
