package zkview

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

var (
	bigDirOnce sync.Once
	bigDir     string
	bigDirErr  error
)

// bigDirectory makes (once per process) a node with n children on the
// shared server, created with Multi in batches of 1,000.
func bigDirectory(b *testing.B, c *Client, n int) string {
	b.Helper()
	bigDirOnce.Do(func() {
		bigDir = fmt.Sprintf("/zkscope-bench/big-%d-%d", n, time.Now().UnixNano())
		mkdirs(b, c.Conn(), bigDir)
		start := time.Now()
		const batch = 1000
		var wg sync.WaitGroup
		errs := make(chan error, n/batch+1)
		sem := make(chan struct{}, 8)
		for i := 0; i < n; i += batch {
			ops := make([]any, 0, batch)
			for j := i; j < i+batch && j < n; j++ {
				ops = append(ops, &zk.CreateRequest{Path: fmt.Sprintf("%s/node-%07d", bigDir, j), Data: []byte("x"), Acl: zk.WorldACL(zk.PermAll)})
			}
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				if _, err := c.Conn().Multi(ops...); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		bigDirErr = <-errs
		b.Logf("created %d children in %s", n, time.Since(start).Round(time.Millisecond))
	})
	if bigDirErr != nil {
		b.Fatalf("create the big directory: %v", bigDirErr)
	}
	return bigDir
}

// BenchmarkTreeExpand100k measures expanding a node with 100,000 children
// (ns/op: one children read with its watch, sorting the names) and, as
// ms-stats60/op, reading the stats of one screen of visible rows (60) in one
// bulk read.
func BenchmarkTreeExpand100k(b *testing.B) {
	cl := zktest.Shared(b)
	c := dial(b, Config{Servers: cl.Addrs(), SessionTimeout: 20 * time.Second})
	const n = 100_000
	dirPath := bigDirectory(b, c, n)
	ctx := context.Background()
	var statTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr := NewTree(c)
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
			visible[j] = Join(dirPath, names[n/2+j])
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
