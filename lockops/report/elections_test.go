package report

import (
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
)

// kid is a child owned by session (0: persistent).
func kid(name string, session int64) lockops.Child {
	return lockops.Child{Name: name, Owner: session, Ctime: 1_700_000_000_000}
}

func dir(p string, kids ...lockops.Child) lockops.Dir { return lockops.Dir{Path: p, Children: kids} }

func withData(c lockops.Child, data []byte) lockops.Child { c.Data = data; return c }

// electionQueues are the systems' elections for the JSON golden case
// "elections": Kafka's controller with two brokers waiting in the
// servers' watch lists, HDFS with a stale breadcrumb, HBase with a
// backup master, Solr's overseer queue, and a plain ephemeral lock with
// a herd of three.
func electionQueues() []lockops.Queue {
	at := func(d lockops.Dir, ms int64) lockops.Dir {
		for i := range d.Children {
			d.Children[i].Ctime = ms + int64(i)*1001
			d.Children[i].Czxid = int64(100 + i)
		}
		for i := range d.Context {
			d.Context[i].Ctime = ms + int64(i)*1001
			d.Context[i].Czxid = int64(200 + i)
		}
		return d
	}
	kafka := dir("/kafka",
		withData(kid("controller", 0x101), locktest.KafkaControllerData(2, 1, 1_700_000_000_123)),
		withData(kid("controller_epoch", 0), []byte("7")), kid("brokers", 0))
	kafka.Context = []lockops.Child{
		withData(kid("1", 0x101), locktest.KafkaBrokerData("kafka1", 9092)),
		withData(kid("2", 0x102), locktest.KafkaBrokerData("kafka2", 9092)),
		withData(kid("3", 0x103), locktest.KafkaBrokerData("kafka3", 9092)),
	}
	hdfs := dir("/hadoop-ha/ns1",
		withData(kid(lockops.HadoopLockNode, 0x201), locktest.ActiveNodeInfo("ns1", "nn2", "nn2.example", 8020, 8019)),
		withData(kid(lockops.HadoopBreadcrumbNode, 0), locktest.ActiveNodeInfo("ns1", "nn1", "nn1.example", 8020, 8019)))
	hbase := dir("/hbase",
		withData(kid("master", 0x301), locktest.HBaseMasterData("4242@hm1", "hm1", 16000, 1_700_000_000_000, 16010)),
		kid("backup-masters", 0))
	hbase.Context = []lockops.Child{withData(kid("hm2,16000,1700000000001", 0x302), locktest.HBaseMasterData("77@hm2", "hm2", 16000, 1_700_000_000_001, 16010))}
	n1, n2 := locktest.SolrName(72057594037927937, "10.0.0.1:8983_solr", 1), locktest.SolrName(72057594037927938, "10.0.0.2:8983_solr", 2)
	solr := dir("/overseer_elect/election", kid(n1, 0x100000000000001), kid(n2, 0x100000000000002))
	solr.Context = []lockops.Child{{Name: "leader", Path: "/overseer_elect/leader", Data: []byte(`{"id":"` + n1 + `"}`), Owner: 0x100000000000001}}
	eph := lockops.EphemeralDir("/locks/maintenance", zk.Stat{Czxid: 9, Ctime: 1_700_000_500_000, EphemeralOwner: 0x501}, []byte("alice@ops1"))
	qs := []lockops.Queue{
		lockops.Decode(at(kafka, 1_700_000_000_000), lockops.DecodeOptions{}),
		lockops.Decode(at(hdfs, 1_700_000_100_000), lockops.DecodeOptions{}),
		lockops.Decode(at(hbase, 1_700_000_200_000), lockops.DecodeOptions{}),
		lockops.Decode(at(solr, 1_700_000_300_000), lockops.DecodeOptions{}),
		lockops.Decode(eph, lockops.DecodeOptions{Kind: lockops.KindEphemeralLock}),
	}
	e := &zkview.Ensemble{Members: []zkview.Member{{
		Addr: "zk1:2181", ConnsKnown: true, WatchesKnown: true, SessionsKnown: true,
		Clients: map[int64]string{0x101: "10.0.1.1:5000", 0x102: "10.0.1.2:5000", 0x103: "10.0.1.3:5000", 0x201: "10.0.2.1:5000",
			0x202: "10.0.2.2:5000", 0x301: "10.0.3.1:5000", 0x302: "10.0.3.2:5000", 0x100000000000001: "10.0.0.1:5000",
			0x100000000000002: "10.0.0.2:5000", 0x501: "10.0.5.1:5000", 0x502: "10.0.5.2:5000", 0x503: "10.0.5.3:5000", 0x504: "10.0.5.4:5000"},
		Watches: map[string][]int64{"/kafka/controller": {0x101, 0x102, 0x103}, "/hadoop-ha/ns1/ActiveStandbyElectorLock": {0x202},
			"/hbase/master": {0x302}, "/overseer_elect/election/" + n1: {0x100000000000002}, "/locks/maintenance": {0x502, 0x503, 0x504}},
		Sessions: []int64{0x101, 0x102, 0x103, 0x201, 0x202, 0x301, 0x302, 0x100000000000001, 0x100000000000002, 0x501, 0x502, 0x503, 0x504},
	}}}
	diagnose.ApplyEnsemble(e, qs)
	diagnose.Diagnose(qs, diagnose.Options{Ensemble: e, Now: time.UnixMilli(1_700_000_600_000)})
	return qs
}
