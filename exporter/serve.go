package exporter

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zkscope/zkscope/printable"
)

// Registry is the clusters' metrics and, with process, the process's
// own (Go runtime, CPU, memory: what the exporter costs; left out of a
// textfile, where node_exporter serves its own).
func Registry(clusters []*Cluster, o Options, process bool) (*Gatherer, error) {
	if !process {
		return NewGatherer(clusters, o, nil), nil
	}
	reg := prometheus.NewRegistry()
	for _, c := range []prometheus.Collector{collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return NewGatherer(clusters, o, reg), nil
}

// Handler serves /metrics (Prometheus text or OpenMetrics, as the scraper
// asks) from g and /healthz (200 and one line per cluster).
func Handler(g prometheus.Gatherer, clusters []*Cluster) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{EnableOpenMetrics: true, MaxRequestsInFlight: 10}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
		for _, c := range clusters {
			fmt.Fprintln(w, HealthLine(c.Status()))
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "zkscope exporter: /metrics, /healthz")
	})
	return mux
}

// HealthLine is one cluster's reading in a line: up or down, and why.
func HealthLine(s Status) string {
	switch {
	case s.Up:
		return fmt.Sprintf("%s: up (%s)", printable.String(s.Name), s.Mode)
	case s.LastErr != "":
		return fmt.Sprintf("%s: down: %s", printable.String(s.Name), printable.String(s.LastErr))
	}
	return fmt.Sprintf("%s: not read yet", printable.String(s.Name))
}

// WriteTextfile writes g's metrics to file for node_exporter's textfile
// collector: to a temporary file beside it, then renamed over it, so a
// reader never sees half a file.
func WriteTextfile(file string, g prometheus.Gatherer) error {
	return prometheus.WriteToTextfile(file, g)
}

// Serve serves srv on ln until ctx ends.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

// Run runs each cluster's source until ctx ends, and waits for them.
func Run(ctx context.Context, clusters []*Cluster, sources []Source) {
	var wg sync.WaitGroup
	for i, s := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Run(ctx, clusters[i])
		}()
	}
	wg.Wait()
}

// AllRead reports whether every cluster was read (up) or failed since
// the start: a one-shot textfile is written then.
func AllRead(clusters []*Cluster) bool {
	for _, c := range clusters {
		if s := c.Status(); !s.Up && s.ReadErrors == 0 {
			return false
		}
	}
	return true
}
