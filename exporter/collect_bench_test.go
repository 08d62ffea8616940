package exporter_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/lockops"
)

// BenchmarkScrape5000 is one scrape of /metrics (gzip, as Prometheus
// asks) from a model of 5,000 locks of 3 contenders each, every lock
// served (--max-locks 0) and with the default --max-locks 500; in
// process, the HTTP handler alone.
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
	for _, maxLocks := range []int{0, 500} {
		b.Run(fmt.Sprintf("max-locks=%d", maxLocks), func(b *testing.B) {
			reg, err := exporter.Registry([]*exporter.Cluster{c}, exporter.Options{MaxLocks: maxLocks}, true)
			if err != nil {
				b.Fatal(err)
			}
			h := exporter.Handler(reg, nil)
			req := httptest.NewRequest("GET", "/metrics", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			var size int
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size)/1024, "KiB-gzip")
		})
	}
}
