package exporter_test

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestPrometheusScrapesLocks: a real Prometheus server scrapes the
// exporter following real Curator and kazoo contention; its HTTP API
// answers each lock's holders and waiters, before and after a holder
// lets go; `promtool check metrics` passes on the exposition.
func TestPrometheusScrapesLocks(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	cur := zktest.StartCurator(t, srv.ConnectString())
	kz := zktest.StartKazoo(t, srv.ConnectString())
	mutex, klock := base+"/curator/orders", base+"/kazoo/jobs"
	cur.Acquire(t, "c1", "mutex", mutex)
	cur.Await(t, "c1", "acquired")
	cur.Acquire(t, "c2", "mutex", mutex)
	cur.Acquire(t, "c3", "mutex", mutex)
	kz.Acquire(t, "k1", "lock", klock)
	kz.Await(t, "k1", "acquired")
	kz.Acquire(t, "k2", "lock", klock)

	r := startZooKeeper(t, srv.Addrs(), []string{base}, exporter.Options{}, time.Minute)
	u, err := url.Parse(r.url)
	if err != nil {
		t.Fatal(err)
	}
	prom := startPrometheus(t, u.Host)
	expect := func(p string, holders, waiters int) {
		t.Helper()
		for _, m := range []struct {
			name string
			want int
		}{{"zkscope_lock_holders", holders}, {"zkscope_lock_waiters", waiters}} {
			q := m.name + `{cluster="test",path="` + p + `"}`
			var got []promResult
			waitFor(t, q+" = "+strconv.Itoa(m.want)+" in Prometheus", 90*time.Second, func() bool {
				got = query(t, prom, q)
				return len(got) == 1 && got[0].Value[1] == strconv.Itoa(m.want)
			})
		}
	}
	expect(mutex, 1, 2)
	expect(klock, 1, 1)
	if got := query(t, prom, `zkscope_cluster_up{cluster="test"}`); len(got) != 1 || got[0].Value[1] != "1" {
		t.Errorf("zkscope_cluster_up in Prometheus: %+v", got)
	}
	if got := query(t, prom, `zkscope_lock_holders{path="`+mutex+`"}`); len(got) == 1 && got[0].Metric["recipe"] != "curator.mutex" {
		t.Errorf("recipe label %+v", got[0].Metric)
	}

	cur.Release(t, "c1")
	cur.Await(t, "c2", "acquired")
	kz.Acquire(t, "k3", "lock", klock)
	expect(mutex, 1, 1)
	expect(klock, 1, 2)
	promtoolCheckMetrics(t, get(t, r.url+"/metrics"))
}

// TestServerKilledAndRestarted: the only server of a cluster killed
// under the exporter: the cluster is down and its read errors rise, no
// lock series is served while it is (nothing stale as fresh); restarted,
// the locks' values return.
func TestServerKilledAndRestarted(t *testing.T) {
	cl := zktest.StartStandalone(t, zktest.Options{})
	conn, _, err := zk.Connect(cl.Addrs(), 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	// A lock of persistent nodes: it outlives every session, so it is
	// the same after the restart (and it is a problem to report).
	lock := "/app/locks/report"
	zktest.MakePath(t, conn, lock)
	for _, uuid := range []string{"11111111-0000-4000-8000-000000000001", "22222222-0000-4000-8000-000000000002"} {
		if _, err := conn.Create(lock+"/_c_"+uuid+"-lock-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()

	r := startZooKeeper(t, cl.Addrs(), []string{"/app"}, exporter.Options{}, time.Second)
	cluster := map[string]string{"cluster": "test"}
	labels := map[string]string{"cluster": "test", "path": lock, "recipe": "curator.mutex"}
	served := func(want float64) func() bool {
		return func() bool {
			fams := scrape(t, r.url)
			h, ok1 := value(fams, "zkscope_lock_holders", labels)
			w, ok2 := value(fams, "zkscope_lock_waiters", labels)
			up, _ := value(fams, "zkscope_cluster_up", cluster)
			return ok1 && ok2 && h == 1 && w == want && up == 1
		}
	}
	waitFor(t, "the lock served", 60*time.Second, served(1))
	fams := scrape(t, r.url)
	if n, ok := value(fams, "zkscope_lock_problems", map[string]string{"path": lock, "kind": "persistent-lock-node", "severity": "error"}); !ok || n < 1 {
		t.Errorf("persistent-lock-node problems %v %v:\n%s", n, ok, lockSeries(fams))
	}

	cl.Servers[0].Kill()
	var errorsDown float64
	waitFor(t, "the cluster down with read errors", 60*time.Second, func() bool {
		fams := scrape(t, r.url)
		up, _ := value(fams, "zkscope_cluster_up", cluster)
		errorsDown, _ = value(fams, "zkscope_cluster_read_errors_total", cluster)
		ok, _ := value(fams, "zkscope_cluster_last_read_success", cluster)
		return up == 0 && errorsDown >= 1 && ok == 0
	})
	// While it is down: no lock series at all, and the errors go on
	// rising (one each interval without a connection).
	waitFor(t, "read errors to rise while down", 60*time.Second, func() bool {
		fams := scrape(t, r.url)
		if _, ok := value(fams, "zkscope_lock_holders", labels); ok {
			t.Fatalf("a lock served while its cluster is down:\n%s", lockSeries(fams))
		}
		if n, _ := value(fams, "zkscope_cluster_locks", cluster); n != 0 {
			t.Fatalf("zkscope_cluster_locks %v while down", n)
		}
		e, _ := value(fams, "zkscope_cluster_read_errors_total", cluster)
		return e > errorsDown
	})

	if err := cl.Servers[0].Start(); err != nil {
		t.Fatal(err)
	}
	if err := cl.Servers[0].WaitServing(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the lock served again", 90*time.Second, served(1))
	fams = scrape(t, r.url)
	if ok, _ := value(fams, "zkscope_cluster_last_read_success", cluster); ok != 1 {
		t.Errorf("last read success %v after the restart", ok)
	}
}
