package exporter_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/lockops"
)

// BenchmarkScrape5000 is one scrape of /metrics (gzip, as Prometheus
// asks) from a model of 5,000 locks of 3 contenders each, every lock
// served (--max-locks 0) and with the default --max-locks 500; in
// process, the HTTP handler alone. "still": nothing changed since the
// last scrape; "churn": one lock changed before each scrape, as while
// the locks are followed. It reports the process's CPU time per scrape
// beside the wall time (ns/op), which a loaded machine stretches.
//
//	go test ./exporter -run '^$' -bench Scrape5000
func BenchmarkScrape5000(b *testing.B) {
	now := time.Now()
	queues := make([]lockops.Queue, 5000)
	for i := range queues {
		queues[i] = queue(fmt.Sprintf("/scan/app-%02d/locks/lock-%03d", i/100, i%100), 2, now, lockops.ProblemPersistentLockNode)
	}
	c := exporter.NewCluster("prod", exporter.ModeWatches, []string{"/scan"})
	c.Apply("/scan", queues, now)
	for _, churn := range []bool{false, true} {
		for _, maxLocks := range []int{0, 500} {
			name := fmt.Sprintf("still/max-locks=%d", maxLocks)
			if churn {
				name = fmt.Sprintf("churn/max-locks=%d", maxLocks)
			}
			b.Run(name, func(b *testing.B) {
				reg, err := exporter.Registry([]*exporter.Cluster{c}, exporter.Options{MaxLocks: maxLocks}, true)
				if err != nil {
					b.Fatal(err)
				}
				h := exporter.Handler(reg, nil)
				req := httptest.NewRequest("GET", "/metrics", nil)
				req.Header.Set("Accept-Encoding", "gzip")
				var size, n int
				cpu0 := cpuTime()
				for b.Loop() {
					if churn {
						q := queue(queues[n%len(queues)].Path, n%4, now, lockops.ProblemPersistentLockNode)
						exporter.ApplyChanges(c, "/scan", q, now)
						n++
					}
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Fatal(w.Code)
					}
					size = w.Body.Len()
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(size)/1024, "KiB-gzip")
			})
		}
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
