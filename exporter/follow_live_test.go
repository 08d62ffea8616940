package exporter_test

import (
	"testing"
	"time"

	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestFollowsCuratorAndKazoo: real Curator and kazoo contenders on two
// locks; the scrapes show each lock's holders and waiters as they
// change, held seconds only for the holder the exporter saw begin, and
// the cluster's counters.
func TestFollowsCuratorAndKazoo(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	cur := zktest.StartCurator(t, srv.ConnectString())
	kz := zktest.StartKazoo(t, srv.ConnectString())
	mutex, klock := base+"/curator/orders", base+"/kazoo/jobs"
	cur.Acquire(t, "c1", "mutex", mutex)
	cur.Await(t, "c1", "acquired")
	cur.Acquire(t, "c2", "mutex", mutex)
	kz.Acquire(t, "k1", "lock", klock)
	kz.Await(t, "k1", "acquired")
	kz.Acquire(t, "k2", "lock", klock)
	kz.Acquire(t, "k3", "lock", klock)

	r := startZooKeeper(t, srv.Addrs(), []string{base}, exporter.Options{HolderInfo: true}, time.Minute)
	lock := func(p, recipe string) map[string]string {
		return map[string]string{"cluster": "test", "path": p, "recipe": recipe}
	}
	curator, kazoo := lock(mutex, "curator.mutex"), lock(klock, "kazoo.lock")
	expect := func(what string, l map[string]string, holders, waiters float64) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			fams := scrape(t, r.url)
			h, okH := value(fams, "zkscope_lock_holders", l)
			w, okW := value(fams, "zkscope_lock_waiters", l)
			if okH && okW && h == holders && w == waiters {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; the last scrape:\n%s", what, lockSeries(fams))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	expect("curator: 1 holder, 1 waiter", curator, 1, 1)
	expect("kazoo: 1 holder, 2 waiters", kazoo, 1, 2)
	fams := scrape(t, r.url)
	if _, ok := value(fams, "zkscope_lock_held_seconds", curator); ok {
		t.Errorf("held seconds served for a holder already holding at the first read:\n%s", lockSeries(fams))
	}
	if age, ok := value(fams, "zkscope_lock_holder_node_age_seconds", curator); !ok || age < 0 {
		t.Errorf("holder node age %v %v", age, ok)
	}
	if up, _ := value(fams, "zkscope_cluster_up", map[string]string{"cluster": "test"}); up != 1 {
		t.Errorf("cluster_up %v", up)
	}
	if n, _ := value(fams, "zkscope_cluster_locks", map[string]string{"cluster": "test"}); n != 2 {
		t.Errorf("cluster_locks %v, want 2:\n%s", n, lockSeries(fams))
	}
	if _, ok := value(fams, "zkscope_lock_holder_info", map[string]string{"path": mutex}); !ok {
		t.Errorf("no holder info with HolderInfo:\n%s", lockSeries(fams))
	}
	events, _ := value(fams, "zkscope_cluster_events_applied_total", map[string]string{"cluster": "test"})

	// The Curator holder lets go: c2 holds, seen beginning; kazoo's
	// queue grows by one.
	cur.Release(t, "c1")
	cur.Await(t, "c2", "acquired")
	kz.Acquire(t, "k4", "lock", klock)
	expect("curator: c2 holds, nobody waits", curator, 1, 0)
	expect("kazoo: 3 waiters", kazoo, 1, 3)
	fams = scrape(t, r.url)
	if held, ok := value(fams, "zkscope_lock_held_seconds", curator); !ok || held < 0 || held > 120 {
		t.Errorf("held seconds of the holder seen beginning: %v %v\n%s", held, ok, lockSeries(fams))
	}
	if e, _ := value(fams, "zkscope_cluster_events_applied_total", map[string]string{"cluster": "test"}); e <= events {
		t.Errorf("events applied %v, want more than %v", e, events)
	}
	if e, ok := value(fams, "zkscope_cluster_read_errors_total", map[string]string{"cluster": "test"}); !ok || e != 0 {
		t.Errorf("read errors %v %v", e, ok)
	}
}
