package scan

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestEphemeralRegistriesAreNoLocks: on a real server, watched ephemeral
// nodes that are a registry's entries are not reported as plain ephemeral
// locks: three siblings that two caches both watch with getData, and a
// Curator ServiceDiscovery instance; three locks in one directory, each
// with its own waiters, and a lone watched node are. An entry asked for
// by its own path is read as a lock all the same.
func TestEphemeralRegistriesAreNoLocks(t *testing.T) {
	cl := zktest.Shared(t)
	cs := cl.ConnectString()
	base := zktest.Path(t)
	a := locktest.NewClient(t, cl.Addrs()).Conn()
	for _, p := range []string{base, base + "/reg", base + "/disc", base + "/disc/web", base + "/locks", base + "/one"} {
		locktest.MustCreate(t, a, p, nil, zk.FlagPersistent)
	}
	owner := func(p string, data []byte) {
		locktest.MustCreate(t, locktest.NewClient(t, cl.Addrs()).Conn(), p, data, zk.FlagEphemeral)
	}
	watch := func(conn *zk.Conn, ps ...string) {
		for _, p := range ps {
			if _, _, _, err := conn.GetW(p); err != nil {
				t.Fatalf("getData watch on %s: %v", p, err)
			}
		}
	}
	reg := []string{base + "/reg/a", base + "/reg/b", base + "/reg/c"}
	for _, p := range reg {
		owner(p, []byte("10.0.0.1:8080"))
	}
	for range 2 { // two caches, each watching every entry
		watch(locktest.NewClient(t, cl.Addrs()).Conn(), reg...)
	}
	inst := base + "/disc/web/ca2fff8e-d756-480c-b59e-8297ff88624b"
	owner(inst, []byte(`{"name":"web","id":"ca2fff8e-d756-480c-b59e-8297ff88624b","address":"10.20.30.40","port":1234,"sslPort":null,"payload":null,"registrationTimeUTC":1325129459728,"serviceType":"DYNAMIC","uriSpec":null}`))
	watch(locktest.NewClient(t, cl.Addrs()).Conn(), inst)
	locks := []string{base + "/locks/x", base + "/locks/y", base + "/locks/z"}
	for _, p := range locks {
		owner(p, []byte("holder"))
	}
	s1, s2, s3 := locktest.NewClient(t, cl.Addrs()).Conn(), locktest.NewClient(t, cl.Addrs()).Conn(), locktest.NewClient(t, cl.Addrs()).Conn()
	locktest.ExistsWatch(t, s1, locks[0])
	locktest.ExistsWatch(t, s2, locks[1])
	locktest.ExistsWatch(t, s1, locks[2])
	locktest.ExistsWatch(t, s3, locks[2])
	owner(base+"/one/m", []byte("holder"))
	locktest.ExistsWatch(t, s2, base+"/one/m")

	got := map[string]bool{}
	for _, l := range locksJSON(t, cs, base).Objs("locks") {
		got[l.Str("path")] = true
		if l.Str("recipe") != "zookeeper.ephemeral-lock" {
			t.Errorf("%s: recipe %s", l.Str("path"), l.Str("recipe"))
		}
	}
	for _, p := range append(locks, base+"/one/m") {
		if !got[p] {
			t.Errorf("the lock %s is not reported (found %v)", p, got)
		}
	}
	for _, p := range append(reg, inst) {
		if got[p] {
			t.Errorf("the registry entry %s is reported as a lock", p)
		}
	}
	if ls := locksJSON(t, cs, inst).Objs("locks"); len(ls) != 1 || ls[0].Str("path") != inst {
		t.Errorf("asked by its path, the instance is not read as a lock: %v", ls)
	}
}

func TestIsServiceInstance(t *testing.T) {
	for data, want := range map[string]bool{
		`{"name":"web","id":"1","address":"h","port":1,"registrationTimeUTC":1,"serviceType":"DYNAMIC"}`: true,
		`{"name":"web","id":"1","address":"h","port":1,"registrationTimeUTC":1}`:                         true, // dubbo-go
		`{"name":"web","id":"1","port":1}`:                                                               false,
		`{"brokerid":1}`:                                                                                 false,
		`alice@ops1`:                                                                                     false,
	} {
		if got := isServiceInstance([]byte(data)); got != want {
			t.Errorf("isServiceInstance(%s) = %v", data, got)
		}
	}
}

// TestWatchedPathsLeaveOutSelf: a node only zkscope's own session watches
// is no candidate of a plain ephemeral lock.
func TestWatchedPathsLeaveOutSelf(t *testing.T) {
	e := &zkview.Ensemble{Self: 0x409, Members: []zkview.Member{{
		Addr: "zk1:2181", ConnsKnown: true, WatchesKnown: true, SessionsKnown: true,
		Clients:  map[int64]string{0x401: "10.0.0.1:4000", 0x402: "10.0.0.2:4000", 0x403: "10.0.0.3:4000", 0x409: "10.0.0.9:4000"},
		Watches:  map[string][]int64{"/locks/job": {0x409, 0x402, 0x403}, "/svc/only-us": {0x409}},
		Sessions: []int64{0x401, 0x402, 0x403, 0x409},
	}}}
	if got := watchedPaths(e); len(got) != 1 || got[0] != "/locks/job" {
		t.Errorf("watched paths %v: a node only zkscope watches is no candidate", got)
	}
}
