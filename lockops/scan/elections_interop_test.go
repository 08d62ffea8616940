package scan

// Single-node locks and elections on a real server. No Kafka, Hadoop,
// HBase or Solr binaries exist here: each layout is built node by node as
// the system writes it (node flags and data bytes from its sources; see
// locktest.BuildElections), every system process on its own session, and the
// candidates set the watches the systems set (exists on the leader node,
// Solr's getData on its predecessor). The plain ephemeral lock is taken
// by real kazoo and Curator clients with the create-or-watch pattern.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/contracttest"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestElectionsInterop(t *testing.T) {
	cl := zktest.Shared(t)
	cs := cl.ConnectString()
	base := zktest.Path(t)
	s := locktest.BuildElections(t, cl.Addrs(), base)

	r := locksJSON(t, cs, base)
	locks := map[string]contracttest.Obj{}
	for _, l := range r.Objs("locks") {
		locks[l.Str("recipe")] = l
	}
	if len(locks) != 4 {
		t.Fatalf("locks: %v", r)
	}
	kafka := locks["kafka.controller"]
	ps := kafka.Objs("participants")
	if kafka.Str("path") != base+"/kafka" || len(ps) != 3 {
		t.Fatalf("kafka: %v", kafka)
	}
	lead := ps[0]
	if lead.Str("state") != "holding" || lead.Str("node") != base+"/kafka/controller" ||
		lead.Str("session") != lockops.FormatSession(s["broker1"].Conn().SessionID()) {
		t.Errorf("kafka controller: %v", lead)
	}
	if pl, _ := lead["payload"].(map[string]any); pl["brokerid"] != float64(1) || pl["host"] != "kafka1:9092" {
		t.Errorf("kafka controller payload: %v", lead["payload"])
	}
	for i, p := range ps[1:] {
		pl, _ := p["payload"].(map[string]any)
		if p.Str("state") != "waiting" || p["own_node"] != false || p.Str("watch_kind") != "exists" || !p.Flag("watch_observed") ||
			p.Str("watches") != base+"/kafka/controller" || !strings.HasPrefix(p.Str("client"), "127.0.0.1:") || pl["broker"] != fmt.Sprint(i+2) {
			t.Errorf("kafka waiter %d: %v", i, p)
		}
	}
	if ctx, _ := kafka["context"].(map[string]any); ctx["controller_epoch"] != float64(7) {
		t.Errorf("kafka context: %v", kafka["context"])
	}
	hdfs := locks["hadoop.ha"]
	if ps := hdfs.Objs("participants"); len(ps) != 2 || ps[0].Str("session") != lockops.FormatSession(s["zkfc1"].Conn().SessionID()) ||
		ps[1].Str("session") != lockops.FormatSession(s["zkfc2"].Conn().SessionID()) || ps[1].Str("watch_kind") != "exists" {
		t.Errorf("hdfs: %v", hdfs)
	}
	hbase := locks["hbase.master"]
	if ps := hbase.Objs("participants"); len(ps) != 2 || ps[1].Str("node") != base+"/hbase/backup-masters/hm2,16000,1700000000001" ||
		ps[1].Str("watches") != base+"/hbase/master" || !ps[1].Flag("watch_observed") {
		t.Errorf("hbase: %v", hbase)
	}
	solr := locks["solr.overseer"]
	expectShape(t, solr, "solr.overseer", "0 holding leader", "1 waiting leader -> 0 (data)", "2 waiting leader -> 1 (data)")

	// doctor: the HDFS failover that did not finish.
	out, code := doctor(t, cs, base)
	if code != 1 || !strings.Contains(out, "failover-unfinished\t"+base+"/hadoop-ha/ns1/"+lockops.HadoopBreadcrumbNode) {
		t.Errorf("doctor (exit %d) did not report the stale breadcrumb:\n%s", code, out)
	}
	if strings.Contains(out, "herd\t") {
		t.Errorf("doctor reported a herd of a system's election (by design):\n%s", out)
	}

	// evict on Kafka's controller: refused without --force-leader.
	cmd := locktest.ZkscopeCmd(t, t.TempDir(), cs, "evict", base+"/kafka/controller")
	cmd.Stdin = strings.NewReader("controller\n")
	code, stderr := locktest.RunWithin(t, cmd, 60*time.Second)
	if code != 2 || !strings.Contains(stderr, "--force-leader") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("evict of the controller: exit %d, stderr %q", code, stderr)
	}
	if ok, _, _ := s["broker2"].Conn().Exists(base + "/kafka/controller"); !ok {
		t.Error("the controller node was deleted")
	}
	// With --force-leader (and the owner expected, not asked): deleted.
	cmd = locktest.ZkscopeCmd(t, t.TempDir(), cs, "evict", base+"/kafka/controller", "--force-leader", "--yes",
		"--expect-session", lockops.FormatSession(s["broker1"].Conn().SessionID()))
	var out2 strings.Builder
	cmd.Stdout = &out2
	if code, stderr := locktest.RunWithin(t, cmd, 60*time.Second); code != 0 || !strings.Contains(out2.String(), "a new election among the 2 sessions watching it") {
		t.Errorf("evict --force-leader: exit %d, stdout:\n%s\nstderr: %s", code, out2.String(), stderr)
	}
	if ok, _, _ := s["broker2"].Conn().Exists(base + "/kafka/controller"); ok {
		t.Error("the controller node is still there")
	}
}

// doctor runs the real `zkscope doctor PATH`.
func doctor(t *testing.T, servers, p string) (string, int) {
	t.Helper()
	cmd := locktest.ZkscopeCmd(t, t.TempDir(), servers, "doctor", p)
	var out strings.Builder
	cmd.Stdout = &out
	code, stderr := locktest.RunWithin(t, cmd, 60*time.Second)
	return out.String() + stderr, code
}

// TestEphemeralLockKazooCuratorInterop: real kazoo and Curator clients
// take a plain ephemeral lock with create-or-watch; the report names the
// holder and the watching sessions as waiters, doctor the herd; when the
// holder lets go, one of them takes it.
func TestEphemeralLockKazooCuratorInterop(t *testing.T) {
	cl := zktest.Shared(t)
	cs := cl.ConnectString()
	lock := zktest.Path(t) + "/maintenance"
	kz, cur := zktest.StartKazoo(t, cs), zktest.StartCurator(t, cs)
	kz.Acquire(t, "k1", "ephemeral", lock)
	kz.Await(t, "k1", "acquired")
	kz.Acquire(t, "k2", "ephemeral", lock)
	kz.Await(t, "k2", "waiting")
	kz.Acquire(t, "k3", "ephemeral", lock)
	kz.Await(t, "k3", "waiting")
	cur.Acquire(t, "c4", "ephemeral", lock)
	cur.Await(t, "c4", "waiting")

	l := settled(t, cs, lock, 4)
	if l.Str("recipe") != "zookeeper.ephemeral-lock" || l.Str("path") != lock {
		t.Fatalf("lock %v", l)
	}
	ps := l.Objs("participants")
	if ps[0].Str("state") != "holding" || ps[0].Str("data") != "k1" || ps[0].Str("node") != lock {
		t.Errorf("holder %v", ps[0])
	}
	for i, p := range ps[1:] {
		if p.Str("state") != "waiting" || p.Str("watch_kind") != "exists" || p["own_node"] != false || p.Str("node") != lock ||
			!p.IsNull("seq") || !strings.HasPrefix(p.Str("client"), "127.0.0.1:") {
			t.Errorf("waiter %d: %v", i, p)
		}
	}
	// The same lock found from its parent: the servers list it watched.
	parent := locksJSON(t, cs, lock[:strings.LastIndexByte(lock, '/')])
	if locks := parent.Objs("locks"); len(locks) != 1 || locks[0].Str("path") != lock || len(locks[0].Objs("participants")) != 4 {
		t.Errorf("from the parent: %v", parent)
	}
	out, code := doctor(t, cs, lock)
	if code != 1 || !strings.Contains(out, "herd\t"+lock) {
		t.Errorf("doctor (exit %d) did not report the herd:\n%s", code, out)
	}
	kz.Release(t, "k1")
	locktest.WaitFor(t, "a waiter to take the lock", 90*time.Second, func() bool {
		return kz.Has("k2", "acquired") || kz.Has("k3", "acquired") || cur.Has("c4", "acquired")
	})
	settled(t, cs, lock, 3)
}

// TestLeaderClientGoneInterop: Kafka's controller node whose session the
// servers keep alive while its client is gone (its connection dropped
// without closing the session): doctor says nobody takes over until the
// session expires.
func TestLeaderClientGoneInterop(t *testing.T) {
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base+"/kafka/brokers/ids")
	locktest.MustCreate(t, c.Conn(), base+"/kafka/controller_epoch", []byte("3"), zk.FlagPersistent)
	raw, err := zktest.DialSession(cl.Addrs()[0], 0, nil, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Create(base+"/kafka/controller", locktest.KafkaControllerData(1, 5, time.Now().UnixMilli()), int32(zk.FlagEphemeral)); err != nil {
		t.Fatal(err)
	}
	raw.Abandon()
	locktest.WaitFor(t, "the dropped connection to leave the servers' lists", 30*time.Second, func() bool {
		e := c.Introspect(context.Background())
		_, ok := e.ClientOf(raw.ID)
		return e.Err() == nil && !ok // every member answered, and none lists it
	})
	// Judged from a doctor run whose members all answered in time: on a
	// loaded machine one may not, and doctor then rightly says the clients
	// are unknown ("note: clients (-) unknown") instead of judging them.
	var out string
	var code int
	locktest.WaitFor(t, "a doctor run every member answered", 60*time.Second, func() bool {
		out, code = doctor(t, cl.ConnectString(), base)
		return !strings.Contains(out, ") unknown")
	})
	if code != 1 || !strings.Contains(out, "leader-client-gone\t"+base+"/kafka/controller") {
		t.Errorf("doctor (exit %d) did not report the controller's client gone:\n%s", code, out)
	}
}

// TestElectionsNoLeaderInterop: between two elections the leader node is
// missing and the candidates wait with an exists watch on it (Kafka's
// brokers on /controller, HDFS's failover controllers on the lock, with
// and without a breadcrumb): locks names them as the waiters of the empty
// election, doctor's no-leader names them.
func TestElectionsNoLeaderInterop(t *testing.T) {
	cl := zktest.Shared(t)
	cs := cl.ConnectString()
	base := zktest.Path(t)
	a := locktest.NewClient(t, cl.Addrs()).Conn()
	zktest.MakePath(t, a, base)
	for _, p := range []string{base + "/kafka", base + "/kafka/brokers", base + "/kafka/brokers/ids",
		base + "/hadoop-ha", base + "/hadoop-ha/ns1", base + "/hadoop-ha/ns2"} {
		locktest.MustCreate(t, a, p, nil, zk.FlagPersistent)
	}
	locktest.MustCreate(t, a, base+"/kafka/controller_epoch", []byte("8"), zk.FlagPersistent)
	locktest.MustCreate(t, a, base+"/hadoop-ha/ns2/"+lockops.HadoopBreadcrumbNode, locktest.ActiveNodeInfo("ns2", "nn1", "nn1.example", 8020, 8019), zk.FlagPersistent)
	waiting := map[string][]string{} // lock path -> the sessions watching its missing leader node
	watchMissing := func(lockPath, node string, conn *zk.Conn) {
		if ok, _, _, err := conn.ExistsW(node); err != nil || ok {
			t.Fatalf("exists watch on the missing %s: %v %v", node, ok, err)
		}
		waiting[lockPath] = append(waiting[lockPath], lockops.FormatSession(conn.SessionID()))
	}
	for i := 1; i <= 3; i++ {
		b := locktest.NewClient(t, cl.Addrs()).Conn()
		locktest.MustCreate(t, b, fmt.Sprintf("%s/kafka/brokers/ids/%d", base, i), locktest.KafkaBrokerData(fmt.Sprintf("kafka%d", i), 9092), zk.FlagEphemeral)
		watchMissing(base+"/kafka", base+"/kafka/controller", b)
	}
	for _, ns := range []string{"ns1", "ns2"} {
		for i := 0; i < 2; i++ {
			watchMissing(base+"/hadoop-ha/"+ns, base+"/hadoop-ha/"+ns+"/"+lockops.HadoopLockNode, locktest.NewClient(t, cl.Addrs()).Conn())
		}
	}

	r := locksJSON(t, cs, base)
	locks := r.Objs("locks")
	if len(locks) != 3 {
		t.Fatalf("want Kafka and two HDFS elections: %v", r)
	}
	for _, l := range locks {
		want := waiting[l.Str("path")]
		ps := l.Objs("participants")
		if len(ps) != len(want) {
			t.Errorf("%s: participants %v, want the %d sessions watching", l.Str("path"), ps, len(want))
			continue
		}
		for i, p := range ps {
			if p.Str("state") != "waiting" || p.Str("session") != want[i] || p.Str("watch_kind") != "exists" || p["own_node"] != false || !p.Flag("watch_observed") {
				t.Errorf("%s waiter %d: %v", l.Str("path"), i, p)
			}
		}
		probs := l.Objs("problems")
		if len(probs) != 1 || probs[0].Str("kind") != "no-leader" || !strings.Contains(probs[0].Str("detail"), strings.Join(want, ", ")) {
			t.Errorf("%s: problems %v", l.Str("path"), probs)
		}
	}
	kafka := locks[len(locks)-1] // sorted by path: hadoop-ha, kafka
	if pl, _ := kafka.Objs("participants")[1]["payload"].(map[string]any); kafka.Str("recipe") != "kafka.controller" || pl["broker"] != "2" {
		t.Errorf("kafka's waiters are not named by their broker registration: %v", kafka)
	}
	out, code := doctor(t, cs, base)
	if code != 1 || strings.Count(out, "no-leader\t") != 3 || !strings.Contains(out, "racing to create it") {
		t.Errorf("doctor (exit %d):\n%s", code, out)
	}
}
