package history_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestHistorySingleNodeLocks: on a real server, a Kafka controller
// election laid out as Kafka writes it (no Kafka here: each broker its own
// session, /controller and /controller_epoch as ZkData writes them), whose
// first controller's session expires, the second resigns and the third's
// node is force-deleted; a plain ephemeral lock taken by three real kazoo
// clients, the first killed while holding (its waiters own no node: they
// show from the moment they hold); kazoo and Curator semaphores of two
// leases, a third client waiting for one. `history --txnlog` names each controller and holder in turn and
// how each tenure ended.
func TestHistorySingleNodeLocks(t *testing.T) {
	srv := zktest.StartStandalone(t, zktest.Options{MaxSessionTimeout: 4000})
	connect := srv.ConnectString()
	admin := cmdtest.Dial(t, connect)
	for _, p := range []string{"/kafka", "/kafka/brokers", "/kafka/brokers/ids", "/eph"} {
		if _, err := admin.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	kafkaElection(t, connect, admin)
	maint := "/eph/maint"
	kz := map[string]*zktest.Peers{}
	for _, id := range []string{"a", "b", "c"} {
		kz[id] = zktest.StartKazoo(t, connect)
	}
	kz["a"].Acquire(t, "a", "ephemeral", maint)
	kz["a"].Await(t, "a", "acquired")
	kz["b"].Acquire(t, "b", "ephemeral", maint)
	kz["b"].Await(t, "b", "waiting")
	kz["a"].Kill() // its session expires after 4 s
	kz["b"].Await(t, "b", "acquired")
	kz["c"].Acquire(t, "c", "ephemeral", maint)
	kz["c"].Await(t, "c", "waiting")
	kz["b"].Release(t, "b")
	kz["c"].Await(t, "c", "acquired")
	// kazoo: s3 holds the semaphore's internal lock while it waits;
	// Curator: s3's lease is made, and waits.
	sem := contendSemaphore(t, zktest.StartKazoo(t, connect), connect, "/sem", "/sem-__lock__", 1)
	contendSemaphore(t, zktest.StartCurator(t, connect), connect, "/csem", "/csem/leases", 3)

	data := copyDataDir(t, filepath.Join(srv.Servers[0].Dir, "data"))
	doc, out := historyJSON(t, "/kafka", "--txnlog", data)
	checkSingleHistory(t, doc, out, "/kafka", "kafka.controller", []string{"brokerid=1", "brokerid=2", "brokerid=3"},
		[]string{"session-expired", "released", "force-deleted"})
	doc, out = historyJSON(t, maint, "--txnlog", data)
	checkSingleHistory(t, doc, out, maint, "zookeeper.ephemeral-lock", nil, []string{"session-expired", "released", "present"})
	if ts := doc.Locks[0].Tenures; ts[0].Data != "a" || ts[1].Data != "b" || ts[2].Data != "c" {
		t.Errorf("holders of %s: %s", maint, out)
	}
	doc, out = historyJSON(t, "/sem", "--txnlog", data)
	checkSemaphoreHistory(t, doc, out, sem)
	doc, out = historyJSON(t, "/csem", "--txnlog", data, "--max-leases", "2")
	checkCuratorSemaphoreHistory(t, doc, out)
	code, table, stderr := cmdtest.RunBinary(t, nil, "history", "/kafka", "--txnlog", data)
	if code != 0 || !strings.Contains(table, "brokerid=2") || !strings.Contains(table, "session expired at") {
		t.Fatalf("history table: exit %d\n%s\n%s", code, table, stderr)
	}
	t.Logf("history of the controller:\n%s", table)
}

// kafkaElection: brokers 1 to 3 register; broker 1 (a session that stops
// answering) is controller until its session expires, broker 2 takes over
// and bumps the epoch, then resigns (deletes /controller), broker 3 takes
// over and an operator deletes its node.
func kafkaElection(t *testing.T, connect string, admin *zk.Conn) {
	t.Helper()
	addr := strings.Split(connect, ",")[0]
	crashed, err := zktest.DialSession(addr, 0, nil, 4*time.Second) // sends no pings
	if err != nil {
		t.Fatal(err)
	}
	controller := func(id int) []byte {
		return []byte(fmt.Sprintf(`{"version":2,"brokerid":%d,"timestamp":"%d","kraftControllerEpoch":-1}`, id, time.Now().UnixMilli()))
	}
	broker := func(id int) []byte {
		return []byte(fmt.Sprintf(`{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://kafka%d:9092"],"jmx_port":-1,"port":9092,"host":"kafka%d","version":5,"timestamp":"%d"}`, id, id, time.Now().UnixMilli()))
	}
	const ephemeral = 1
	if err := crashed.Create("/kafka/brokers/ids/1", broker(1), ephemeral); err != nil {
		t.Fatal(err)
	}
	if err := crashed.Create("/kafka/controller", controller(1), ephemeral); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Create("/kafka/controller_epoch", []byte("1"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	b := map[int]*zk.Conn{}
	for _, id := range []int{2, 3} {
		b[id] = cmdtest.Dial(t, connect)
		if _, err := b[id].Create(fmt.Sprintf("/kafka/brokers/ids/%d", id), broker(id), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	crashed.Abandon()
	awaitNoNode(t, admin, "/kafka/controller")
	take := func(id int, epoch string) {
		if _, err := b[id].Create("/kafka/controller", controller(id), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		if _, err := b[id].Set("/kafka/controller_epoch", []byte(epoch), -1); err != nil {
			t.Fatal(err)
		}
	}
	take(2, "2")
	if err := b[2].Delete("/kafka/controller", -1); err != nil { // a controlled shutdown resigns
		t.Fatal(err)
	}
	take(3, "3")
	if err := admin.Delete("/kafka/controller", -1); err != nil { // an operator's force-delete
		t.Fatal(err)
	}
}

// contendSemaphore: clients s1 and s2 of peers p take the two leases of
// the semaphore at path, s3 waits (until waitDir has waiting children)
// and gets a lease when s1 returns its own. It returns the order the
// holders got a lease.
func contendSemaphore(t *testing.T, p *zktest.Peers, connect, path, waitDir string, waiting int) []string {
	t.Helper()
	for _, id := range []string{"s1", "s2"} {
		p.Acquire(t, id, "semaphore", path, "2")
		p.Await(t, id, "acquired")
	}
	p.Acquire(t, "s3", "semaphore", path, "2")
	awaitChildren(t, cmdtest.Dial(t, connect), waitDir, waiting)
	p.Release(t, "s1")
	p.Await(t, "s3", "acquired")
	return []string{"s1", "s2", "s3"}
}

// checkCuratorSemaphoreHistory: the leases in order of arrival, the
// first returned, the third held after a wait.
func checkCuratorSemaphoreHistory(t *testing.T, doc historyDoc, out string) {
	t.Helper()
	if len(doc.Locks) != 1 || doc.Locks[0].Path != "/csem" || doc.Locks[0].Recipe != string(lockops.KindCuratorSemaphoreV2) {
		t.Fatalf("Curator semaphore history:\n%s", out)
	}
	var ends []string
	var waited []int64
	for _, tn := range doc.Locks[0].Tenures {
		if strings.HasPrefix(tn.Node, "/csem/leases/") {
			if tn.Held == nil {
				t.Fatalf("lease %s never held:\n%s", tn.Node, out)
			}
			ends, waited = append(ends, tn.End), append(waited, tn.WaitedMs)
		}
	}
	if !reflect.DeepEqual(ends, []string{"released", "present", "present"}) || waited[2] <= 0 {
		t.Fatalf("leases ended %v, waited %v ms:\n%s", ends, waited, out)
	}
}

// checkSingleHistory: the one lock of doc at p, of recipe kind, its
// tenures each held, in order, with these payloads' beginnings and ends.
func checkSingleHistory(t *testing.T, doc historyDoc, out, p, kind string, payloads, ends []string) {
	t.Helper()
	if len(doc.Locks) != 1 || doc.Locks[0].Path != p || doc.Locks[0].Recipe != kind {
		t.Fatalf("history of %s:\n%s", p, out)
	}
	var got []string
	for i, tn := range doc.Locks[0].Tenures {
		if tn.Held == nil {
			t.Fatalf("tenure %d of %s never held:\n%s", i, p, out)
		}
		if i < len(payloads) && !strings.HasPrefix(tn.Payload, payloads[i]) {
			t.Fatalf("tenure %d of %s: payload %q, want %q…\n%s", i, p, tn.Payload, payloads[i], out)
		}
		got = append(got, tn.End)
	}
	if !reflect.DeepEqual(got, ends) {
		t.Fatalf("ends of %s: %v, want %v\n%s", p, got, ends, out)
	}
}

// checkSemaphoreHistory: the kazoo semaphore's leases held in order, the
// first released; s3 waited (its node in the semaphore's internal lock)
// until s1 released.
func checkSemaphoreHistory(t *testing.T, doc historyDoc, out string, order []string) {
	t.Helper()
	if len(doc.Locks) != 1 || doc.Locks[0].Recipe != string(lockops.KindKazooSemaphore) {
		t.Fatalf("semaphore history:\n%s", out)
	}
	var leases, ends []string
	var s3Waited int64
	for _, tn := range doc.Locks[0].Tenures {
		switch {
		case strings.Contains(tn.Node, "/sem-__lock__/") && strings.Contains(tn.Data, "s3"):
			s3Waited = tn.WaitedMs // its internal lock's node, until a lease was free
		case tn.Held != nil && strings.HasPrefix(tn.Node, "/sem/"):
			leases, ends = append(leases, tn.Data), append(ends, tn.End)
		}
	}
	if !reflect.DeepEqual(leases, order) || !reflect.DeepEqual(ends, []string{"released", "present", "present"}) || s3Waited <= 0 {
		t.Fatalf("leases %v ends %v (s3 waited %d ms), want %v:\n%s", leases, ends, s3Waited, order, out)
	}
}

// awaitNoNode waits until p does not exist.
func awaitNoNode(t *testing.T, c *zk.Conn, p string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, _, ch, err := c.ExistsW(p)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		select {
		case <-ch:
		case <-time.After(time.Until(deadline)):
			t.Fatalf("%s still exists", p)
		}
	}
}
