package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
)

// BenchmarkWriteJSON10k writes the JSON report of a decoded 10,000-contender
// kazoo lock (data and creation times as a real one has them).
func BenchmarkWriteJSON10k(b *testing.B) {
	const n = 10000
	d := lockops.Dir{Path: "/bench"}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%032x__lock__%010d", i, i)
		d.Children = append(d.Children, lockops.Child{Name: name, Path: "/bench/" + name, Owner: int64(i + 1),
			Data: []byte(fmt.Sprintf("worker-%d", i)), Ctime: 1_700_000_000_000 + int64(i)/4})
	}
	qs := []lockops.Queue{lockops.Decode(d, lockops.DecodeOptions{})}
	diagnose.Diagnose(qs, diagnose.Options{})
	for b.Loop() {
		if err := WriteJSON(io.Discard, []string{"127.0.0.1:2181"}, qs); err != nil {
			b.Fatal(err)
		}
	}
}
