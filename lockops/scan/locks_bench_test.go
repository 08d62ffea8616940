package scan

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

const kazooContendersScript = `
import sys, time
from kazoo.client import KazooClient
hosts, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
zk = KazooClient(hosts=hosts, timeout=30)
zk.start()
lock = zk.Lock(path)
count = len(lock.contenders())  # warm up
start = time.monotonic()
for _ in range(n):
    count = len(lock.contenders())
print(count, (time.monotonic() - start) / n)
zk.stop()
`

// BenchmarkLock10kVsKazoo reads and decodes a 10,000-contender kazoo lock
// (one listing, one bulk read, decode) and, in the same run, times kazoo's
// own Lock.contenders() on the same lock and `zkscope locks PATH --json` as
// a whole process (median wall time and peak RSS; alternated with the
// build ZKSCOPE_PEER_BIN names, if any). Metrics: ms per read for each, and
// how many times faster zkscope is than kazoo.
//
// The contenders are what 10,000 clients make: one session each (on a
// server of its own that lets sessions outlive their connections for the
// run), so the lock is a healthy queue, not one session's 9,999 orphans.
//
//	go test ./lockops/scan -run '^$' -bench Lock10kVsKazoo -benchtime 15x
//	ZKSCOPE_PEER_BIN=/path/to/other/zkscope go test ./lockops/scan -run '^$' -bench Lock10kVsKazoo -benchtime 15x
func BenchmarkLock10kVsKazoo(b *testing.B) {
	const n = 10000
	cl := zktest.StartStandalone(b, zktest.Options{MaxSessionTimeout: 600000, Extra: []string{"forceSync=no"}})
	c := locktest.NewClient(b, cl.Addrs())
	p := "/zkscope-bench/lock10k"
	zktest.MakePath(b, c.Conn(), p)
	zktest.EphemeralsOfOwnSessions(b, cl.Addrs()[0], p, n,
		func(i int) string { return fmt.Sprintf("%032x__lock__", i) },
		func(i int) []byte { return []byte(fmt.Sprintf("worker-%d", i)) },
		true, 10*time.Minute)
	// kazoo first: its reads also warm the server (JIT) up for ours.
	zktest.Require(b)
	script := filepath.Join(b.TempDir(), "contenders.py")
	if err := os.WriteFile(script, []byte(kazooContendersScript), 0o644); err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command("/usr/bin/python3", script, cl.ConnectString(), p, strconv.Itoa(b.N)).CombinedOutput()
	if err != nil {
		zktest.Unavailable(b, fmt.Sprintf("kazoo contenders(): %v: %s", err, out))
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || f[0] != strconv.Itoa(n) {
		b.Fatalf("kazoo contenders() said %q", out)
	}
	secs, _ := strconv.ParseFloat(f[1], 64)
	kazoo := time.Duration(secs * float64(time.Second))

	ctx := context.Background()

	read := func() lockops.Queue {
		d, err := ReadDir(ctx, c, p)
		if err != nil {
			b.Fatal(err)
		}
		return lockops.Decode(d, lockops.DecodeOptions{})
	}
	if q := read(); len(q.Participants) != n || q.Kind != lockops.KindKazooLock {
		b.Fatalf("decoded %d participants of %s", len(q.Participants), q.Kind)
	}
	// A production server has long compiled its multi-read path; a fresh
	// one needs a few hundred thousand reads before its timings settle.
	for i := 0; i < 40; i++ {
		read()
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		read()
	}
	ours := time.Since(start) / time.Duration(b.N)
	b.StopTimer()

	// The whole process, JSON output included (servers not asked: the
	// comparison is with kazoo's read of the same data): wall time and peak
	// RSS, medians. ZKSCOPE_PEER_BIN names another build, run alternately
	// with this one (the peer-* metrics).
	bins := []string{locktest.ZkscopeBinary(b)}
	if peer := os.Getenv("ZKSCOPE_PEER_BIN"); peer != "" {
		bins = append(bins, peer)
	}
	// The reader of the pipe keeps one buffer: the time is zkscope's, not
	// this process's first touches of a fresh 8 MB buffer each run.
	var stdout bytes.Buffer
	stdout.Grow(8 << 20)
	run := func(bin string) processRun {
		cmd := exec.Command(bin, "-s", cl.ConnectString(), "locks", p, "--json", "--no-verify")
		return runProcess(b, cmd, &stdout, `"kazoo.lock"`)
	}
	// Warm-up: the server's connection and session paths too (a fresh
	// server answers the first few dozen clients slower).
	for i := 0; i < 20; i++ {
		run(bins[i%len(bins)])
	}
	runs := make([][]processRun, len(bins))
	for i := 0; i < b.N; i++ {
		for j, bin := range bins {
			runs[j] = append(runs[j], run(bin))
		}
	}
	proc := median(runs[0])
	for j, prefix := range []string{"", "peer-"}[:len(bins)] {
		r := median(runs[j])
		b.ReportMetric(float64(r.wall)/1e6, prefix+"process-median-ms")
		b.ReportMetric(float64(r.rss)/(1<<20), prefix+"process-median-peak-MB")
	}

	b.ReportMetric(float64(ours)/1e6, "zkscope-ms/op")
	b.ReportMetric(float64(proc.wall)/1e6, "zkscope-process-ms/op")
	b.ReportMetric(float64(kazoo)/1e6, "kazoo-contenders-ms/op")
	b.ReportMetric(float64(kazoo)/float64(ours), "x-faster")
	b.ReportMetric(float64(kazoo)/float64(proc.wall), "x-faster-process")
}
