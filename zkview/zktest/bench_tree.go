package zktest

// The benchmarks' big tree and its churn (the exporter's and locks
// --watch's), and what a process costs (/proc; Linux).

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// The big tree of the lock benchmarks: 50 apps × 100 lock directories ×
// 3 contenders, plus 1,000 config nodes per app (70,151 znodes with the
// root's path).
const (
	BenchApps, BenchLocks, BenchContenders, BenchConfigs = 50, 100, 3, 1000
)

// BenchName is contender n's node name in lock directory d (Curator's).
func BenchName(d, n int) string {
	return fmt.Sprintf("_c_%08x-0000-4000-8000-%012x-lock-%010d", d, n, n)
}

// FillBenchTree creates the big tree below root and returns each lock
// directory with its children, in order.
func FillBenchTree(tb testing.TB, conn *zk.Conn, root string) (dirs []string, children [][]string) {
	tb.Helper()
	MakePath(tb, conn, root)
	acl := zk.WorldACL(zk.PermAll)
	var levels [4][]string
	for a := range BenchApps {
		app := fmt.Sprintf("%s/app-%02d", root, a)
		levels[0] = append(levels[0], app)
		levels[1] = append(levels[1], app+"/locks", app+"/config")
		for l := range BenchLocks {
			dir := fmt.Sprintf("%s/locks/lock-%03d", app, l)
			levels[2] = append(levels[2], dir)
			dirs = append(dirs, dir)
			var names []string
			for c := range BenchContenders {
				names = append(names, BenchName(len(dirs)-1, c))
				levels[3] = append(levels[3], dir+"/"+names[c])
			}
			children = append(children, names)
		}
		for c := range BenchConfigs {
			levels[2] = append(levels[2], fmt.Sprintf("%s/config/c%05d", app, c))
		}
	}
	for _, paths := range levels {
		reqs := make([]*zk.CreateRequest, len(paths))
		for i, p := range paths {
			reqs[i] = &zk.CreateRequest{Path: p, Data: []byte("10.0.0.1 worker"), Acl: acl}
		}
		if err := CreateAll(conn, reqs); err != nil {
			tb.Fatalf("create the tree: %v", err)
		}
	}
	return dirs, children
}

// ChurnOp is one change [Churn] made: a node created or deleted in lock
// directory Dir (an index of the dirs), its request sent at At.
type ChurnOp struct {
	Dir     int
	Node    string // the full path
	Created bool
	At      time.Time
}

// Churn releases the holder of a random lock directory and queues a new
// contender in another, rate operations a second in all, until stop
// closes; skip is left alone. Each change is sent on ops (when not nil)
// before its request.
func Churn(tb testing.TB, conn *zk.Conn, dirs []string, children [][]string, skip int, rate int, stop <-chan struct{}, ops chan<- ChurnOp) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		next := BenchContenders
		r := rand.New(rand.NewPCG(1, 2))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			d := r.IntN(len(dirs))
			if d == skip {
				continue
			}
			if i%2 == 0 && len(children[d]) > 1 {
				node := dirs[d] + "/" + children[d][0]
				if ops != nil {
					ops <- ChurnOp{Dir: d, Node: node, At: time.Now()}
				}
				if err := conn.Delete(node, -1); err != nil {
					tb.Errorf("churn: %v", err)
					return
				}
				children[d] = children[d][1:]
				continue
			}
			name := BenchName(d, next)
			next++
			if ops != nil {
				ops <- ChurnOp{Dir: d, Node: dirs[d] + "/" + name, Created: true, At: time.Now()}
			}
			if _, err := conn.Create(dirs[d]+"/"+name, []byte("10.0.0.9 worker"), 0, zk.WorldACL(zk.PermAll)); err != nil {
				tb.Errorf("churn: %v", err)
				return
			}
			children[d] = append(children[d], name)
		}
	}()
	return &wg
}

// ProcCPU is a process's user and system time so far.
func ProcCPU(tb testing.TB, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * (time.Second / 100) // USER_HZ
}

// ProcMem is a process's resident and peak resident memory in bytes.
func ProcMem(tb testing.TB, pid int) (rss, peak int64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			if f[0] == "VmRSS:" {
				rss = kb << 10
			} else {
				peak = kb << 10
			}
		}
	}
	return rss, peak
}

// WatchCount is the watches the servers at addrs hold in all (`wchs`:
// "Total watches:N" summed).
func WatchCount(tb testing.TB, addrs []string) int {
	total := 0
	for _, a := range addrs {
		out, err := FourLetterWord(a, "wchs", 5*time.Second)
		if err != nil {
			tb.Fatal(err)
		}
		_, after, ok := strings.Cut(out, "Total watches:")
		if !ok {
			tb.Fatalf("wchs from %s: %q", a, out)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(after))
		total += n
	}
	return total
}
