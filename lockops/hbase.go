package lockops

// HBase's active master (MasterAddressTracker, ActiveMasterManager): in
// zookeeper.znode.parent (default /hbase) the active master holds the
// EPHEMERAL master node; each backup master registers as the EPHEMERAL
// backup-masters/<host>,<port>,<startcode> and watches master with exists.
// Both carry RecoverableZooKeeper's metadata (0xFF, a 4-byte big-endian id
// length, the process id "pid@host" and 8 random bytes) then ProtobufMagic
// "PBUF" and ZooKeeperProtos.Master: master=1 (ServerName: host_name=1,
// port=2, start_code=3), rpc_version=2, info_port=3.

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
)

// HBase's node names.
const (
	HBaseMasterNode = "master"
	HBaseBackupsDir = "backup-masters"
)

// HBase is HBase's active master election (hbase.master).
var HBase = &Library{Name: "hbase", Title: "HBase"}

// decodeHBase reads d, HBase's parent znode, with the backup masters'
// nodes in d.Context: the active master holds, each backup master waits
// on it with exists, oldest first.
func decodeHBase(d Dir) Queue {
	var q Queue
	master := JoinPath(d.Path, HBaseMasterNode)
	if c := childNamed(d.Children, HBaseMasterNode); c != nil {
		q.Participants = append(q.Participants, leaderParticipant(d.Path, c, decodeHBaseMaster))
	} else {
		q.Problems = append(q.Problems, noLeader(master, "active HBase master",
			"a backup master takes over as soon as it creates "+HBaseMasterNode+"; with no backup master registered, none will"))
	}
	backups := slices.Clone(d.Context)
	slices.SortFunc(backups, func(a, b Child) int {
		return cmp.Or(cmp.Compare(a.Czxid, b.Czxid), strings.Compare(a.Name, b.Name))
	})
	for i := range backups {
		c := &backups[i]
		p := participant(JoinPath(d.Path, HBaseBackupsDir), c, ModeLeader, "")
		p.State, p.Watches, p.WatchKind = StateWaiting, master, WatchExists
		p.Payload = decodeHBaseMaster(c.Data)
		q.Participants = append(q.Participants, p)
	}
	NumberPositions(q.Participants)
	return q
}

// decodeHBaseMaster decodes a master or backup-master node's data.
func decodeHBaseMaster(data []byte) *Payload {
	id, rest, err := hbaseMeta(data)
	if err != nil {
		return &Payload{Err: err.Error()}
	}
	pb, ok := bytes.CutPrefix(rest, []byte("PBUF"))
	if !ok {
		return &Payload{Err: "no PBUF magic: not HBase's protobuf data"}
	}
	m, err := readProto(pb)
	if err != nil {
		return &Payload{Err: "Master protobuf: " + err.Error()}
	}
	sn, ok := m[1]
	if !ok || !sn.isLen {
		return &Payload{Err: "Master protobuf: no server name (field 1)"}
	}
	s, err := readProto(sn.bytes)
	if err != nil || !s[1].isLen {
		return &Payload{Err: "ServerName protobuf: no host_name"}
	}
	p := &Payload{Fields: []Field{text("host", string(s[1].bytes)), num("port", int64(s[2].varint))}}
	if v, ok := s[3]; ok {
		p.Fields = append(p.Fields, text("start_code", formatMillis(int64(v.varint))))
	}
	if v, ok := m[3]; ok && !v.isLen {
		p.Fields = append(p.Fields, num("info_port", int64(v.varint)))
	}
	if id != "" {
		p.Fields = append(p.Fields, text("process", id))
	}
	return p
}

// hbaseMeta strips RecoverableZooKeeper's metadata: the process id (its
// 8 random bytes dropped) and the data after it. Data without the 0xFF
// magic has none.
func hbaseMeta(data []byte) (id string, rest []byte, err error) {
	if len(data) == 0 || data[0] != 0xFF {
		return "", data, nil
	}
	if len(data) < 5 {
		return "", nil, errors.New("truncated metadata header")
	}
	n := binary.BigEndian.Uint32(data[1:5])
	if uint64(n) > uint64(len(data)-5) {
		return "", nil, errors.New("metadata id longer than the data")
	}
	raw := data[5 : 5+n]
	if len(raw) >= 8 {
		raw = raw[:len(raw)-8] // the salt
	}
	return string(raw), data[5+n:], nil
}
