package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/printable"
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

// BenchmarkWriteJSONChanges writes one `locks --watch --json --changes`
// frame of two Curator locks of three contenders (a frame of the 70k
// watch benchmark's churn), through printable.JSON as the command does:
// a ChangesWriter reused frame to frame (reused), and WriteJSONChanges
// anew each frame (each).
//
//	go test ./lockops/report -run '^$' -bench WriteJSONChanges -benchmem
func BenchmarkWriteJSONChanges(b *testing.B) {
	var qs []lockops.Queue
	for l := range 2 {
		d := lockops.Dir{Path: fmt.Sprintf("/scan/app-%02d/locks/lock-%03d", l, l)}
		for i := range 3 {
			name := fmt.Sprintf("_c_%08x-0000-4000-8000-%012x-lock-%010d", l, i, i)
			d.Children = append(d.Children, lockops.Child{Name: name, Path: d.Path + "/" + name, Owner: int64(i + 1),
				Data: []byte("10.0.0.1 worker"), Ctime: 1_700_000_000_000 + int64(i)})
		}
		qs = append(qs, lockops.Decode(d, lockops.DecodeOptions{}))
	}
	diagnose.Diagnose(qs, diagnose.Options{})
	v := diagnose.Verification{Asked: true, ClientsKnown: true, WatchesKnown: true}
	servers, gone := []string{"127.0.0.1:2181"}, []string{"/scan/app-09/locks/lock-009"}
	b.Run("reused", func(b *testing.B) {
		var c ChangesWriter
		out := printable.JSON(io.Discard)
		for b.Loop() {
			if err := c.Write(out, servers, qs, gone, &v, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("each", func(b *testing.B) {
		for b.Loop() {
			if err := WriteJSONChanges(printable.JSON(io.Discard), servers, qs, gone, &v, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
