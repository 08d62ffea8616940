package locktest

import (
	"encoding/binary"
	"fmt"
)

// The systems' payloads, written as each system writes them (from their
// sources: kafka.zk.ZkData, HAZKInfo.proto with ActiveStandbyElector,
// HBase's MasterAddressTracker with ZKMetadata and ProtobufMagic, Solr's
// LeaderElector and OverseerElectionContext). Shared with the interop
// tests, which build the same layouts on a real server.

// KafkaControllerData is ControllerZNode.encode: version 1 (Kafka < 3.4)
// or 2 (with kraftControllerEpoch, -1 in ZooKeeper mode).
func KafkaControllerData(version, broker int, tsMillis int64) []byte {
	if version == 1 {
		return []byte(fmt.Sprintf(`{"version":1,"brokerid":%d,"timestamp":"%d"}`, broker, tsMillis))
	}
	return []byte(fmt.Sprintf(`{"version":2,"brokerid":%d,"timestamp":"%d","kraftControllerEpoch":-1}`, broker, tsMillis))
}

// KafkaBrokerData is BrokerIdZNode.encode, version 5.
func KafkaBrokerData(host string, port int) []byte {
	return []byte(fmt.Sprintf(`{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://%s:%d"],"jmx_port":-1,"port":%d,"host":"%s","version":5,"timestamp":"1700000000000"}`, host, port, port, host))
}

// PBLen and [PBVarint] append one protobuf field.
func PBLen(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// PBVarint appends one varint field (see [PBLen]).
func PBVarint(b []byte, field int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3)
	return binary.AppendUvarint(b, v)
}

// ActiveNodeInfo is HAZKInfo.proto's ActiveNodeInfo as protobuf writes it.
func ActiveNodeInfo(ns, nn, host string, port, zkfcPort int) []byte {
	var b []byte
	b = PBLen(b, 1, []byte(ns))
	b = PBLen(b, 2, []byte(nn))
	b = PBLen(b, 3, []byte(host))
	b = PBVarint(b, 4, uint64(port))
	return PBVarint(b, 5, uint64(zkfcPort))
}

// HBaseMasterData is MasterAddressTracker.toByteArray behind
// RecoverableZooKeeper's metadata (process id and 8 salt bytes).
func HBaseMasterData(process, host string, port int, startCode int64, infoPort int) []byte {
	var sn []byte
	sn = PBLen(sn, 1, []byte(host))
	sn = PBVarint(sn, 2, uint64(port))
	sn = PBVarint(sn, 3, uint64(startCode))
	var m []byte
	m = PBLen(m, 1, sn)
	m = PBVarint(m, 2, 0)
	m = PBVarint(m, 3, uint64(infoPort))
	data := append([]byte("PBUF"), m...)
	id := append([]byte(process), 1, 2, 3, 4, 5, 6, 7, 8)
	meta := []byte{0xFF}
	meta = binary.BigEndian.AppendUint32(meta, uint32(len(id)))
	meta = append(meta, id...)
	return append(meta, data...)
}
