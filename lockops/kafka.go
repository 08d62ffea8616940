package lockops

// Kafka's controller election (ZooKeeper mode, kafka.zk.ZkData and
// KafkaZkClient): under the cluster's chroot, every broker tries to create
// the EPHEMERAL /controller with {"version":1|2,"brokerid":N,
// "timestamp":"<ms>"} (version 2 adds "kraftControllerEpoch"); the winner
// bumps the PERSISTENT /controller_epoch (decimal text). The others watch
// /controller with exists and race again when it goes: they own no node,
// so they show only in the servers' watch lists. Brokers register as
// EPHEMERAL /brokers/ids/<id> with JSON {"host","port","endpoints",…}.

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kafka's node names.
const (
	KafkaControllerNode = "controller"
	KafkaEpochNode      = "controller_epoch"
	kafkaBrokerIDs      = "brokers/ids"
)

// Kafka is Kafka's controller election (kafka.controller).
var Kafka = &Library{Name: "kafka", Title: "Kafka"}

// decodeKafka reads d, a Kafka cluster's root (its chroot), with the
// broker registrations in d.Context.
func decodeKafka(d Dir) Queue {
	q := Queue{labels: map[int64]*Payload{}}
	if e := childNamed(d.Children, KafkaEpochNode); e != nil {
		q.Context = append(q.Context, Field{Key: "controller_epoch", Value: strings.TrimSpace(string(e.Data)), Num: isDecimal(strings.TrimSpace(string(e.Data)))})
	}
	var ids []string
	for i := range d.Context {
		b := &d.Context[i]
		reg := decodeKafkaBroker(b.Name, b.Data)
		q.labels[b.Owner] = reg
		ids = append(ids, b.Name+"="+reg.Get("host")+":"+reg.Get("port"))
	}
	slices.Sort(ids)
	if len(ids) > 0 {
		q.Context = append(q.Context, text("brokers", strings.Join(ids, ",")))
	}
	c := childNamed(d.Children, KafkaControllerNode)
	if c == nil {
		q.Problems = append(q.Problems, noLeader(JoinPath(d.Path, KafkaControllerNode), "Kafka controller",
			"the brokers elect one as soon as one creates "+KafkaControllerNode+"; if none does, no broker is up or none can reach ZooKeeper"))
		return q
	}
	lead := leaderParticipant(d.Path, c, decodeKafkaController)
	if reg := q.labels[c.Owner]; reg != nil && lead.Payload.Err == "" {
		lead.Payload.Fields = append(lead.Payload.Fields, text("host", reg.Get("host")+":"+reg.Get("port")))
	}
	q.Participants = []Participant{lead}
	return q
}

// decodeKafkaController decodes /controller's JSON.
func decodeKafkaController(data []byte) *Payload {
	var v struct {
		Version   *int            `json:"version"`
		BrokerID  *int64          `json:"brokerid"`
		Timestamp json.RawMessage `json:"timestamp"`
		KRaft     *int64          `json:"kraftControllerEpoch"`
	}
	if err := json.Unmarshal(data, &v); err != nil || v.BrokerID == nil {
		return &Payload{Err: "not Kafka's controller JSON ({\"version\",\"brokerid\",\"timestamp\"})"}
	}
	p := &Payload{Fields: []Field{num("brokerid", *v.BrokerID)}}
	if v.Version != nil {
		p.Fields = append(p.Fields, num("version", int64(*v.Version)))
	}
	if ts := strings.Trim(string(v.Timestamp), `"`); ts != "" {
		p.Fields = append(p.Fields, text("timestamp", msTime(ts)))
	}
	if v.KRaft != nil && *v.KRaft >= 0 {
		p.Fields = append(p.Fields, num("kraftControllerEpoch", *v.KRaft))
	}
	return p
}

// decodeKafkaBroker decodes a /brokers/ids/<id> registration.
func decodeKafkaBroker(id string, data []byte) *Payload {
	var v struct {
		Host      string   `json:"host"`
		Port      int64    `json:"port"`
		Endpoints []string `json:"endpoints"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return &Payload{Err: "not a Kafka broker registration"}
	}
	p := &Payload{Fields: []Field{text("broker", id), text("host", v.Host), num("port", v.Port)}}
	if len(v.Endpoints) > 0 {
		p.Fields = append(p.Fields, text("endpoints", strings.Join(v.Endpoints, ",")))
	}
	if v.Host == "" && len(v.Endpoints) > 0 {
		// no PLAINTEXT listener: Kafka writes host null and port -1
		p.Fields[1].Value = v.Endpoints[0]
	}
	return p
}

// msTime is a Kafka timestamp (milliseconds since the epoch, as text) as
// an RFC 3339 time, or the text as it is when it is no number.
func msTime(ts string) string {
	ms, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ts
	}
	return formatMillis(ms)
}

func isDecimal(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// KafkaBrokersOf is where a Kafka root's broker registrations are.
func KafkaBrokersOf(root string) string { return JoinPath(root, kafkaBrokerIDs) }

// formatMillis is ms since the epoch in the report's time format.
func formatMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}
