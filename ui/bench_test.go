package ui

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/treecache"
)

var (
	bench100kOnce sync.Once
	bench100kDir  string
)

// bench100k makes (once per process) a node with 100,000 children on the
// shared server.
func bench100k(b *testing.B, c *zkview.Client) string {
	b.Helper()
	bench100kOnce.Do(func() {
		bench100kDir = fmt.Sprintf("/zkscope-bench-ui/big-%d", time.Now().UnixNano())
		start := time.Now()
		liveBigDir(b, c.Conn(), bench100kDir, 100_000)
		b.Logf("created 100,000 children in %s", time.Since(start).Round(time.Millisecond))
	})
	if bench100kDir == "" {
		b.Fatal("the 100,000-child node could not be made")
	}
	return bench100kDir
}

// firstFrameReady: the big directory is open on screen and every visible
// row has its stat.
func firstFrameReady(dir string) func(*liveDriver) bool {
	return func(d *liveDriver) bool {
		ds, open := d.m.tree.Dir(dir)
		if !open || !ds.Loaded || len(ds.Names) != 100_000 {
			return false
		}
		for _, p := range d.m.tree.VisiblePaths() {
			if _, ok := d.m.tree.Node(p); !ok {
				return false
			}
		}
		return strings.Contains(d.screen(), "node-0000000")
	}
}

// BenchmarkTUI100k drives Update+View against a real server where one node
// has 100,000 children, the tree on one-shot watches (poll) and on
// persistent watches (follow) in the same run. Sub-benchmarks:
//
//   - first-frame: from New (with the big node as start path) until the
//     frame shows its children with the visible rows' stats, each path in
//     turn (ms/first-frame-poll, -follow; the process's CPU time as
//     cpu-ms/first-frame-*). Target ≤ 300 ms.
//   - poll/key-*, follow/key-*: one key press answered (Update plus View)
//     with the cursor in the big directory. Target ≤ 16 ms.
func BenchmarkTUI100k(b *testing.B) {
	c := liveClient(b)
	dir := bench100k(b, c)
	modes := []string{"poll", "follow"}
	newModel := func(mode string) Model {
		m := New(Options{Client: c, Start: dir, Theme: "dark"})
		m.cache.(*treecache.Tree).SetPolling(mode == "poll")
		return m
	}
	// The two paths alternate, so a busy moment of the machine falls on
	// both alike.
	b.Run("first-frame", func(b *testing.B) {
		total := map[string]time.Duration{}
		cpu := map[string]time.Duration{}
		for i := 0; i < b.N; i++ {
			for _, mode := range modes {
				start, cpu0 := time.Now(), cpuTime(b)
				d := newLiveDriver(newModel(mode), 140, 40)
				d.until(b, 30*time.Second, "the first frame of the big directory", firstFrameReady(dir))
				_ = d.m.View()
				total[mode] += time.Since(start)
				cpu[mode] += cpuTime(b) - cpu0
				b.StopTimer()
				d.Close()
				b.StartTimer()
			}
		}
		for _, mode := range modes {
			b.ReportMetric(float64(total[mode].Microseconds())/1000/float64(b.N), "ms/first-frame-"+mode)
			b.ReportMetric(float64(cpu[mode].Microseconds())/1000/float64(b.N), "cpu-ms/first-frame-"+mode)
		}
	})
	for _, mode := range modes {
		b.Run(mode, func(b *testing.B) {
			benchTUI100kKeys(b, func() Model { return newModel(mode) }, dir)
		})
	}
}

// benchTUI100kKeys: key presses answered with the cursor in the big
// directory.
func benchTUI100kKeys(b *testing.B, newModel func() Model, dir string) {
	keys := []struct {
		name string
		msg  tea.KeyPressMsg
	}{
		{"key-down", tea.KeyPressMsg{Code: 'j', Text: "j"}},
		{"key-pgdown", tea.KeyPressMsg{Code: tea.KeyPgDown}},
		{"key-end", tea.KeyPressMsg{Code: tea.KeyEnd}},
		{"key-up", tea.KeyPressMsg{Code: 'k', Text: "k"}},
	}
	for _, k := range keys {
		b.Run(k.name, func(b *testing.B) {
			d := newLiveDriver(newModel(), 140, 40)
			defer d.Close()
			d.until(b, 30*time.Second, "the first frame of the big directory", firstFrameReady(dir))
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s := time.Now()
				d.apply(k.msg)
				_ = d.m.View()
				lat = append(lat, time.Since(s))
				if k.name == "key-end" {
					b.StopTimer()
					d.apply(tea.KeyPressMsg{Code: tea.KeyHome}) // back to the top for the next jump
					b.StartTimer()
				}
				if i%64 == 63 {
					b.StopTimer()
					d.drain() // stat replies for the rows scrolled into view
					b.StartTimer()
				}
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms-p99/key")
		})
	}

	// Typing one character of a `/` filter re-filters all 100,000 names.
	b.Run("key-filter-char", func(b *testing.B) {
		d := newLiveDriver(newModel(), 140, 40)
		defer d.Close()
		d.until(b, 30*time.Second, "the first frame of the big directory", firstFrameReady(dir))
		d.apply(tea.KeyPressMsg{Code: 'j', Text: "j"}) // into the directory
		d.apply(tea.KeyPressMsg{Code: '/', Text: "/"})
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			d.apply(tea.KeyPressMsg{Code: '9', Text: "9"})
			_ = d.m.View()
			b.StopTimer()
			d.apply(tea.KeyPressMsg{Code: tea.KeyBackspace})
			b.StartTimer()
		}
	})
}
