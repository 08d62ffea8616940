package lockops

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// pbField is one field of a protobuf message read by [readProto]: a
// varint or a length-delimited value (string, bytes, nested message).
type pbField struct {
	varint uint64
	bytes  []byte
	isLen  bool
}

// readProto reads the fields of one protobuf message (wire format: tag
// varints, varint and length-delimited values; 32- and 64-bit fixed
// values are skipped). The last value of a repeated field wins.
func readProto(b []byte) (map[int]pbField, error) {
	out := map[int]pbField{}
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 || tag>>3 == 0 {
			return nil, errors.New("not a protobuf message (bad field tag)")
		}
		b = b[n:]
		field := int(tag >> 3)
		switch tag & 7 {
		case 0:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, errors.New("truncated varint")
			}
			out[field], b = pbField{varint: v}, b[n:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return nil, errors.New("truncated length-delimited field")
			}
			out[field], b = pbField{bytes: b[n : n+int(l)], isLen: true}, b[n+int(l):]
		case 1:
			if len(b) < 8 {
				return nil, errors.New("truncated fixed64")
			}
			b = b[8:]
		case 5:
			if len(b) < 4 {
				return nil, errors.New("truncated fixed32")
			}
			b = b[4:]
		default:
			return nil, fmt.Errorf("unsupported wire type %d", tag&7)
		}
	}
	return out, nil
}
