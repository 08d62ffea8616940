package lockops

// HDFS (and YARN) HA, org.apache.hadoop.ha.ActiveStandbyElector: in
// <ha.zookeeper.parent-znode>/<nameservice> (default /hadoop-ha/<ns>) each
// failover controller tries to create the EPHEMERAL ActiveStandbyElectorLock
// holding its NameNode's HAZKInfo.proto ActiveNodeInfo (nameserviceId=1,
// namenodeId=2, hostname=3, port=4, zkfcPort=5); the others watch it with
// exists (a deliberate herd of two or three). The winner fences the
// NameNode named in the PERSISTENT ActiveBreadCrumb (the last active), then
// writes its own info there; a graceful exit deletes the breadcrumb.

import (
	"bytes"
	"fmt"
)

// HDFS's node names.
const (
	HadoopLockNode       = "ActiveStandbyElectorLock"
	HadoopBreadcrumbNode = "ActiveBreadCrumb"
)

// Hadoop is HDFS/YARN HA's ActiveStandbyElector (hadoop.ha).
var Hadoop = &Library{Name: "hadoop", Title: "Hadoop HA"}

// decodeHadoop reads d, an elector's working directory (<parent>/<ns>).
func decodeHadoop(d Dir) Queue {
	var q Queue
	lock, crumb := childNamed(d.Children, HadoopLockNode), childNamed(d.Children, HadoopBreadcrumbNode)
	var last *Payload
	if crumb != nil {
		last = decodeActiveNodeInfo(crumb.Data)
		q.Context = append(q.Context, text("breadcrumb", describeNameNode(last, crumb.Data)))
	}
	switch {
	case lock == nil && crumb != nil:
		q.Problems = append(q.Problems, noLeader(JoinPath(d.Path, HadoopLockNode), "active NameNode",
			fmt.Sprintf("the last active (%s) left no clean release: the next failover controller to win fences it first", describeNameNode(last, crumb.Data))))
		return q
	case lock == nil:
		q.Problems = append(q.Problems, noLeader(JoinPath(d.Path, HadoopLockNode), "active NameNode",
			"no failover controller holds the lock: every NameNode is standby (or its controller is down)"))
		return q
	}
	lead := leaderParticipant(d.Path, lock, decodeActiveNodeInfo)
	q.Participants = []Participant{lead}
	if crumb != nil && !bytes.Equal(crumb.Data, lock.Data) {
		q.Problems = append(q.Problems, Problem{Kind: ProblemFailoverUnfinished, Node: JoinPath(d.Path, HadoopBreadcrumbNode),
			Detail: fmt.Sprintf("the breadcrumb names %s but the lock is held for %s: a failover that did not finish (the new active has not fenced the old one and written the breadcrumb); check both NameNodes' HA state", describeNameNode(last, crumb.Data), describeNameNode(lead.Payload, lock.Data))})
	}
	return q
}

// decodeActiveNodeInfo decodes HAZKInfo.proto's ActiveNodeInfo.
func decodeActiveNodeInfo(data []byte) *Payload {
	f, err := readProto(data)
	if err != nil {
		return &Payload{Err: "not an HA ActiveNodeInfo protobuf: " + err.Error()}
	}
	host, ok := f[3]
	if !ok || !host.isLen {
		return &Payload{Err: "not an HA ActiveNodeInfo protobuf: no hostname (field 3)"}
	}
	p := &Payload{}
	for _, k := range []struct {
		n    int
		name string
	}{{1, "nameservice"}, {2, "namenode"}, {3, "host"}} {
		if v, ok := f[k.n]; ok && v.isLen {
			p.Fields = append(p.Fields, text(k.name, string(v.bytes)))
		}
	}
	if v, ok := f[4]; ok && !v.isLen {
		p.Fields = append(p.Fields, num("port", int64(int32(v.varint))))
	}
	if v, ok := f[5]; ok && !v.isLen {
		p.Fields = append(p.Fields, num("zkfc_port", int64(int32(v.varint))))
	}
	return p
}

// describeNameNode is "nn1 (host:8020)", or the raw data when it did not
// parse.
func describeNameNode(p *Payload, raw []byte) string {
	if p == nil || p.Err != "" {
		return DescribeDataWith(raw, 40, nil)
	}
	return fmt.Sprintf("%s (%s:%s)", p.Get("namenode"), p.Get("host"), p.Get("port"))
}
