package history

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
)

// replayAt replays s at or below root and reports it.
func replayAt(t *testing.T, s *script, root string) Report {
	t.Helper()
	l := eventList(s.evs)
	r, err := ReplayAll(&l, root, Point{}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Report(Options{})
}

// checkTenures compares the one lock of rep with its path, kind and each
// tenure's end, session and payload's beginning.
func checkTenures(t *testing.T, rep Report, p string, k lockops.Kind, want ...string) {
	t.Helper()
	if len(rep.Locks) != 1 || rep.Locks[0].Path != p || rep.Locks[0].Kind != k {
		t.Fatalf("locks: %+v", rep.Locks)
	}
	var got []string
	for _, tn := range rep.Locks[0].Tenures {
		got = append(got, fmt.Sprintf("%s %x %t %s", tn.End, tn.Session, !tn.Held.IsZero(), tn.Payload))
	}
	if len(got) != len(want) {
		t.Fatalf("tenures:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("tenure %d: %q, want %q…\nall:\n%s", i, got[i], want[i], strings.Join(got, "\n"))
		}
	}
}

// TestReplayKafkaController: who was Kafka's controller, and how each
// tenure ended: broker 1's session expired, broker 2 resigned (deleted
// its own node), broker 3's node was force-deleted.
func TestReplayKafkaController(t *testing.T) {
	k := "/app/kafka"
	s := &script{}
	for i := 1; i <= 3; i++ {
		s.add(Event{Kind: EventSessionCreate, Session: int64(i), Timeout: 4 * time.Second})
	}
	for _, p := range []string{k, k + "/brokers", k + "/brokers/ids"} {
		s.add(Event{Kind: EventCreate, Session: 9, Path: p})
	}
	for i := 1; i <= 3; i++ {
		s.add(Event{Kind: EventCreate, Session: int64(i), Owner: int64(i), Path: fmt.Sprintf("%s/brokers/ids/%d", k, i), Data: locktest.KafkaBrokerData(fmt.Sprint("kafka", i), 9092)})
	}
	controller := func(broker int64) {
		s.add(Event{Kind: EventCreate, Session: broker, Owner: broker, Path: k + "/controller", Data: locktest.KafkaControllerData(2, int(broker), 1_700_000_000_000)})
	}
	controller(1)
	s.add(Event{Kind: EventCreate, Session: 1, Path: k + "/controller_epoch", Data: []byte("1")})
	s.zxid += 10 // broker 1 stops; its session expires
	s.add(Event{Kind: EventSessionClose, Session: 1})
	controller(2)
	s.add(Event{Kind: EventSetData, Session: 2, Path: k + "/controller_epoch", Data: []byte("2")})
	s.add(Event{Kind: EventDelete, Session: 2, Path: k + "/controller"})
	controller(3)
	s.add(Event{Kind: EventDelete, Session: 9, Path: k + "/controller"})
	checkTenures(t, replayAt(t, s, "/app"), k, lockops.KindKafkaController,
		"session-expired 1 true brokerid=1", "released 2 true brokerid=2", "force-deleted 3 true brokerid=3")
	if tn := replayAt(t, s, k).Locks[0].Tenures[0]; !strings.Contains(tn.Payload, "host=kafka1:9092") {
		t.Errorf("the controller's broker is not named from its registration: %q", tn.Payload)
	}
}

// TestReplayHBaseMaster: the backup master waits until the active
// master's session expires, then takes over.
func TestReplayHBaseMaster(t *testing.T) {
	hb := "/app/hbase"
	s := &script{}
	for i := 1; i <= 2; i++ {
		s.add(Event{Kind: EventSessionCreate, Session: int64(i), Timeout: 4 * time.Second})
	}
	s.add(Event{Kind: EventCreate, Session: 9, Path: hb})
	s.add(Event{Kind: EventCreate, Session: 9, Path: hb + "/backup-masters"})
	s.add(Event{Kind: EventCreate, Session: 1, Owner: 1, Path: hb + "/master", Data: locktest.HBaseMasterData("1@hm1", "hm1", 16000, 1, 16010)})
	backup := hb + "/backup-masters/hm2,16000,2"
	s.add(Event{Kind: EventCreate, Session: 2, Owner: 2, Path: backup, Data: locktest.HBaseMasterData("2@hm2", "hm2", 16000, 2, 16010)})
	s.zxid += 10
	s.add(Event{Kind: EventSessionClose, Session: 1})
	s.add(Event{Kind: EventCreate, Session: 2, Owner: 2, Path: hb + "/master", Data: locktest.HBaseMasterData("2@hm2", "hm2", 16000, 2, 16010)})
	s.add(Event{Kind: EventDelete, Session: 2, Path: backup})
	checkTenures(t, replayAt(t, s, hb), hb, lockops.KindHBaseMaster,
		"session-expired 1 true host=hm1", "released 2 false host=hm2", "present 2 true host=hm2")
}

// TestReplayEphemeralRoot: an ephemeral node given as the history's path
// is a plain ephemeral lock; its holders come and go.
func TestReplayEphemeralRoot(t *testing.T) {
	lock := "/app/maint"
	s := &script{}
	s.add(Event{Kind: EventSessionCreate, Session: 1, Timeout: 4 * time.Second})
	s.add(Event{Kind: EventCreate, Session: 1, Owner: 1, Path: lock, Data: []byte("host-a")})
	s.zxid += 10
	s.add(Event{Kind: EventSessionClose, Session: 1})
	s.add(Event{Kind: EventCreate, Session: 2, Owner: 2, Path: lock, Data: []byte("host-b")})
	s.add(Event{Kind: EventSetData, Session: 2, Path: lock, Data: []byte("host-b, step 2")})
	s.add(Event{Kind: EventDelete, Session: 2, Path: lock})
	s.add(Event{Kind: EventCreate, Session: 3, Owner: 3, Path: lock, Data: []byte("host-c")})
	checkTenures(t, replayAt(t, s, lock), lock, lockops.KindEphemeralLock, "session-expired 1 true", "released 2 true", "present 3 true")
	if rep := replayAt(t, s, "/app"); len(rep.Locks) != 0 {
		t.Errorf("an ephemeral node below the path, not at it, was read as a lock: %+v", rep.Locks)
	}
}

// TestReplaySolrAndHadoop: Solr's overseer election hands over when the
// first node's session expires (its leader node is read as context, not
// as a participant); HDFS's elector lock changes hands the same way, its
// breadcrumb no participant either.
func TestReplaySolrAndHadoop(t *testing.T) {
	oe, ns := "/app/solr/overseer_elect", "/app/hadoop-ha/ns1"
	s := &script{}
	for i := 1; i <= 2; i++ {
		s.add(Event{Kind: EventSessionCreate, Session: int64(i), Timeout: 4 * time.Second})
	}
	for _, p := range []string{"/app/solr", oe, oe + "/election", "/app/hadoop-ha", ns} {
		s.add(Event{Kind: EventCreate, Session: 9, Path: p})
	}
	for i := 1; i <= 2; i++ {
		s.add(Event{Kind: EventCreate, Session: int64(i), Owner: int64(i), Path: fmt.Sprintf("%s/election/%d-10.0.0.%d:8983_solr-n_%010d", oe, i, i, i-1)})
	}
	s.add(Event{Kind: EventCreate, Session: 1, Owner: 1, Path: oe + "/leader", Data: []byte(`{"id":"1-10.0.0.1:8983_solr-n_0000000000"}`)})
	s.add(Event{Kind: EventCreate, Session: 1, Owner: 1, Path: ns + "/" + lockops.HadoopLockNode, Data: locktest.ActiveNodeInfo("ns1", "nn1", "nn1.example", 8020, 8019)})
	s.add(Event{Kind: EventCreate, Session: 1, Path: ns + "/" + lockops.HadoopBreadcrumbNode, Data: locktest.ActiveNodeInfo("ns1", "nn1", "nn1.example", 8020, 8019)})
	s.zxid += 10
	s.add(Event{Kind: EventSessionClose, Session: 1})
	s.add(Event{Kind: EventCreate, Session: 2, Owner: 2, Path: oe + "/leader", Data: []byte(`{"id":"2-10.0.0.2:8983_solr-n_0000000001"}`)})
	s.add(Event{Kind: EventCreate, Session: 2, Owner: 2, Path: ns + "/" + lockops.HadoopLockNode, Data: locktest.ActiveNodeInfo("ns1", "nn2", "nn2.example", 8020, 8019)})
	rep := replayAt(t, s, "/app/solr")
	checkTenures(t, rep, oe+"/election", lockops.KindSolrOverseer, "session-expired 1 true node_name=10.0.0.1:8983_solr", "present 2 true node_name=10.0.0.2:8983_solr")
	checkTenures(t, replayAt(t, s, "/app/hadoop-ha"), ns, lockops.KindHadoopHA, "session-expired 1 true nameservice=ns1 namenode=nn1", "present 2 true nameservice=ns1 namenode=nn2")
}

// TestReplayCuratorSemaphoreOrder: Curator makes a semaphore's locks/
// (and takes its internal lock) before leases/ exists: until then locks/
// reads as a mutex of its own; once both are there its history is the
// semaphore's, its node held since it was created.
func TestReplayCuratorSemaphoreOrder(t *testing.T) {
	sem := "/app/sem"
	lock := sem + "/locks/_c_11111111-1111-2222-3333-444444444444-lock-0000000000"
	lease := sem + "/leases/_c_22222222-1111-2222-3333-444444444444-lease-0000000000"
	s := &script{}
	s.add(Event{Kind: EventCreate, Path: sem})
	s.add(Event{Kind: EventCreate, Path: sem + "/locks"})
	s.add(Event{Kind: EventCreate, Session: 1, Owner: 1, Path: lock})
	s.add(Event{Kind: EventCreate, Path: sem + "/leases"})
	s.add(Event{Kind: EventCreate, Session: 1, Owner: 1, Path: lease})
	s.add(Event{Kind: EventDelete, Session: 1, Path: lock})
	rep := replayAt(t, s, "/app")
	if len(rep.Locks) != 1 || rep.Locks[0].Path != sem || len(rep.Locks[0].Tenures) != 2 {
		t.Fatalf("locks: %+v", rep.Locks)
	}
	if tn := rep.Locks[0].Tenures[0]; tn.Node != lock || tn.Mode != lockops.ModeLock || tn.Held.Zxid != 3 || tn.End != EndReleased {
		t.Fatalf("the internal lock's node: %+v", tn)
	}
}

// TestReplayCuratorSemaphoreContainerReaped: the server deletes the
// semaphore's emptied locks/ container (a deleteContainer of session 0)
// while leases are held: the semaphore stays one and its leases stay held.
func TestReplayCuratorSemaphoreContainerReaped(t *testing.T) {
	sem := "/app/sem"
	lock := sem + "/locks/_c_11111111-1111-2222-3333-444444444444-lock-0000000000"
	lease := sem + "/leases/_c_22222222-1111-2222-3333-444444444444-lease-0000000000"
	s := &script{}
	s.add(Event{Kind: EventCreate, Path: sem})
	s.add(Event{Kind: EventCreate, Path: sem + "/locks"})
	s.add(Event{Kind: EventCreate, Session: 1, Owner: 1, Path: lock})
	s.add(Event{Kind: EventCreate, Path: sem + "/leases"})
	s.add(Event{Kind: EventCreate, Session: 1, Owner: 1, Path: lease})
	s.add(Event{Kind: EventDelete, Session: 1, Path: lock})
	s.add(Event{Kind: EventDelete, Path: sem + "/locks", SessionKnown: true})
	rep := replayAt(t, s, "/app")
	if len(rep.Locks) != 1 || rep.Locks[0].Path != sem || rep.Locks[0].Kind != lockops.KindCuratorSemaphoreV2 || len(rep.Locks[0].Tenures) != 2 {
		t.Fatalf("locks: %+v", rep.Locks)
	}
	if tn := rep.Locks[0].Tenures[1]; tn.Node != lease || tn.End != EndPresent {
		t.Fatalf("the lease after its semaphore's locks/ was reaped: %+v", tn)
	}
}

// TestRecordingEphemeralHandover: a plain ephemeral lock that changed
// hands between two reads is recorded as the old node gone and a new one
// (same path, another czxid); its waiters on a watch are not recorded as
// nodes.
func TestRecordingEphemeralHandover(t *testing.T) {
	lock := "/app/maint"
	held := func(owner, czxid int64, watcher int64) lockops.Queue {
		q := lockops.Decode(lockops.EphemeralDir(lock, zk.Stat{EphemeralOwner: owner, Czxid: czxid, Ctime: histT0.Add(time.Duration(czxid) * time.Second).UnixMilli()}, []byte(fmt.Sprint("h", owner))), lockops.DecodeOptions{})
		q.Participants = append(q.Participants, lockops.Participant{Node: lock, State: lockops.StateWaiting, Session: watcher, WatcherOnly: true})
		return q
	}
	var b bytes.Buffer
	rec, err := NewRecorder(&b, lock, []string{"zk1:2181"}, histT0)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range []lockops.Queue{held(1, 10, 2), held(2, 20, 3)} {
		if err := rec.Observe(&q, 0, histT0.Add(time.Duration(15+10*i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	_, src, err := OpenRecording(&b)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReplayAll(src, lock, Point{}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkTenures(t, r.Report(Options{}), lock, lockops.KindEphemeralLock, "gone 1 true", "present 2 true")
}
