package scan

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// BenchmarkTreePrint runs `zkscope tree ROOT` as a whole process (its
// output read into memory) on the 70,151-znode tree of BenchmarkScan70k
// (70k) and on the 1,000,001 znodes of BenchmarkDoctor1M (1M). Metrics:
// wall time and peak RSS. ZKSCOPE_PEER_BIN names another build of
// zkscope (an older one) to run alternately with this one, against the
// same server: its figures are the peer-* metrics.
//
//	go test ./lockops -run '^$' -bench 'TreePrint/70k' -benchtime 3x
//	go test ./lockops -run '^$' -bench 'TreePrint/1M' -benchtime 2x -timeout 30m
func BenchmarkTreePrint(b *testing.B) {
	b.Run("70k", func(b *testing.B) {
		benchTreePrint(b, zktest.Options{Extra: []string{"forceSync=no"}}, "/scan", 50, 1000)
	})
	b.Run("1M", func(b *testing.B) {
		benchTreePrint(b, zktest.Options{Extra: []string{"forceSync=no", "snapCount=2000000"}, JVMFlags: []string{"-Xmx3g"}}, "/big", 100, 9597)
	})
}

func benchTreePrint(b *testing.B, o zktest.Options, root string, apps, configs int) {
	cl := zktest.StartStandalone(b, o)
	conn, _, err := zk.Connect(cl.Addrs(), 60*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	fillScanTree(b, conn, root, apps, 100, 3, configs)
	bins := []string{locktest.ZkscopeBinary(b)}
	if peer := os.Getenv("ZKSCOPE_PEER_BIN"); peer != "" {
		bins = append(bins, peer)
	}
	var stdout bytes.Buffer
	stdout.Grow(64 << 20)
	runs := make([][]processRun, len(bins))
	for i := -1; i < b.N; i++ { // -1: warm-up
		for j, bin := range bins {
			r := runProcess(b, exec.Command(bin, "-s", cl.ConnectString(), "tree", root), &stdout, "c00999")
			if i >= 0 {
				runs[j] = append(runs[j], r)
			}
		}
	}
	b.StopTimer()
	for j, prefix := range []string{"", "peer-"}[:len(bins)] {
		r := mean(runs[j])
		b.ReportMetric(float64(r.wall)/1e6, prefix+"tree-ms")
		b.ReportMetric(float64(r.rss)/(1<<20), prefix+"tree-MB")
	}
}
