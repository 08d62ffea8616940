package treecache

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

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
