package lockops

import (
	"strings"
	"testing"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
)

func withData(c Child, data []byte) Child { c.Data = data; return c }

func payloadOf(t *testing.T, p Participant) string {
	t.Helper()
	if p.Payload == nil {
		t.Fatalf("%s: no payload", p.Node)
	}
	return p.Payload.String()
}

func TestDecodeKafkaController(t *testing.T) {
	root := dir("/kafka",
		withData(kid("controller", 0x101), locktest.KafkaControllerData(2, 1, 1_700_000_000_123)),
		withData(kid("controller_epoch", 0), []byte("7")),
		kid("brokers", 0), kid("admin", 0))
	root.Context = []Child{
		withData(kid("1", 0x101), locktest.KafkaBrokerData("kafka1", 9092)),
		withData(kid("2", 0x102), locktest.KafkaBrokerData("kafka2", 9092)),
	}
	q := Decode(root, DecodeOptions{})
	if q.Kind != KindKafkaController || len(q.Participants) != 1 || len(q.Problems) != 0 {
		t.Fatalf("queue %+v", q)
	}
	lead := q.Participants[0]
	if lead.Node != "/kafka/controller" || lead.State != StateHolding || lead.Session != 0x101 {
		t.Errorf("leader %+v", lead)
	}
	if got := payloadOf(t, lead); got != "brokerid=1 version=2 timestamp=2023-11-14T22:13:20.123Z host=kafka1:9092" {
		t.Errorf("payload %q", got)
	}
	if got := (&Payload{Fields: q.Context}).String(); got != "controller_epoch=7 brokers=1=kafka1:9092,2=kafka2:9092" {
		t.Errorf("context %q", got)
	}
	// Version 1, and a controller that does not parse: raw data kept.
	if got := decodeKafkaController(locktest.KafkaControllerData(1, 3, 5)).String(); got != "brokerid=3 version=1 timestamp=1970-01-01T00:00:00.005Z" {
		t.Errorf("v1 payload %q", got)
	}
	if p := decodeKafkaController([]byte("garbage")); p.Err == "" {
		t.Errorf("garbage parsed: %v", p)
	}
	// No controller: no leader.
	q = Decode(dir("/", withData(kid("controller_epoch", 0), []byte("7")), kid("brokers", 0)), DecodeOptions{Kind: KindKafkaController})
	if len(q.Participants) != 0 || len(q.Problems) != 1 || q.Problems[0].Kind != ProblemNoLeader || q.Problems[0].Node != "/controller" {
		t.Errorf("no controller: %+v", q)
	}
}

func TestDecodeHadoopHA(t *testing.T) {
	nn1, nn2 := locktest.ActiveNodeInfo("ns1", "nn1", "host1", 8020, 8019), locktest.ActiveNodeInfo("ns1", "nn2", "host2", 8020, 8019)
	cases := []struct {
		name     string
		kids     []Child
		holder   string
		problems string
	}{
		{"settled", []Child{withData(kid(HadoopLockNode, 0x201), nn1), withData(kid(HadoopBreadcrumbNode, 0), nn1)},
			"nameservice=ns1 namenode=nn1 host=host1 port=8020 zkfc_port=8019", ""},
		{"failover unfinished", []Child{withData(kid(HadoopLockNode, 0x202), nn2), withData(kid(HadoopBreadcrumbNode, 0), nn1)},
			"nameservice=ns1 namenode=nn2 host=host2 port=8020 zkfc_port=8019", "failover-unfinished"},
		{"no active, breadcrumb left", []Child{withData(kid(HadoopBreadcrumbNode, 0), nn1)}, "", "no-leader"},
		{"first election", []Child{withData(kid(HadoopLockNode, 0x201), nn1)},
			"nameservice=ns1 namenode=nn1 host=host1 port=8020 zkfc_port=8019", ""},
		{"not protobuf", []Child{withData(kid(HadoopLockNode, 0x201), []byte("hello"))}, "unparsed: not an HA ActiveNodeInfo protobuf: unsupported wire type 4", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := Decode(dir("/hadoop-ha/ns1", c.kids...), DecodeOptions{})
			if q.Kind != KindHadoopHA {
				t.Fatalf("kind %s", q.Kind)
			}
			var kinds []string
			for _, p := range q.Problems {
				kinds = append(kinds, string(p.Kind))
			}
			if got := strings.Join(kinds, ","); got != c.problems {
				t.Errorf("problems %q, want %q: %+v", got, c.problems, q.Problems)
			}
			switch {
			case c.holder == "" && len(q.Participants) != 0:
				t.Errorf("participants %+v", q.Participants)
			case c.holder != "" && (len(q.Participants) != 1 || q.Participants[0].Payload.String() != c.holder):
				t.Errorf("holder %+v, want %s", q.Participants, c.holder)
			}
		})
	}
}

func TestDecodeHBaseMaster(t *testing.T) {
	d := dir("/hbase",
		withData(kid("master", 0x301), locktest.HBaseMasterData("4242@hm1", "hm1", 16000, 1_700_000_000_000, 16010)),
		kid("backup-masters", 0), kid("rs", 0), kid("meta-region-server", 0))
	second := withData(kid("hm3,16000,1700000000002", 0x303), locktest.HBaseMasterData("99@hm3", "hm3", 16000, 1_700_000_000_002, 16010))
	first := withData(kid("hm2,16000,1700000000001", 0x302), locktest.HBaseMasterData("77@hm2", "hm2", 16000, 1_700_000_000_001, 16010))
	second.Czxid, first.Czxid = 20, 10
	d.Context = []Child{second, first}
	q := Decode(d, DecodeOptions{})
	if q.Kind != KindHBaseMaster || len(q.Participants) != 3 {
		t.Fatalf("queue %+v", q)
	}
	if got := payloadOf(t, q.Participants[0]); got != "host=hm1 port=16000 start_code=2023-11-14T22:13:20.000Z info_port=16010 process=4242@hm1" {
		t.Errorf("master payload %q", got)
	}
	for i, want := range []string{"/hbase/backup-masters/hm2,16000,1700000000001", "/hbase/backup-masters/hm3,16000,1700000000002"} {
		p := q.Participants[i+1]
		if p.Node != want || p.State != StateWaiting || p.Watches != "/hbase/master" || p.WatchKind != WatchExists {
			t.Errorf("backup %d: %+v", i, p)
		}
	}
	// Data written without RecoverableZooKeeper's metadata, and data
	// that is no protobuf.
	plain := locktest.HBaseMasterData("x", "hm9", 1, 2, 3)[5+1+8:]
	if got := decodeHBaseMaster(plain).Get("host"); got != "hm9" {
		t.Errorf("without metadata: host %q", got)
	}
	if p := decodeHBaseMaster([]byte("hm1:16000")); p.Err == "" {
		t.Errorf("text parsed: %v", p)
	}
}

func TestDecodeSolrOverseer(t *testing.T) {
	s1, s2, s3 := int64(72057594037927937), int64(72057594037927938), int64(72057594037927939)
	n1, n2, n3 := locktest.SolrName(s1, "10.0.0.1:8983_solr", 1), locktest.SolrName(s2, "10.0.0.2:8983_solr", 2), locktest.SolrName(s3, "10.0.0.3:8983_solr", 10)
	d := dir("/overseer_elect/election", kid(n3, s3), kid(n1, s1), kid(n2, s2))
	d.Context = []Child{{Name: "leader", Path: "/overseer_elect/leader", Data: []byte(`{"id":"` + n1 + `"}`), Owner: s1}}
	q := Decode(d, DecodeOptions{})
	if q.Kind != KindSolrOverseer || len(q.Problems) != 0 {
		t.Fatalf("queue %+v", q)
	}
	want := []string{n1 + " holding", n2 + " waiting -> " + n1, n3 + " waiting -> " + n2}
	for i, p := range q.Participants {
		got := p.Name + " " + string(p.State)
		if p.Watches != "" {
			got += " -> " + p.Watches[len("/overseer_elect/election/"):]
		}
		if got != want[i] || (p.Watches != "" && p.WatchKind != WatchData) {
			t.Errorf("%d: %s (%s), want %s", i, got, p.WatchKind, want[i])
		}
	}
	if got := q.Participants[0].Payload.String(); got != "node_name=10.0.0.1:8983_solr session=0x100000000000001" {
		t.Errorf("payload %q", got)
	}
	// The leader node names another: the election has not finished.
	d.Context[0].Data = []byte(`{"id":"` + n2 + `"}`)
	if q := Decode(d, DecodeOptions{}); len(q.Problems) != 1 || q.Problems[0].Kind != ProblemFailoverUnfinished {
		t.Errorf("leader mismatch: %+v", q.Problems)
	}
	// joinAtHead: a non-sequential node reusing the second's sequence.
	head := locktest.SolrName(s3, "10.0.0.3:8983_solr", 2)
	if q := Decode(dir("/e/election", kid(n1, s1), kid(n2, s2), kid(head, s3)), DecodeOptions{}); len(q.Problems) != 1 || q.Problems[0].Kind != ProblemSequenceTie {
		t.Errorf("joinAtHead tie: %+v", q.Problems)
	}
}

func TestFamilyNamesDoNotMatchOtherDirectories(t *testing.T) {
	for _, names := range [][]string{{"master"}, {"controller"}, {"brokers", "config"}, {"election", "leader"}, {"locks", "leases"}} {
		if IsLockDir(names) {
			t.Errorf("%v is read as a lock directory", names)
		}
	}
	for _, names := range [][]string{{"controller", "controller_epoch", "brokers"}, {HadoopBreadcrumbNode}, {"master", "backup-masters", "rs"}, {locktest.SolrName(1, "h:1_solr", 0)}} {
		if !IsLockDir(names) {
			t.Errorf("%v is not read as an election", names)
		}
	}
}

// FuzzElectionPayloads: the payload decoders never panic, whatever the
// bytes.
func FuzzElectionPayloads(f *testing.F) {
	f.Add(locktest.KafkaControllerData(2, 1, 5))
	f.Add(locktest.ActiveNodeInfo("ns", "nn", "h", 1, 2))
	f.Add(locktest.HBaseMasterData("p", "h", 1, 2, 3))
	f.Add([]byte{0xFF, 0, 0, 0, 9})
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeKafkaController(b)
		decodeKafkaBroker("1", b)
		decodeActiveNodeInfo(b)
		decodeHBaseMaster(b)
	})
}

// TestFamilyBetweenElections: a system's directory is recognised while
// its leader node is missing (Kafka by its epoch next to its brokers,
// HBase by its backup masters).
func TestFamilyBetweenElections(t *testing.T) {
	for names, want := range map[string]Kind{
		"controller_epoch,brokers,config": KindKafkaController,
		"backup-masters,rs,table":         KindHBaseMaster,
		"controller_epoch":                "",
		"brokers,config":                  "",
	} {
		if got := FamilyOf(strings.Split(names, ",")); got != want {
			t.Errorf("familyOf(%s) = %q, want %q", names, got, want)
		}
	}
}
