package history

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// BenchmarkHistoryTxnlog replays a real server's transaction log: a
// kazoo-format lock with 10 contenders handed over 10,000 times (each
// handover a delete of the holder and a new waiter's create, 20,000
// transactions in all), read from the log files and decoded at every
// change, as `zkscope history` does.
//
//	go test ./lockops -run '^$' -bench HistoryTxnlog -benchtime 5x
func BenchmarkHistoryTxnlog(b *testing.B) {
	srv := zktest.StartStandalone(b, zktest.Options{})
	c, _, err := zk.Connect(srv.Addrs(), 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	const lock, waiters, handovers = "/bench/lock", 10, 10000
	zktest.MakePath(b, c, lock)
	name := lock + "/0123456789abcdef0123456789abcdef__lock__"
	queue := make(chan string, waiters+1)
	for i := 0; i < waiters; i++ {
		n, err := c.Create(name, nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			b.Fatal(err)
		}
		queue <- n
	}
	// Four writers at once keep the server busy (one at a time would take
	// a round trip per change).
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < handovers/4; i++ {
				if err := c.Delete(<-queue, -1); err != nil {
					errs <- err
					return
				}
				n, err := c.Create(name, nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
				if err != nil {
					errs <- err
					return
				}
				queue <- n
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	data := filepath.Join(srv.Servers[0].Dir, "data")
	b.ResetTimer()
	var events int
	for b.Loop() {
		h, err := OpenTxnlogHistory(data)
		if err != nil {
			b.Fatal(err)
		}
		r, err := ReplayAll(h, "/bench", Point{}, ReplayOptions{})
		h.Close()
		if err != nil {
			b.Fatal(err)
		}
		rep := r.Report(Options{})
		if len(rep.Locks) != 1 || len(rep.Locks[0].Tenures) != waiters+handovers {
			b.Fatalf("%d locks, %s", len(rep.Locks), fmt.Sprint(len(rep.Locks[0].Tenures)))
		}
		_, _, events = r.Span()
	}
	perEvent := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(events)
	b.ReportMetric(perEvent/1e3, "µs/txn")
	b.ReportMetric(1e9/perEvent, "txn/s")
}
