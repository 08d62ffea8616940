package ui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// cpuTime is this process's user and system time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// switches is how many times this process's threads gave up the CPU so
// far (waiting, or made to).
func switches(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Nvcsw + ru.Nivcsw
}

// churnPeerEnv names the churn's settings for the child process that
// makes it (TestChurnPeer): the pane's process then spends CPU only on the
// pane, so its own CPU time is the figure, with nothing to subtract.
const churnPeerEnv = "ZKSCOPE_CHURN_PEER"

// churnPeer is what the child process is told: the server, the lock
// directory, its children in order, the next name's number and the rate.
type churnPeer struct {
	Servers []string
	Dir     string
	Names   []string
	Next    int
	Rate    int
}

// TestChurnPeer is the child process of BenchmarkLockPaneChurn1k (it does
// nothing otherwise): it releases the holder of the lock and appends a
// new waiter, Rate operations a second in all (half deletes, half
// creates), printing "released NAME UNIXNANO" after each release, until
// its standard input closes.
func TestChurnPeer(t *testing.T) {
	raw := os.Getenv(churnPeerEnv)
	if raw == "" {
		return
	}
	var c churnPeer
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		t.Fatal(err)
	}
	conn, _, err := zk.Connect(c.Servers, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "ready")
	out.Flush()
	tick := time.NewTicker(time.Second / time.Duration(c.Rate/2))
	defer tick.Stop()
	names, next := c.Names, c.Next
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		head := names[0]
		names = names[1:]
		if err := conn.Delete(c.Dir+"/"+head, -1); err != nil {
			t.Fatalf("release %s: %v", head, err)
		}
		fmt.Fprintf(out, "released %s %d\n", head, time.Now().UnixNano())
		out.Flush()
		n := churnName(next)
		next++
		if _, err := conn.Create(c.Dir+"/"+n, []byte("10.0.0.9 worker"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("acquire %s: %v", n, err)
		}
		names = append(names, n)
	}
}

// startChurn starts the churn's child process on dir (children names in
// order) and returns once it churns; each release's node and time go to
// released; stop ends it.
func startChurn(b *testing.B, servers []string, dir string, names []string, next, rate int, released func(string, time.Time)) (stop func()) {
	cfg, err := json.Marshal(churnPeer{Servers: servers, Dir: dir, Names: names, Next: next, Rate: rate})
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChurnPeer$", "-test.v")
	cmd.Env = append(os.Environ(), churnPeerEnv+"="+string(cfg))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	ready := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 1 && f[0] == "ready":
				close(ready)
			case len(f) == 3 && f[0] == "released":
				if ns, err := strconv.ParseInt(f[2], 10, 64); err == nil {
					released(f[1], time.Unix(0, ns))
				}
			}
		}
	}()
	select {
	case <-ready:
	case <-done:
		b.Fatal("the churn process ended before it started churning")
	case <-time.After(30 * time.Second):
		b.Fatal("the churn process did not start within 30 s")
	}
	return func() {
		in.Close()
		<-done
		if err := cmd.Wait(); err != nil {
			b.Errorf("churn process: %v", err)
		}
	}
}

func churnName(i int) string {
	return fmt.Sprintf("_c_%08x-0000-4000-8000-000000000000-lock-%010d", i, i)
}

// BenchmarkLockPaneChurn1k shows a 1,000-contender Curator lock in the
// TUI (the real model as Run sets it up, its commands run as the program
// runs them, View called after every message as the program does;
// releases checked at each drawing of a new queue) while the lock churns at 200 operations a
// second (100 releases of the holder, 100 new waiters), made by a child
// process. Two paths, alternated in one run: poll (the pane re-reads the
// directory on one-shot children watches, at most every 100 ms) and follow
// (a persistent recursive watch, each batch of events applied). Metrics:
// the pane's CPU in % of one core (this process's CPU
// time: the churn's is the child's), how far behind the pane is (from a
// release to the pane's queue without that node: median, p99 and worst), and
// the queues read and the screens drawn a second, and the times a second
// its threads gave up the CPU (switches/s: each costs the kernel a
// context switch).
//
//	go test ./ui -run '^$' -bench LockPaneChurn1k -benchtime 1x
//
// ZKSCOPE_CHURN_SECONDS=30 churns longer than the 5 s default (for
// -cpuprofile); ZKSCOPE_CHURN_ROUNDS=3 alternates the paths 3 times.
func BenchmarkLockPaneChurn1k(b *testing.B) {
	rounds := 1
	if r, err := strconv.Atoi(os.Getenv("ZKSCOPE_CHURN_ROUNDS")); err == nil && r > 0 {
		rounds = r
	}
	for range rounds {
		b.Run("poll", func(b *testing.B) { lockPaneChurn(b, false) })
		b.Run("follow", func(b *testing.B) { lockPaneChurn(b, true) })
	}
}

// lockPaneChurn is one run of BenchmarkLockPaneChurn1k on one path.
func lockPaneChurn(b *testing.B, follow bool) {
	const (
		n    = 1000
		rate = 200
	)
	period := 5 * time.Second
	if s, err := strconv.Atoi(os.Getenv("ZKSCOPE_CHURN_SECONDS")); err == nil && s > 0 {
		period = time.Duration(s) * time.Second // longer, for a profile
	}
	c := liveClient(b)
	dir := zktest.Path(b) + "/churn"
	zktest.FillChildren(b, c.Conn(), dir, n, churnName, func(int) []byte { return []byte("10.0.0.9 worker") }, 0)
	var mu sync.Mutex
	releases := map[string]time.Time{}
	note := func(name string, at time.Time) {
		mu.Lock()
		releases[name] = at
		mu.Unlock()
	}

	kids, _, err := c.Children(dir)
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(kids)

	m := New(Options{Client: c, Start: dir, Theme: "dark"})
	m.frames = &frameCache{} // as Run does
	m.lock.SetPolling(!follow)
	d := newLiveDriver(m, 140, 40)
	defer d.Close()
	d.until(b, 30*time.Second, "the lock pane with the whole queue", func(d *liveDriver) bool {
		return d.m.lock != nil && len(d.m.lock.Queue().Participants) == len(kids)
	})
	b.ResetTimer()
	stopChurn := startChurn(b, c.Servers(), dir, kids, n, rate, note)
	cpu0, sw0 := cpuTime(b), switches(b)
	var lags []time.Duration
	var msgs, draws int
	shown0 := d.m.lock.Shown()
	drawnAt := d.m.frames.at
	end := time.After(period)
	shownAt := shown0
loop:
	for {
		select {
		case msg := <-d.msgs:
			d.apply(msg)
			_ = d.m.View() // as tea.Program does after every message
			msgs++
			drew := d.m.frames.at != drawnAt
			if drew {
				draws, drawnAt = draws+1, d.m.frames.at
			}
			if d.m.lock.Shown() == shownAt || !drew {
				continue
			}
			// A new queue drawn (the program's renderer puts the drawing
			// on the terminal at its next frame): the releases it no
			// longer shows (the measurement's own cost, counted as the
			// pane's: a set of the first nodes).
			shownAt = d.m.lock.Shown()
			q := d.m.lock.Queue().Participants
			shown := make(map[string]bool, 64)
			for _, p := range q[:min(len(q), 64)] {
				shown[p.Name] = true
			}
			now := time.Now()
			mu.Lock()
			for name, at := range releases {
				if !shown[name] {
					lags = append(lags, now.Sub(at))
					delete(releases, name)
				}
			}
			mu.Unlock()
		case <-end:
			break loop
		}
	}
	paneCPU, sw := cpuTime(b)-cpu0, switches(b)-sw0
	stopChurn()
	b.StopTimer()
	mu.Lock()
	left := len(releases)
	mu.Unlock()
	if len(lags) == 0 {
		b.Fatal("the pane never showed a release")
	}
	slices.Sort(lags)
	b.ReportMetric(100*float64(paneCPU)/float64(period), "pane-cpu-%")
	b.ReportMetric(float64(sw)/period.Seconds(), "switches/s")
	if d.m.lock.Following() != follow {
		b.Fatalf("following = %v on the %v path", d.m.lock.Following(), follow)
	}
	b.ReportMetric(float64(lags[len(lags)/2])/1e6, "lag-p50-ms")
	b.ReportMetric(float64(lags[len(lags)*99/100])/1e6, "lag-p99-ms")
	b.ReportMetric(float64(lags[len(lags)-1])/1e6, "lag-max-ms")
	b.ReportMetric(float64(left), "releases-unseen-at-end")
	b.ReportMetric(float64(d.m.lock.Shown()-shown0)/period.Seconds(), "queues/s")
	b.ReportMetric(float64(draws)/period.Seconds(), "draws/s")
	b.ReportMetric(float64(msgs)/period.Seconds(), "msgs/s")
}
