package ui

import (
	"context"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// BenchmarkLockChurnFloor is what BenchmarkLockPaneChurn1k's churn costs a
// process before any pane: the same 1,000-contender lock and churn (200
// operations a second, made by a child process), and in this process
// only
//
//   - churn: the benchmark's own share (the churn's lines read, the
//     client's session kept);
//   - events: that, and a persistent recursive watch on the lock whose
//     events are taken as they come (zkview.Follow), nothing read;
//   - reads: that, and each batch of events applied to the cached
//     directory as the pane does (scan.ApplyEventsDelta: arrivals read),
//     at most one read per 12 ms like the pane, nothing decoded or drawn.
//
// Metric: this process's CPU in % of one core. The difference between
// the pane's figure and these is the pane's own work.
//
//	go test ./ui -run '^$' -bench LockChurnFloor -benchtime 1x -count 2
//
// ZKSCOPE_CHURN_SECONDS sets each run's length (default 10).
func BenchmarkLockChurnFloor(b *testing.B) {
	for _, mode := range []string{"churn", "events", "reads"} {
		b.Run(mode, func(b *testing.B) { lockChurnFloor(b, mode) })
	}
}

func lockChurnFloor(b *testing.B, mode string) {
	const (
		n     = 1000
		rate  = 200
		every = 12 * time.Millisecond // the pane's followEvery
	)
	period := 10 * time.Second
	if s, err := strconv.Atoi(os.Getenv("ZKSCOPE_CHURN_SECONDS")); err == nil && s > 0 {
		period = time.Duration(s) * time.Second
	}
	c := liveClient(b)
	dir := zktest.Path(b) + "/churn"
	zktest.FillChildren(b, c.Conn(), dir, n, churnName, func(int) []byte { return []byte("10.0.0.9 worker") }, 0)
	kids, _, err := c.Children(dir)
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(kids)
	ctx := context.Background()
	var cache *scan.DirCache
	ready, done := make(<-chan struct{}), make(<-chan struct{})
	take := func() {}
	if mode != "churn" {
		f, err := c.Follow(ctx, dir, true)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Stop()
		ready, done = f.Ready(), f.Done()
		take = func() {
			evs := f.Take()
			if mode != "reads" {
				return
			}
			if _, cache, err = scan.ApplyEventsDelta(ctx, c, dir, cache, evs); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	stop := startChurn(b, c.Servers(), dir, kids, n, rate, func(string, time.Time) {})
	cpu0 := cpuTime(b)
	end := time.After(period)
	takes := 0
	last := time.Now()
loop:
	for {
		select {
		case <-end:
			break loop
		case <-done:
			b.Fatal("the watch ended")
		case <-ready:
		}
		if wait := time.Until(last.Add(every)); mode == "reads" && wait > 0 {
			time.Sleep(wait)
		}
		last = time.Now()
		take()
		takes++
	}
	cpu := cpuTime(b) - cpu0
	stop()
	b.StopTimer()
	b.ReportMetric(100*float64(cpu)/float64(period), "cpu-%")
	b.ReportMetric(float64(takes)/period.Seconds(), "takes/s")
}
