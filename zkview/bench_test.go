package zkview

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

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
	mkdirs(b, c.Conn(), root)
	ops := make([]any, 0, 1000)
	flush := func() {
		if len(ops) == 0 {
			return
		}
		if _, err := c.Conn().Multi(ops...); err != nil {
			b.Fatalf("create children: %v", err)
		}
		ops = ops[:0]
	}
	for i := 0; i < n; i++ {
		ops = append(ops, &zk.CreateRequest{Path: fmt.Sprintf("%s/child-%05d", root, i),
			Data: []byte(fmt.Sprintf("payload %05d", i)), Acl: zk.WorldACL(zk.PermAll)})
		if len(ops) == cap(ops) {
			flush()
		}
	}
	flush()
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
