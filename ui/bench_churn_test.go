package ui

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// cpuTime is this process's user and system time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// churn releases the holder of the Curator lock dir and appends a new
// waiter, rate ops a second in all (half deletes, half creates), until
// stop closes; each release's node and time go to released.
func churn(b *testing.B, conn *zk.Conn, dir string, names []string, next int, rate int, stop <-chan struct{}, released func(string, time.Time)) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second / time.Duration(rate/2))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			head := names[0]
			names = names[1:]
			if err := conn.Delete(dir+"/"+head, -1); err != nil {
				b.Errorf("release %s: %v", head, err)
				return
			}
			released(head, time.Now())
			n := churnName(next)
			next++
			if _, err := conn.Create(dir+"/"+n, []byte("10.0.0.9 worker"), 0, zk.WorldACL(zk.PermAll)); err != nil {
				b.Errorf("acquire %s: %v", n, err)
				return
			}
			names = append(names, n)
		}
	}()
	return &wg
}

func churnName(i int) string {
	return fmt.Sprintf("_c_%08x-0000-4000-8000-000000000000-lock-%010d", i, i)
}

// BenchmarkLockPaneChurn1k shows a 1,000-contender Curator lock in the
// TUI (the real model as Run sets it up, its commands run as the program
// runs them, View called after every message as the program does;
// releases checked at frameRate) while the lock churns at 200 operations a
// second (100 releases of the holder, 100 new waiters). Metrics: the
// pane's CPU in % of one core (this process's CPU minus the churn's own,
// measured alone first) and how far behind the pane is (from a release to
// the pane's queue without that node: median and worst).
//
//	go test ./ui -run '^$' -bench LockPaneChurn1k -benchtime 1x
func BenchmarkLockPaneChurn1k(b *testing.B) {
	const (
		n      = 1000
		rate   = 200
		period = 5 * time.Second
	)
	c := liveClient(b)
	dir := zktest.Path(b) + "/churn"
	zktest.FillChildren(b, c.Conn(), dir, n, churnName, func(int) []byte { return []byte("10.0.0.9 worker") }, 0)
	names := make([]string, n)
	for i := range names {
		names[i] = churnName(i)
	}
	var mu sync.Mutex
	releases := map[string]time.Time{}
	note := func(name string, at time.Time) {
		mu.Lock()
		releases[name] = at
		mu.Unlock()
	}

	// The churn alone.
	stop := make(chan struct{})
	cpu0 := cpuTime(b)
	wg := churn(b, c.Conn(), dir, names, n, rate, stop, func(string, time.Time) {})
	time.Sleep(period)
	close(stop)
	wg.Wait()
	churnCPU := cpuTime(b) - cpu0
	kids, _, err := c.Children(dir)
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(kids)
	next := n + int(period/(time.Second/time.Duration(rate/2))) + 10

	m := New(Options{Client: c, Start: dir, Theme: "dark"})
	m.frames = &frameCache{} // as Run does
	d := newLiveDriver(m, 140, 40)
	defer d.Close()
	d.until(b, 30*time.Second, "the lock pane with the whole queue", func(d *liveDriver) bool {
		return d.m.lock != nil && len(d.m.lock.Queue().Participants) == len(kids)
	})
	b.ResetTimer()
	stop = make(chan struct{})
	cpu0 = cpuTime(b)
	wg = churn(b, c.Conn(), dir, kids, next, rate, stop, note)
	var lags []time.Duration
	end := time.After(period)
	frame := time.NewTicker(time.Second / frameRate)
	defer frame.Stop()
	dirty := false
loop:
	for {
		select {
		case msg := <-d.msgs:
			d.apply(msg)
			_ = d.m.View() // as tea.Program does after every message
			dirty = true
		case <-frame.C:
			if !dirty {
				continue
			}
			dirty = false
			// Releases this frame no longer shows (the measurement's own
			// cost, counted as the pane's: a set of the first nodes).
			q := d.m.lock.Queue().Participants
			shown := make(map[string]bool, 64)
			for _, p := range q[:min(len(q), 64)] {
				shown[p.Name] = true
			}
			now := time.Now()
			mu.Lock()
			for name, at := range releases {
				if !shown[name] {
					lags = append(lags, now.Sub(at))
					delete(releases, name)
				}
			}
			mu.Unlock()
		case <-end:
			break loop
		}
	}
	close(stop)
	wg.Wait()
	paneCPU := cpuTime(b) - cpu0 - churnCPU
	b.StopTimer()
	mu.Lock()
	left := len(releases)
	mu.Unlock()
	if len(lags) == 0 {
		b.Fatal("the pane never showed a release")
	}
	slices.Sort(lags)
	b.ReportMetric(100*float64(paneCPU)/float64(period), "pane-cpu-%")
	b.ReportMetric(float64(lags[len(lags)/2])/1e6, "lag-p50-ms")
	b.ReportMetric(float64(lags[len(lags)-1])/1e6, "lag-max-ms")
	b.ReportMetric(float64(left), "releases-unseen-at-end")
}
