package exporter_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// running is an exporter of one ZooKeeper cluster serving on an httptest
// server.
type running struct {
	cluster *exporter.Cluster
	url     string
}

// startZooKeeper follows roots on servers, named cluster "test", served
// until t ends.
func startZooKeeper(t testing.TB, servers []string, roots []string, o exporter.Options, interval time.Duration) *running {
	t.Helper()
	c := exporter.NewCluster("test", exporter.ModeWatches, roots)
	src := exporter.ZooKeeper{
		Dial: func(ctx context.Context) (*zkview.Client, error) {
			dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			return zkview.Connect(dctx, zkview.Config{Servers: servers, SessionTimeout: 10 * time.Second})
		},
		Options: follow.Options{Interval: interval},
	}
	return serveClusters(t, []*exporter.Cluster{c}, []exporter.Source{src}, o)
}

func serveClusters(t testing.TB, clusters []*exporter.Cluster, sources []exporter.Source, o exporter.Options) *running {
	t.Helper()
	reg, err := exporter.Registry(clusters, o, true)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { exporter.Run(ctx, clusters, sources); close(done) }()
	srv := httptest.NewServer(exporter.Handler(reg, clusters))
	t.Cleanup(func() {
		srv.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the sources did not end with their context")
		}
	})
	return &running{cluster: clusters[0], url: srv.URL}
}

// scrape is /metrics parsed.
func scrape(t testing.TB, url string) map[string]*dto.MetricFamily {
	t.Helper()
	body := get(t, url+"/metrics")
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return fams
}

func get(t testing.TB, url string) string {
	t.Helper()
	resp, err := httpClient.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// value is the value of name's series with exactly these label values
// (among others), and whether there is one.
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		for k, v := range labels {
			found := false
			for _, l := range m.Label {
				if l.GetName() == k {
					found = l.GetValue() == v
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// waitFor polls cond every 50 ms until it holds or d passes (then fails
// with what and the last scrape's lock series).
func waitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lockSeries lists the zkscope_lock_* series of a scrape, for failures.
func lockSeries(fams map[string]*dto.MetricFamily) string {
	var out []string
	for name, f := range fams {
		if !strings.HasPrefix(name, "zkscope_") {
			continue
		}
		for _, m := range f.Metric {
			var ls []string
			for _, l := range m.Label {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			out = append(out, fmt.Sprintf("%s{%s} %g", name, strings.Join(ls, ","), v))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

var httpClient = &http.Client{Timeout: 10 * time.Second}
