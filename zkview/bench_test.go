package zkview

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// BenchmarkBulkRead10k reads data and stat of 10,000 small children of one
// node on the real server, with multi-read and with 256 pipelined Gets, in
// one run:
//
//	go test ./zkview -run '^$' -bench BulkRead -benchtime 5x
func BenchmarkBulkRead10k(b *testing.B) {
	const n = 10000
	cl := zktest.Shared(b)
	root := zktest.Path(b)
	c := dial(b, Config{Servers: cl.Addrs()})
	zktest.FillChildren(b, c.Conn(), root, n,
		func(i int) string { return fmt.Sprintf("child-%05d", i) },
		func(i int) []byte { return []byte(fmt.Sprintf("payload %05d", i)) }, 0)
	kids, _, err := c.Children(root)
	if err != nil || len(kids) != n {
		b.Fatalf("children: %d, %v", len(kids), err)
	}
	paths := make([]string, n)
	for i, k := range kids {
		paths[i] = Join(root, k)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, bc := range []struct {
		name string
		read func(context.Context, []string) ([]Node, error)
	}{
		{"multiread", c.getManyMulti},
		{"pipelined256", c.getManyPipelined},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if _, err := bc.read(ctx, paths[:100]); err != nil { // warm: sidecar open
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				nodes, err := bc.read(ctx, paths)
				if err != nil {
					b.Fatal(err)
				}
				if len(nodes) != n || nodes[n-1].Err != nil {
					b.Fatalf("%d nodes, last %+v", len(nodes), nodes[n-1])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/read")
		})
	}
}
