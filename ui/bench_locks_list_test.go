package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// BenchmarkLocksListChurn: the `:locks` list of 1,000 Curator locks (3
// contenders each) while 200 operations a second churn them (a node
// queued in a random lock, then deleted), on a server of its own. The
// process's CPU time over 10 s of churn: with no TUI (the churn's own
// cost, in this process too), with the list shown as before (static: the
// follow stopped after the scan), and kept current (live). Metrics:
// %cpu-baseline, %cpu-static, %cpu-live (% of a core), and the live
// list's lag: from a new lock directory's creation to the list showing it
// (ms-new-lock, median of 5).
func BenchmarkLocksListChurn(b *testing.B) {
	cl := zktest.StartStandalone(b, zktest.Options{Extra: []string{"forceSync=no"}})
	c := liveClientOf(b, cl)
	const locks, perLock = 1000, 3
	var dirs []string
	var apps, reqs, kids []*zk.CreateRequest // a level at a time
	open := zk.WorldACL(zk.PermAll)
	for a := range 10 {
		apps = append(apps, &zk.CreateRequest{Path: fmt.Sprintf("/scan/a%02d", a), Acl: open})
	}
	for i := range locks {
		d := fmt.Sprintf("/scan/a%02d/lock%03d", i%10, i/10)
		dirs = append(dirs, d)
		reqs = append(reqs, &zk.CreateRequest{Path: d, Acl: open})
		for j := range perLock {
			kids = append(kids, &zk.CreateRequest{Path: fmt.Sprintf("%s/_c_%08d-0000-4000-8000-%012d-lock-%010d", d, i, j, j), Acl: open})
		}
	}
	zktest.MakePath(b, c.Conn(), "/scan")
	for _, batch := range [][]*zk.CreateRequest{apps, reqs, kids} {
		if err := zktest.CreateAll(c.Conn(), batch); err != nil {
			b.Fatal(err)
		}
	}
	churn := startListChurn(b, c.Conn(), dirs)
	defer churn()
	window := func() float64 {
		cpu0, t0 := cpuTime(b), time.Now()
		time.Sleep(10 * time.Second)
		return 100 * float64(cpuTime(b)-cpu0) / float64(time.Since(t0))
	}
	for range b.N {
		b.ReportMetric(window(), "%cpu-baseline")
		for _, live := range []bool{false, true} {
			d := newLiveDriver(New(Options{Client: c, Start: "/scan", Theme: "dark"}), 160, 40)
			d.until(b, 30*time.Second, "the start directory", func(d *liveDriver) bool { return d.m.tree.CursorPath() == "/scan" })
			d.typeLine(":locks")
			d.until(b, 60*time.Second, "the list", func(d *liveDriver) bool {
				return d.m.mode == modeResults && len(d.m.search.hits) == locks && d.m.search.follow != nil
			})
			if !live {
				d.m.stopLocksFollow()
			}
			stop := make(chan struct{})
			go func() { // Update and View as the program would
				for {
					select {
					case msg := <-d.msgs:
						d.apply(msg)
						_ = d.m.View()
					case <-stop:
						return
					}
				}
			}()
			pct := window()
			close(stop)
			if !live {
				b.ReportMetric(pct, "%cpu-static")
				d.Close()
				continue
			}
			b.ReportMetric(pct, "%cpu-live")
			b.ReportMetric(newLockLag(b, c, d), "ms-new-lock")
			d.Close()
		}
	}
}

// newLockLag is the median time from a new lock directory's creation to
// the list showing it, over 5.
func newLockLag(b *testing.B, c *zkview.Client, d *liveDriver) float64 {
	var lags []time.Duration
	for i := range 5 {
		dir := fmt.Sprintf("/scan/new%d", i)
		start := time.Now()
		zktest.MakePath(b, c.Conn(), dir+"/_c_99999999-0000-4000-8000-000000000000-lock-0000000000")
		d.until(b, 30*time.Second, dir+" in the list", func(d *liveDriver) bool {
			for _, h := range d.m.search.hits {
				if strings.HasPrefix(h.Path, dir) {
					return true
				}
			}
			return false
		})
		lags = append(lags, time.Since(start))
	}
	return float64(median(lags).Microseconds()) / 1000
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// liveClientOf connects to cl.
func liveClientOf(b *testing.B, cl *zktest.Cluster) *zkview.Client {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := zkview.Connect(ctx, zkview.Config{Servers: cl.Addrs(), SessionTimeout: 20 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

// startListChurn queues a node in a random lock and deletes it again,
// 200 operations a second, until the returned function is called.
func startListChurn(b *testing.B, conn *zk.Conn, dirs []string) func() {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var last string
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			if last != "" {
				conn.Delete(last, -1)
				last = ""
				continue
			}
			d := dirs[(i*7919)%len(dirs)]
			p, err := conn.Create(d+"/_c_77777777-0000-4000-8000-000000000000-lock-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
			if err == nil {
				last = p
			}
		}
	}()
	return func() { close(stop); wg.Wait() }
}
