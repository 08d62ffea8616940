package locktest

import "fmt"

// Names as the libraries make them. The UUIDs are chosen so that sorting by
// full name disagrees with sorting by sequence.
const (
	UUIDA = "ffffffff-0000-4000-8000-000000000001"
	UUIDB = "00000000-0000-4000-8000-000000000002"
	UUIDC = "88888888-0000-4000-8000-000000000003"
	UUIDD = "44444444-0000-4000-8000-000000000004"
	HexA  = "ffffffffffffffffffffffffffffff01"
	HexB  = "00000000000000000000000000000002"
	HexC  = "88888888888888888888888888888803"
	HexD  = "44444444444444444444444444444404"
)

// CuratorName is a Curator protected node name: _c_<uuid>-<marker><seq>.
func CuratorName(uuid, marker, seq string) string { return "_c_" + uuid + "-" + marker + seq }

// SolrName is LeaderElector's election node name.
func SolrName(session int64, node string, seq int) string {
	return fmt.Sprintf("%d-%s-n_%010d", session, node, seq)
}
