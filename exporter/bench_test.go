package exporter_test

import (
	"bufio"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

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
//     process's CPU (% of a core) and resident memory (then; and its
//     peak over the whole run, read at its end);
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
	dirs, children := zktest.FillBenchTree(b, conn, root)
	watched := dirs[0] // the first lock: watched, and the most waiters
	next := 1001
	for len(children[0]) < 20 {
		children[0] = append(children[0], zktest.BenchName(0, next))
		if _, err := conn.Create(watched+"/"+zktest.BenchName(0, next), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
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
	wg := zktest.Churn(b, conn, dirs, children, 0, 200, stop, nil)
	pid := cmd.Process.Pid
	cpu0, t0 := zktest.ProcCPU(b, pid), time.Now()
	for time.Since(t0) < time.Minute {
		time.Sleep(5 * time.Second)
		getB(b, metrics)
	}
	cpu, window := zktest.ProcCPU(b, pid)-cpu0, time.Since(t0)
	rss, _ := zktest.ProcMem(b, pid)

	var scrapes, lags []time.Duration
	for range 15 {
		want := float64(len(children[0]) - 1) // a contender more, then one fewer
		if want == 19 {
			name := zktest.BenchName(0, next)
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
		n, who := packetsDuring(b, cl.Addrs()[0], 10*time.Second, nil)
		b.Logf("10 s idle: %d packets; sessions: %s", n, who)
		idles = append(idles, n)
		n, who = packetsDuring(b, cl.Addrs()[0], 10*time.Second, func() { getB(b, metrics) })
		b.Logf("10 s of 100 scrapes: %d packets; sessions: %s", n, who)
		scrapeds = append(scrapeds, n)
	}
	b.Logf("packets in 10 s, idle: %v; with 100 scrapes: %v", idles, scrapeds)
	slices.Sort(idles)
	slices.Sort(scrapeds)
	idle, scraped := idles[1], scrapeds[1]
	_, peak := zktest.ProcMem(b, pid) // the whole run's: the scrapes every 20 ms and 100 ms included
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
// calling each 100 times evenly (when not nil), and which sessions sent
// them (cons: each connection's packets received and its last operation),
// as "0x…: +n (LOP)".
func packetsDuring(b *testing.B, addr string, d time.Duration, each func()) (int64, string) {
	before, sessions := srvrReceived(b, addr), consRecved(b, addr)
	start := time.Now()
	for i := range 100 {
		if each != nil {
			each()
		}
		time.Sleep(time.Until(start.Add(d * time.Duration(i+1) / 100)))
	}
	n := srvrReceived(b, addr) - before
	var who []string
	for sid, c := range consRecved(b, addr) {
		if was, ok := sessions[sid]; !ok || c.recved != was.recved {
			who = append(who, fmt.Sprintf("%s: +%d (%s)", sid, c.recved-was.recved, c.lop))
		}
	}
	slices.Sort(who)
	return n, strings.Join(who, ", ")
}

// consConn is one connection as cons lists it.
type consConn struct {
	recved int64
	lop    string
}

var consLine = regexp.MustCompile(`recved=(\d+),.*sid=(0x[0-9a-f]+),lop=(\w+)`)

// consRecved is every session's connection to the server at addr, by
// session id (cons).
func consRecved(b *testing.B, addr string) map[string]consConn {
	out, err := zktest.FourLetterWord(addr, "cons", 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	m := map[string]consConn{}
	for _, line := range strings.Split(out, "\n") {
		if f := consLine.FindStringSubmatch(line); f != nil {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			m[f[2]] = consConn{recved: n, lop: f[3]}
		}
	}
	return m
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
