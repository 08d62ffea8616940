package locktest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// BuildElections lays out, below base, a Kafka cluster (controller broker
// 1, brokers 2 and 3 watching), HDFS HA whose breadcrumb still names the
// old active, HBase with a backup master, and Solr's overseer election of
// three. It returns the sessions by name.
func BuildElections(t *testing.T, addrs []string, base string) map[string]*zkview.Client {
	admin := NewClient(t, addrs)
	s := map[string]*zkview.Client{}
	for _, n := range []string{"broker1", "broker2", "broker3", "zkfc1", "zkfc2", "hm1", "hm2", "solr1", "solr2", "solr3"} {
		s[n] = NewClient(t, addrs)
	}
	a := admin.Conn()
	zktest.MakePath(t, a, base)
	for _, p := range []string{base + "/kafka", base + "/kafka/brokers", base + "/kafka/brokers/ids",
		base + "/hadoop-ha", base + "/hadoop-ha/ns1", base + "/hbase", base + "/hbase/backup-masters", base + "/hbase/rs",
		base + "/solr", base + "/solr/overseer_elect", base + "/solr/overseer_elect/election"} {
		MustCreate(t, a, p, nil, zk.FlagPersistent)
	}
	// Kafka: brokers register, broker 1 wins /controller and bumps the
	// epoch; every broker watches /controller with exists.
	k := base + "/kafka"
	for i, n := range []string{"broker1", "broker2", "broker3"} {
		MustCreate(t, s[n].Conn(), fmt.Sprintf("%s/brokers/ids/%d", k, i+1), KafkaBrokerData(fmt.Sprintf("kafka%d", i+1), 9092), zk.FlagEphemeral)
	}
	MustCreate(t, s["broker1"].Conn(), k+"/controller", KafkaControllerData(2, 1, time.Now().UnixMilli()), zk.FlagEphemeral)
	MustCreate(t, a, k+"/controller_epoch", []byte("7"), zk.FlagPersistent)
	for _, n := range []string{"broker1", "broker2", "broker3"} {
		ExistsWatch(t, s[n].Conn(), k+"/controller")
	}
	// HDFS: nn1 was active (its breadcrumb), zkfc1 now holds the lock for
	// nn2 and has not fenced nn1 yet; zkfc2 watches the lock.
	h := base + "/hadoop-ha/ns1"
	MustCreate(t, a, h+"/ActiveBreadCrumb", ActiveNodeInfo("ns1", "nn1", "nn1.example", 8020, 8019), zk.FlagPersistent)
	MustCreate(t, s["zkfc1"].Conn(), h+"/ActiveStandbyElectorLock", ActiveNodeInfo("ns1", "nn2", "nn2.example", 8020, 8019), zk.FlagEphemeral)
	ExistsWatch(t, s["zkfc2"].Conn(), h+"/ActiveStandbyElectorLock")
	// HBase: hm1 active, hm2 a backup watching master.
	hb := base + "/hbase"
	MustCreate(t, s["hm1"].Conn(), hb+"/master", HBaseMasterData("4242@hm1", "hm1", 16000, 1_700_000_000_000, 16010), zk.FlagEphemeral)
	MustCreate(t, s["hm2"].Conn(), hb+"/backup-masters/hm2,16000,1700000000001", HBaseMasterData("77@hm2", "hm2", 16000, 1_700_000_000_001, 16010), zk.FlagEphemeral)
	ExistsWatch(t, s["hm2"].Conn(), hb+"/master")
	// Solr: three nodes join the overseer election in turn; the first
	// writes the leader node, each other one getData-watches the one before.
	e := base + "/solr/overseer_elect/election"
	var names []string
	for i, n := range []string{"solr1", "solr2", "solr3"} {
		conn := s[n].Conn()
		got := MustCreate(t, conn, fmt.Sprintf("%s/%d-10.0.0.%d:8983_solr-n_", e, conn.SessionID(), i+1), nil, zk.FlagEphemeral|zk.FlagSequence)
		names = append(names, got[strings.LastIndexByte(got, '/')+1:])
		if i > 0 {
			if _, _, _, err := conn.GetW(e + "/" + names[i-1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	MustCreate(t, s["solr1"].Conn(), base+"/solr/overseer_elect/leader", []byte(`{"id":"`+names[0]+`"}`), zk.FlagEphemeral)
	return s
}
