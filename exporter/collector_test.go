package exporter_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/lockops"
)

func gather(t *testing.T, clusters []*exporter.Cluster, o exporter.Options) map[string]*dto.MetricFamily {
	t.Helper()
	reg, err := exporter.Registry(clusters, o, false)
	if err != nil {
		t.Fatal(err)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// queue is a lock at p with one holder and waiters waiters, node times
// counted back from now.
func queue(p string, waiters int, now time.Time, problems ...lockops.ProblemKind) lockops.Queue {
	q := lockops.Queue{Path: p, Kind: lockops.KindCuratorMutex, ReadAt: now}
	q.Participants = append(q.Participants, lockops.Participant{Node: p + "/h", State: lockops.StateHolding, Ctime: now.Add(-time.Hour), Session: 0x10})
	for i := range waiters {
		q.Participants = append(q.Participants, lockops.Participant{Node: fmt.Sprintf("%s/w%d", p, i), State: lockops.StateWaiting,
			Ctime: now.Add(-time.Duration(i+1) * time.Minute)})
	}
	for _, k := range problems {
		q.Problems = append(q.Problems, lockops.Problem{Kind: k})
	}
	return q
}

// TestMaxLocksAndFilters: past --max-locks the locks with problems and
// waiters are served on their own and the rest summed; excluded locks
// are not counted; node age is served, held seconds only when known.
func TestMaxLocksAndFilters(t *testing.T) {
	now := time.Now()
	c := exporter.NewCluster("c", exporter.ModeWatches, []string{"/"})
	c.Apply("/", []lockops.Queue{
		queue("/a", 0, now), queue("/b", 3, now), queue("/c", 1, now, lockops.ProblemOrphan),
		queue("/d", 2, now), queue("/skip/e", 9, now),
	}, now)
	fams := gather(t, []*exporter.Cluster{c}, exporter.Options{MaxLocks: 2, Filter: exporter.Filter{Exclude: []string{"/skip"}}, Now: func() time.Time { return now }})
	lbl := func(p string) map[string]string { return map[string]string{"path": p} }
	for _, p := range []string{"/c", "/b"} {
		if _, ok := value(fams, "zkscope_lock_holders", lbl(p)); !ok {
			t.Errorf("%s not served on its own:\n%s", p, lockSeries(fams))
		}
	}
	if w, _ := value(fams, "zkscope_lock_waiters", lbl(exporter.OtherLocks)); w != 2 {
		t.Errorf("(other) waiters %v, want 2 (/a 0 + /d 2):\n%s", w, lockSeries(fams))
	}
	if h, _ := value(fams, "zkscope_lock_holders", lbl(exporter.OtherLocks)); h != 2 {
		t.Errorf("(other) holders %v, want 2", h)
	}
	if n, _ := value(fams, "zkscope_cluster_locks_summed", nil); n != 2 {
		t.Errorf("locks summed %v", n)
	}
	if n, _ := value(fams, "zkscope_cluster_locks", nil); n != 4 {
		t.Errorf("cluster locks %v, want 4 (/skip excluded)", n)
	}
	if _, ok := value(fams, "zkscope_lock_holders", lbl("/skip/e")); ok {
		t.Error("an excluded lock served")
	}
	if age, _ := value(fams, "zkscope_lock_holder_node_age_seconds", lbl("/b")); age != 3600 {
		t.Errorf("node age %v, want 3600", age)
	}
	if w, _ := value(fams, "zkscope_lock_oldest_wait_seconds", lbl("/b")); w != 180 {
		t.Errorf("oldest wait %v, want 180", w)
	}
	if _, ok := value(fams, "zkscope_lock_held_seconds", lbl("/b")); ok {
		t.Error("held seconds served for a holder whose start is unknown")
	}
	if _, ok := value(fams, "zkscope_lock_holder_info", nil); ok {
		t.Error("holder info served without HolderInfo")
	}
	if n, _ := value(fams, "zkscope_lock_problems", map[string]string{"path": "/c", "kind": "orphan"}); n != 1 {
		t.Errorf("orphan problems %v", n)
	}
}

// TestFailDropsLocks: a failed read drops the root's locks until the
// next read; the failure is counted.
func TestFailDropsLocks(t *testing.T) {
	now := time.Now()
	c := exporter.NewCluster("c", exporter.ModeWatches, []string{"/x", "/y"})
	c.Apply("/x", []lockops.Queue{queue("/x/1", 1, now)}, now)
	c.Apply("/y", []lockops.Queue{queue("/y/1", 1, now)}, now)
	c.Fail("/y", fmt.Errorf("no"), now)
	fams := gather(t, []*exporter.Cluster{c}, exporter.Options{})
	if _, ok := value(fams, "zkscope_lock_holders", map[string]string{"path": "/y/1"}); ok {
		t.Error("a failed root's lock served")
	}
	if _, ok := value(fams, "zkscope_lock_holders", map[string]string{"path": "/x/1"}); !ok {
		t.Error("the other root's lock not served")
	}
	if up, _ := value(fams, "zkscope_cluster_up", nil); up != 0 {
		t.Error("cluster up with a root failed")
	}
	if e, _ := value(fams, "zkscope_cluster_read_errors_total", nil); e != 1 {
		t.Errorf("read errors %v", e)
	}
}

// TestOpenMetricsAndHealthz: /metrics answers OpenMetrics to a scraper
// that asks for it, Prometheus text otherwise; /healthz names each
// cluster's state.
func TestOpenMetricsAndHealthz(t *testing.T) {
	now := time.Now()
	up := exporter.NewCluster("up", exporter.ModeWatches, []string{"/"})
	up.Apply("/", []lockops.Queue{queue("/a", 1, now)}, now)
	down := exporter.NewCluster("down\x1b", exporter.ModePolling, []string{"*"}) // a name is escaped as server text is
	down.Fail("", fmt.Errorf("dial tcp: refused\x1b[2J"), now)
	reg, err := exporter.Registry([]*exporter.Cluster{up, down}, exporter.Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	h := exporter.Handler(reg, []*exporter.Cluster{up, down})
	for _, tc := range []struct{ accept, contentType, tail string }{
		{"application/openmetrics-text; version=1.0.0", "application/openmetrics-text", "# EOF\n"},
		{"text/plain", "text/plain", "\n"},
	} {
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.Header.Set("Accept", tc.accept)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		body := w.Body.String()
		if !strings.HasPrefix(w.Header().Get("Content-Type"), tc.contentType) || !strings.HasSuffix(body, tc.tail) ||
			!strings.Contains(body, `zkscope_lock_holders{cluster="up",path="/a",recipe="curator.mutex"} 1`) ||
			!strings.Contains(body, `zkscope_cluster_up{cluster="down\\x1b"} 0`) {
			t.Errorf("Accept %s: %s\n%s", tc.accept, w.Header().Get("Content-Type"), body)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/healthz", nil))
	want := "ok\nup: up (watches)\ndown\\x1b: down: dial tcp: refused\\x1b[2J\n"
	if w.Code != 200 || w.Body.String() != want {
		t.Errorf("/healthz %d %q, want %q", w.Code, w.Body.String(), want)
	}
}
