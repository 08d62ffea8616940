package wire

import (
	"bytes"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/jute"
)

// FuzzDecodeMultiReadResponse: the multi-read decoder never panics, gives
// each result once in order, and agrees with the streaming size scan.
func FuzzDecodeMultiReadResponse(f *testing.F) {
	ok := &jute.Writer{}
	ok.Int32(OpGetData)
	ok.Bool(false)
	ok.Int32(0)
	ok.Buffer([]byte("hello"))
	ok.B = append(ok.B, make([]byte, jute.StatSize)...)
	ok.Int32(OpError)
	ok.Bool(false)
	ok.Int32(-101)
	ok.Int32(-101)
	ok.Int32(-1)
	ok.Bool(true)
	ok.Int32(-1)
	f.Add(ok.B, 2)
	f.Add(ok.B[:20], 2)
	f.Add([]byte{}, 0)
	f.Add([]byte{0, 0, 0, 4, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe}, 1)
	f.Fuzz(func(t *testing.T, b []byte, want int) {
		var res []int
		err := DecodeMultiReadResponse(b, want, func(j int, data []byte, st *zk.Stat, err error) {
			if j != len(res) || (err == nil) != (st != nil) {
				t.Fatalf("result %d after %d, stat %v, err %v", j, len(res), st, err)
			}
			res = append(res, j)
		})
		if err == nil && len(res) != want {
			t.Fatalf("%d results without error, %d asked for", len(res), want)
		}
		// The streaming size scan (used on replies too big to keep) agrees
		// with the decoder on every reply the decoder accepts.
		sizes := ScanMultiReadSizes(bytes.NewReader(b))
		if err == nil {
			sum := 9
			for _, s := range sizes {
				sum += s
			}
			if len(sizes) != len(res) || sum > len(b) {
				t.Fatalf("scan found %d ops in %d bytes, decoder %d ops in %d bytes", len(sizes), sum, len(res), len(b))
			}
		}
	})
}

// FuzzDecodeWhoAmI: any whoAmI reply decodes or fails, never a panic.
func FuzzDecodeWhoAmI(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 4, 's', 'a', 's', 'l', 0, 0, 0, 3, 'b', 'o', 'b'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, body []byte) {
		ids, err := DecodeWhoAmIResponse(body)
		if err == nil && len(ids) > len(body) {
			t.Fatalf("%d identities from %d bytes", len(ids), len(body))
		}
	})
}
