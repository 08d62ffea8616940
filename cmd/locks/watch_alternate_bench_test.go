package locks_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// BenchmarkLocksWatch70kAlternated runs BenchmarkLocksWatch70k's watch and
// churn for 40 s with this build and, when ZKSCOPE_PEER_BIN names one,
// another, alternated on one server and tree (ZKSCOPE_CHURN_ROUNDS
// rounds, default 2): the builds compared under the same load. Each run
// logs its CPU, memory and lags, and the times of the changes shown 30 ms
// or more late (the lag tail, to set beside what the process did then).
//
//	ZKSCOPE_PEER_BIN=/path/to/other/zkscope go test ./cmd/locks -run '^$' -bench LocksWatch70kAlternated -benchtime 1x -timeout 30m
func BenchmarkLocksWatch70kAlternated(b *testing.B) {
	bins := []string{zktest.Zkscope(b)}
	if peer := os.Getenv("ZKSCOPE_PEER_BIN"); peer != "" {
		bins = append(bins, peer)
	}
	rounds := 2
	if r, err := strconv.Atoi(os.Getenv("ZKSCOPE_CHURN_ROUNDS")); err == nil && r > 0 {
		rounds = r
	}
	cl := zktest.StartStandalone(b, zktest.Options{Extra: []string{"forceSync=no", "4lw.commands.whitelist=*"}})
	conn, _, err := zk.Connect(cl.Addrs(), 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	dirs, children := zktest.FillBenchTree(b, conn, "/scan")
	for r := range rounds {
		for i, bin := range bins {
			next := (r*len(bins) + i + 1) << 20 // new names each run
			b.Logf("round %d, %s: %s", r+1, bin, watchRun(b, cl, conn, bin, dirs, children, next))
		}
	}
}

// watchRun follows /scan with bin for 40 s of churn and says what it cost.
func watchRun(b *testing.B, cl *zktest.Cluster, conn *zk.Conn, bin string, dirs []string, children [][]string, next int) string {
	cmd := exec.Command(bin, "-s", cl.ConnectString(), "locks", "/scan", "--watch", "--json", "--changes")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	lines := make(chan watchLine, 4096)
	go readWatchLines(b, stdout, lines)
	first := make(chan struct{})
	m := &lagMatcher{pending: map[string]zktest.ChurnOp{}}
	var tail []string // the changes shown 30 ms or more late (the first 60): when requested, and the lag
	go func() {
		once := sync.OnceFunc(func() { close(first) })
		for l := range lines {
			once()
			m.mu.Lock()
			for node, op := range m.pending {
				if d := l.at.Sub(op.At); d >= 30*time.Millisecond && len(tail) < 60 && shows(l, node, op) {
					tail = append(tail, fmt.Sprintf("%s+%dms", op.At.Format("04:05.000"), d.Milliseconds()))
				}
			}
			m.mu.Unlock()
			m.line(l)
		}
	}()
	select {
	case <-first:
	case <-time.After(5 * time.Minute):
		b.Fatal("locks --watch printed nothing in 5 minutes")
	}
	m.mu.Lock()
	m.start = time.Now()
	m.mu.Unlock()
	stop, ops := make(chan struct{}), make(chan zktest.ChurnOp, 1<<16)
	go func() {
		for op := range ops {
			m.op(op)
		}
	}()
	wg := churnNamed(b, conn, dirs, children, next, stop, ops)
	pid := cmd.Process.Pid
	cpu0, t0 := zktest.ProcCPU(b, pid), time.Now()
	time.Sleep(40 * time.Second)
	cpu, window := zktest.ProcCPU(b, pid)-cpu0, time.Since(t0)
	rss, _ := zktest.ProcMem(b, pid)
	close(stop)
	wg.Wait()
	close(ops)
	for deadline := time.Now().Add(30 * time.Second); m.waiting() > 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	lags, missed := m.result()
	if len(lags) == 0 {
		b.Fatal("no change shown")
	}
	slices.Sort(lags)
	load, _ := os.ReadFile("/proc/loadavg")
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("%.2f%% of a core, %.0f MB; lag median %.1f ms, p99 %.1f, max %.1f; %d never shown; load %s; 30 ms or more late at %v",
		100*cpu.Seconds()/window.Seconds(), float64(rss)/(1<<20), ms(lags[len(lags)/2]), ms(lags[len(lags)*99/100]), ms(lags[len(lags)-1]),
		missed, strings.Fields(string(load))[0], tail)
}

// shows reports whether l shows op's change of node (lagMatcher's test).
func shows(l watchLine, node string, op zktest.ChurnOp) bool {
	dir := node[:strings.LastIndexByte(node, '/')]
	nodes, listed := l.locks[dir]
	switch {
	case op.Created && listed:
		return slices.Contains(nodes, node)
	case !op.Created && listed:
		return !slices.Contains(nodes, node)
	case !op.Created:
		return slices.Contains(l.gone, dir)
	}
	return false
}

// churnNamed is zktest.Churn at 200 operations a second, its new nodes
// numbered from next (a run after another on the same tree makes no name
// twice).
func churnNamed(b *testing.B, conn *zk.Conn, dirs []string, children [][]string, next int, stop <-chan struct{}, ops chan<- zktest.ChurnOp) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second / 200)
		defer tick.Stop()
		r := rand.New(rand.NewPCG(uint64(next), 2))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			d := r.IntN(len(dirs))
			if i%2 == 0 && len(children[d]) > 1 {
				node := dirs[d] + "/" + children[d][0]
				ops <- zktest.ChurnOp{Dir: d, Node: node, At: time.Now()}
				if err := conn.Delete(node, -1); err != nil {
					b.Errorf("churn: %v", err)
					return
				}
				children[d] = children[d][1:]
				continue
			}
			name := zktest.BenchName(d, next)
			next++
			ops <- zktest.ChurnOp{Dir: d, Node: dirs[d] + "/" + name, Created: true, At: time.Now()}
			if _, err := conn.Create(dirs[d]+"/"+name, []byte("10.0.0.9 worker"), 0, zk.WorldACL(zk.PermAll)); err != nil {
				b.Errorf("churn: %v", err)
				return
			}
			children[d] = append(children[d], name)
		}
	}()
	return &wg
}
