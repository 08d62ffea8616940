package treecache

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

var (
	bigDirOnce sync.Once
	bigDir     string
)

// bigDirectory makes (once per process) a node with n children on the
// shared server, created with Multi in batches of 1,000.
func bigDirectory(b *testing.B, c *zkview.Client, n int) string {
	b.Helper()
	bigDirOnce.Do(func() {
		bigDir = fmt.Sprintf("/zkscope-bench/big-%d-%d", n, time.Now().UnixNano())
		start := time.Now()
		zktest.FillChildren(b, c.Conn(), bigDir, n,
			func(i int) string { return fmt.Sprintf("node-%07d", i) },
			func(int) []byte { return []byte("x") }, 0)
		b.Logf("created %d children in %s", n, time.Since(start).Round(time.Millisecond))
	})
	return bigDir
}

// BenchmarkTreeExpand100k measures expanding a node with 100,000 children
// (ns/op: one children read with its watch, sorting the names) and, as
// ms-stats60/op, reading the stats of one screen of visible rows (60) in one
// bulk read.
func BenchmarkTreeExpand100k(b *testing.B) {
	cl := zktest.Shared(b)
	c := dial(b, zkview.Config{Servers: cl.Addrs(), SessionTimeout: 20 * time.Second})
	const n = 100_000
	dirPath := bigDirectory(b, c, n)
	ctx := context.Background()
	var statTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr := New(c)
		if err := tr.Expand(ctx, dirPath); err != nil {
			b.Fatal(err)
		}
		names, _ := tr.Children(dirPath)
		if len(names) != n {
			b.Fatalf("expanded %d children, want %d", len(names), n)
		}
		b.StopTimer()
		s := time.Now()
		visible := make([]string, 60)
		for j := range visible {
			visible[j] = zkview.Join(dirPath, names[n/2+j])
		}
		if err := tr.LoadStats(ctx, visible); err != nil {
			b.Fatal(err)
		}
		statTime += time.Since(s)
		tr.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(statTime.Microseconds())/float64(b.N)/1000, "ms-stats60/op")
}

// BenchmarkTreeChurn100k keeps the 100,000-children node expanded while
// another session adds and removes a child of it, 100 operations a second,
// for 10 s: each round of the tree's re-reads lists the 100,000 names
// again. fixed: a round every 100 ms, whatever it costs (the tree before
// reloadCostTimes); adaptive: the next round no sooner than ten times the
// last one's length after its start. Metrics: the rounds that brought new
// children a second, this process's CPU in % of one core (the churning
// session's share is the same in both).
//
//	go test ./zkview/treecache -run '^$' -bench TreeChurn100k -benchtime 1x -count 2
func BenchmarkTreeChurn100k(b *testing.B) {
	for _, mode := range []string{"fixed", "adaptive"} {
		b.Run(mode, func(b *testing.B) {
			saved := reloadCostTimes
			defer func() { reloadCostTimes = saved }()
			if mode == "fixed" {
				reloadCostTimes = 0
			}
			treeChurn(b)
		})
	}
}

func treeChurn(b *testing.B) {
	const period = 10 * time.Second
	cl := zktest.Shared(b)
	c := dial(b, zkview.Config{Servers: cl.Addrs(), SessionTimeout: 20 * time.Second})
	dirPath := bigDirectory(b, c, 100_000)
	other := dial(b, zkview.Config{Servers: cl.Addrs(), SessionTimeout: 20 * time.Second})
	tr := New(c)
	defer tr.Close()
	if err := tr.Expand(context.Background(), dirPath); err != nil {
		b.Fatal(err)
	}
	stop := make(chan struct{})
	churned := make(chan error, 1)
	go func() {
		tick := time.NewTicker(20 * time.Millisecond) // a create and a delete each
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				churned <- nil
				return
			case <-tick.C:
			}
			p := fmt.Sprintf("%s/churn-%d", dirPath, i)
			if _, err := other.Conn().Create(other.Abs(p), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				churned <- err
				return
			}
			if err := other.Conn().Delete(other.Abs(p), -1); err != nil {
				churned <- err
				return
			}
		}
	}()
	b.ResetTimer()
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	end := time.After(period)
	rounds := 0
loop:
	for {
		select {
		case ev := <-tr.Events():
			if ev.Changes[dirPath]&ChangeChildren != 0 {
				rounds++
			}
		case <-end:
			break loop
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	close(stop)
	if err := <-churned; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(float64(rounds)/period.Seconds(), "rounds/s")
	b.ReportMetric(100*float64(cpu)/float64(period), "cpu-%")
}
