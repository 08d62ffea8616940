package locks_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// BenchmarkLocksWatch70k runs `zkscope locks /scan --watch --json
// --changes` (the binary, following the tree with one persistent
// recursive watch) on the 70,151-znode tree (5,000 lock directories)
// while it churns at 200 operations a second spread over the lock
// directories, for a minute, and measures:
//
//   - each change's lag: from its request sent to the server to the line
//     that shows it read by this process (median, p99, worst), and the
//     changes never shown;
//
//   - the process's CPU (% of a core) and resident memory;
//
//   - the servers' watch count (`wchs`) while it follows, against the
//     count before it started.
//
//     go test ./cmd/locks -run '^$' -bench LocksWatch70k -benchtime 1x -timeout 20m
func BenchmarkLocksWatch70k(b *testing.B) {
	cl := zktest.StartStandalone(b, zktest.Options{Extra: []string{"forceSync=no", "4lw.commands.whitelist=*"}})
	conn, _, err := zk.Connect(cl.Addrs(), 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	const root = "/scan"
	dirs, children := zktest.FillBenchTree(b, conn, root)
	bin := zktest.Zkscope(b)
	watchesBefore := zktest.WatchCount(b, cl.Addrs())

	cmd := exec.Command(bin, "-s", cl.ConnectString(), "locks", root, "--watch", "--json", "--changes")
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			b.Log(sc.Text())
		}
	}()
	lines := make(chan watchLine, 4096)
	go readWatchLines(b, stdout, lines)
	first := make(chan struct{})
	m := &lagMatcher{pending: map[string]zktest.ChurnOp{}}
	go func() {
		once := sync.OnceFunc(func() { close(first) })
		for l := range lines {
			once()
			m.line(l)
		}
	}()
	select {
	case <-first:
	case <-time.After(5 * time.Minute):
		b.Fatal("locks --watch printed nothing in 5 minutes")
	}

	b.ResetTimer()
	m.mu.Lock()
	m.start = time.Now()
	m.mu.Unlock()
	stop := make(chan struct{})
	ops := make(chan zktest.ChurnOp, 1<<16)
	go func() {
		for op := range ops {
			m.op(op)
		}
	}()
	wg := zktest.Churn(b, conn, dirs, children, -1, 200, stop, ops)
	pid := cmd.Process.Pid
	cpu0, t0 := zktest.ProcCPU(b, pid), time.Now()
	var watches []int
	for time.Since(t0) < time.Minute {
		time.Sleep(10 * time.Second)
		watches = append(watches, zktest.WatchCount(b, cl.Addrs())-watchesBefore)
	}
	cpu, window := zktest.ProcCPU(b, pid)-cpu0, time.Since(t0)
	rss, peak := zktest.ProcMem(b, pid)
	close(stop)
	wg.Wait()
	close(ops)
	// The last changes: shown within 30 s, or counted as never shown.
	deadline := time.Now().Add(30 * time.Second)
	for m.waiting() > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	b.StopTimer()

	lags, missed := m.result()
	if len(lags) == 0 {
		b.Fatal("no change shown")
	}
	slices.Sort(lags)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(ms(lags[len(lags)/2]), "lag-median-ms")
	b.ReportMetric(ms(lags[len(lags)*99/100]), "lag-p99-ms")
	b.ReportMetric(ms(lags[len(lags)-1]), "lag-max-ms")
	b.ReportMetric(float64(missed), "changes-never-shown")
	b.ReportMetric(100*cpu.Seconds()/window.Seconds(), "cpu-%-of-core")
	b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MB")
	b.ReportMetric(float64(slices.Max(watches)), "wchs-added-max")
	m.mu.Lock()
	slow := make([]string, 0, len(m.slow))
	for _, sec := range slices.Sorted(maps.Keys(m.slow)) {
		slow = append(slow, fmt.Sprintf("%ds:%d", sec, m.slow[sec]))
	}
	late := slices.Clone(m.late)
	for node, op := range m.pending {
		late = append(late, fmt.Sprintf("%s (created %v) never shown, requested %v into the churn", node, op.Created, op.At.Sub(m.start).Round(time.Millisecond)))
	}
	m.mu.Unlock()
	b.Logf("changes shown 100 ms or more late, by second of the churn: %s", strings.Join(slow, " "))
	for _, l := range late {
		b.Logf("late: %s", l)
	}
	b.Logf("%d changes shown, %d never; %d lines; watches added (wchs, every 10 s): %v (before: %d)", len(lags), missed, m.lines, watches, watchesBefore)
}

// watchLine is one line of `locks --watch --json --changes`, as read.
type watchLine struct {
	at    time.Time
	locks map[string][]string // lock -> its participants' nodes
	gone  []string
}

// readWatchLines decodes each line of r onto out until r ends.
func readWatchLines(b *testing.B, r interface{ Read([]byte) (int, error) }, out chan<- watchLine) {
	defer close(out)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20) // the first line is every lock
	for sc.Scan() {
		at := time.Now()
		var doc struct {
			Locks []struct {
				Path         string `json:"path"`
				Participants []struct {
					Node string `json:"node"`
				} `json:"participants"`
			} `json:"locks"`
			Gone []string `json:"gone"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			b.Errorf("a line that is no JSON document: %v", err)
			return
		}
		l := watchLine{at: at, locks: map[string][]string{}, gone: doc.Gone}
		for _, q := range doc.Locks {
			nodes := make([]string, len(q.Participants))
			for i, p := range q.Participants {
				nodes[i] = p.Node
			}
			l.locks[q.Path] = nodes
		}
		out <- l
	}
}

// lagMatcher pairs each change sent with the first line that shows it: a
// node created among its lock's participants, a node deleted no longer
// among them (or its lock gone). A change is taken in (op) by another
// goroutine than the lines (line): one taken in after the line that
// showed it is matched with its lock's last line (last), when that line
// came after its request, rather than left waiting for a line its lock
// may never have again (a lock changes about twice a minute).
type lagMatcher struct {
	mu      sync.Mutex
	pending map[string]zktest.ChurnOp // by node
	last    map[string]watchLine      // by lock: the last line that listed it or gave it as gone
	lags    []time.Duration
	lines   int
	late    []string // the changes shown a second or more after their request
	start   time.Time
	slow    map[int]int // changes shown 100 ms or more after their request, by second of the churn
}

func (m *lagMatcher) op(op zktest.ChurnOp) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending[op.Node] = op
	if l, ok := m.last[op.Node[:strings.LastIndexByte(op.Node, '/')]]; ok {
		m.match(op.Node, op, l)
	}
}

func (m *lagMatcher) line(l watchLine) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lines++
	if m.last == nil {
		m.last = map[string]watchLine{}
	}
	for dir := range l.locks {
		m.last[dir] = l
	}
	for _, dir := range l.gone {
		m.last[dir] = l
	}
	for node, op := range m.pending {
		m.match(node, op, l)
	}
}

// match counts op's change shown by l when l shows it (and came after
// its request).
func (m *lagMatcher) match(node string, op zktest.ChurnOp, l watchLine) {
	dir := node[:strings.LastIndexByte(node, '/')]
	nodes, listed := l.locks[dir]
	shown := false
	switch {
	case op.Created && listed:
		shown = slices.Contains(nodes, node)
	case !op.Created && listed:
		shown = !slices.Contains(nodes, node)
	case !op.Created:
		shown = slices.Contains(l.gone, dir)
	}
	if !shown || !l.at.After(op.At) {
		return
	}
	lag := l.at.Sub(op.At)
	if lag >= 100*time.Millisecond && !m.start.IsZero() {
		if m.slow == nil {
			m.slow = map[int]int{}
		}
		m.slow[int(op.At.Sub(m.start)/time.Second)]++
	}
	if lag >= time.Second && len(m.late) < 20 {
		m.late = append(m.late, fmt.Sprintf("%s (created %v) %v after its request, %v into the churn", node, op.Created, lag.Round(time.Millisecond), op.At.Sub(m.start).Round(time.Millisecond)))
	}
	m.lags = append(m.lags, lag)
	delete(m.pending, node)
}

func (m *lagMatcher) waiting() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pending)
}

func (m *lagMatcher) result() ([]time.Duration, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.lags), len(m.pending)
}
