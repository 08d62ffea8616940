package diagnose

import (
	"path"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestDoctorFindsProblems creates each problem kind on a real server, in
// the libraries' exact node names, and runs the real `zkscope doctor`.
func TestDoctorFindsProblems(t *testing.T) {
	cl := zktest.Shared(t)
	cs := cl.ConnectString()
	base := zktest.Path(t)
	acl := zk.WorldACL(zk.PermAll)
	sessions := make([]*zk.Conn, 3)
	for i := range sessions {
		conn, _, err := zk.Connect(cl.Addrs(), 10*time.Second, zk.WithLogInfo(false))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(conn.Close)
		sessions[i] = conn
	}
	mk := func(s int, p string, flags int32) {
		t.Helper()
		conn := sessions[s]
		zktest.MakePath(t, conn, path.Dir(p))
		if _, err := conn.Create(p, nil, flags, acl); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	eph, seqE := int32(zk.FlagEphemeral), int32(zk.FlagEphemeral|zk.FlagSequence)

	// A persistent Curator lock node: nobody will ever delete it.
	mk(0, base+"/persistent/_c_"+locktest.UUIDA+"-lock-", zk.FlagSequence)
	// One session, two nodes of one mutex: an orphan of a retried create.
	mk(1, base+"/orphan/_c_"+locktest.UUIDA+"-lock-", seqE)
	mk(1, base+"/orphan/_c_"+locktest.UUIDB+"-lock-", seqE)
	// One session holds the read lock and queues for the write lock.
	mk(2, base+"/upgrade/_c_"+locktest.UUIDA+"-__READ__", seqE)
	mk(2, base+"/upgrade/_c_"+locktest.UUIDB+"-__WRIT__", seqE)
	// Two leases of one session in a semaphore.
	mk(0, base+"/sem/locks/keep", 0)
	if err := sessions[0].Delete(base+"/sem/locks/keep", -1); err != nil {
		t.Fatal(err)
	}
	mk(1, base+"/sem/leases/_c_"+locktest.UUIDA+"-lease-", seqE)
	mk(1, base+"/sem/leases/_c_"+locktest.UUIDB+"-lease-", seqE)
	// A stray child sorting before the contenders.
	mk(0, base+"/stray/000", 0)
	mk(1, base+"/stray/_c_"+locktest.UUIDC+"-lock-", seqE)
	// A sequence tie (non-sequential names).
	mk(1, base+"/tie/_c_"+locktest.UUIDA+"-lock-0000000005", eph)
	mk(2, base+"/tie/_c_"+locktest.UUIDB+"-lock-0000000005", eph)
	// kazoo and Curator in one directory.
	mk(1, base+"/mixed/_c_"+locktest.UUIDA+"-lock-", seqE)
	mk(2, base+"/mixed/"+locktest.HexA+"__lock__", seqE)
	// A kazoo reader waiting with a writer behind it (kazoo < 2.9 deadlock).
	mk(0, base+"/kazoo-rw/"+locktest.HexA+"__lock__", seqE)
	mk(1, base+"/kazoo-rw/"+locktest.HexB+"__rlock__", seqE)
	mk(2, base+"/kazoo-rw/"+locktest.HexC+"__lock__", seqE)

	// A waiter nobody is waiting for: its session never set the watch.
	mk(1, base+"/stuck/_c_"+locktest.UUIDA+"-lock-", seqE)
	mk(2, base+"/stuck/_c_"+locktest.UUIDB+"-lock-", seqE)
	// Every session watching the one holder: a herd.
	mk(0, base+"/herd/_c_"+locktest.UUIDC+"-lock-", seqE)
	kids, _, err := sessions[0].Children(base + "/herd")
	if err != nil {
		t.Fatal(err)
	}
	for _, conn := range sessions {
		if _, _, _, err := conn.GetW(base + "/herd/" + kids[0]); err != nil {
			t.Fatal(err)
		}
	}

	cmd := locktest.ZkscopeCmd(t, t.TempDir(), cs, "doctor", base, "--held-longer-than", "1h")
	var out strings.Builder
	cmd.Stdout = &out
	code, stderr := locktest.RunWithin(t, cmd, 60*time.Second)
	if code != 1 {
		t.Fatalf("doctor exit %d, want 1; stderr: %s\n%s", code, stderr, out.String())
	}
	want := map[string]string{
		"persistent-lock-node":   base + "/persistent/",
		"orphan":                 base + "/orphan/",
		"upgrade-deadlock":       base + "/upgrade/",
		"lease-orphan":           base + "/sem/leases/",
		"stray-child":            base + "/stray/000",
		"sequence-tie":           base + "/tie/",
		"mixed-libraries":        base + "/mixed",
		"kazoo-rw-deadlock-risk": base + "/kazoo-rw/",
		"watch-missing":          base + "/stuck/",
		"herd":                   base + "/herd/",
	}
	for kind, where := range want {
		found := false
		for _, l := range strings.Split(out.String(), "\n") {
			f := strings.SplitN(l, "\t", 3)
			if len(f) == 3 && f[0] == kind && strings.HasPrefix(f[1], where) {
				found = true
			}
		}
		if !found {
			t.Errorf("doctor did not report %s at %s:\n%s", kind, where, out.String())
		}
	}

	// Held too long: every holder above is older than a millisecond.
	cmd = locktest.ZkscopeCmd(t, t.TempDir(), cs, "doctor", base+"/orphan", "--held-longer-than", "1ms")
	out.Reset()
	cmd.Stdout = &out
	if code, _ := locktest.RunWithin(t, cmd, 60*time.Second); code != 1 || !strings.Contains(out.String(), "held-too-long\t"+base+"/orphan/") {
		t.Errorf("held-too-long not reported (exit %d):\n%s", code, out.String())
	}

	// A healthy lock: exit 0.
	healthy := base + "-healthy"
	mk(1, healthy+"/_c_"+locktest.UUIDA+"-lock-", seqE)
	cmd = locktest.ZkscopeCmd(t, t.TempDir(), cs, "doctor", healthy)
	out.Reset()
	cmd.Stdout = &out
	if code, stderr := locktest.RunWithin(t, cmd, 60*time.Second); code != 0 || !strings.Contains(out.String(), "no problems found in 1 lock") {
		t.Errorf("healthy lock: exit %d, stdout %q, stderr %q", code, out.String(), stderr)
	}

	// A missing path: exit 2 and one line.
	cmd = locktest.ZkscopeCmd(t, t.TempDir(), cs, "doctor", base+"/missing")
	if code, stderr := locktest.RunWithin(t, cmd, 60*time.Second); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("missing path: exit %d, stderr %q", code, stderr)
	}
}

// TestDiagnoseWithServersView: the checks that need the servers' answers,
// on a hand-built view.
func TestDiagnoseWithServersView(t *testing.T) {
	holder, waiter := locktest.CuratorName(locktest.UUIDA, "lock-", "0000000001"), locktest.CuratorName(locktest.UUIDB, "lock-", "0000000002")
	q := lockops.Decode(dir("/l", kid(holder, 0x11), kid(waiter, 0x22)), lockops.DecodeOptions{})
	e := &zkview.Ensemble{Members: []zkview.Member{{
		Addr: "zk1:2181", ConnsKnown: true, WatchesKnown: true, SessionsKnown: true,
		Clients:  map[int64]string{0x22: "10.0.0.2:5000"},
		Watches:  map[string][]int64{"/l/" + holder: {0x22, 0x33, 0x44}},
		Sessions: []int64{0x11, 0x22, 0x33, 0x44},
		Via:      map[string]string{"cons": "4lw", "wchp": "4lw", "dump": "4lw"},
	}}}
	qs := []lockops.Queue{q}
	ApplyEnsemble(e, qs)
	Diagnose(qs, Options{Ensemble: e})
	if got := problemKinds(qs[0]); got != "owner-disconnected,herd" {
		t.Errorf("problems %q, want owner-disconnected (0x11 has no connection) and herd (3 watchers)", got)
	}
	if w := qs[0].Participants[1]; w.Client != "10.0.0.2:5000" || w.WatchObserved == nil || !*w.WatchObserved {
		t.Errorf("waiter: client %q observed %v", w.Client, w.WatchObserved)
	}

	// The holder's session is gone from every member's list.
	e.Members[0].Sessions = []int64{0x22}
	qs = []lockops.Queue{lockops.Decode(dir("/l", kid(holder, 0x11), kid(waiter, 0x22)), lockops.DecodeOptions{})}
	ApplyEnsemble(e, qs)
	Diagnose(qs, Options{Ensemble: e})
	if got := problemKinds(qs[0]); !strings.HasPrefix(got, "dead-owner") {
		t.Errorf("problems %q, want dead-owner first", got)
	}
}
