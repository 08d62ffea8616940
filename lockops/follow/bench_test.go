package follow_test

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// BenchmarkFollow70k follows the 70,151-znode tree (5,000 lock
// directories) in process while it churns at 200 operations a second for
// 30 s, the snapshots applied to a follow.Locks as a consumer does; it
// reports the heap in use after a GC at the end and the snapshots made.
// With -cpuprofile it shows where a follow's time goes, and with
// ZKSCOPE_HEAP_PROFILE=FILE what its memory holds while it follows:
//
//	ZKSCOPE_HEAP_PROFILE=/tmp/heap.out go test ./lockops/follow -run '^$' -bench Follow70k -benchtime 1x -cpuprofile /tmp/cpu.out
func BenchmarkFollow70k(b *testing.B) {
	cl := zktest.StartStandalone(b, zktest.Options{Extra: []string{"forceSync=no", "4lw.commands.whitelist=*"}})
	conn, _, err := zk.Connect(cl.Addrs(), 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	const root = "/scan"
	dirs, children := zktest.FillBenchTree(b, conn, root)
	c, err := zkview.Connect(context.Background(), zkview.Config{Servers: cl.Addrs()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()

	var (
		mu     sync.Mutex
		model  follow.Locks
		snaps  int
		first  = make(chan struct{})
		closed sync.Once
	)
	b.ResetTimer()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- follow.Follow(ctx, c, root, follow.Options{Interval: 30 * time.Second}, func(s follow.Snapshot) error {
			mu.Lock()
			model.Apply(s)
			snaps++
			mu.Unlock()
			closed.Do(func() { close(first) })
			return nil
		}, func(err error) { b.Errorf("scan failed: %v", err) })
	}()
	<-first
	stop := make(chan struct{})
	wg := zktest.Churn(b, conn, dirs, children, -1, 200, stop, nil)
	time.Sleep(30 * time.Second)
	close(stop)
	wg.Wait()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if file := os.Getenv("ZKSCOPE_HEAP_PROFILE"); file != "" {
		f, err := os.Create(file)
		if err != nil {
			b.Fatal(err)
		}
		pprof.WriteHeapProfile(f) // what is in use while following
		f.Close()
	}
	b.StopTimer()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-inuse-MB")
	b.ReportMetric(float64(snaps), "snapshots")
	b.ReportMetric(float64(model.Len()), "locks")
}
