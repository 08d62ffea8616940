package ui

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/redisview/redistest"
)

// BenchmarkRedisTUIBigLevel drives Update+View on a real redis-server
// holding 200,000 keys, all under session: (one group of 200,000 names):
//
//   - open: from New until the top level is drawn (ms/open), then from
//     opening session until its 200,000 names are listed and drawn
//     (ms/open-group); the frames drawn meanwhile (partial listings) are
//     timed too: the slowest Update+View while the group streams in is
//     ms/worst-frame.
//   - key-down: one key press answered (Update plus View) with the cursor
//     in the open group.
func BenchmarkRedisTUIBigLevel(b *testing.B) {
	_, c, r := redistest.Clients(b)
	ctx := context.Background()
	const n = 200_000
	for start := 0; start < n; start += 10_000 {
		p := r.Pipeline()
		for i := start; i < start+10_000; i++ {
			p.Set(ctx, fmt.Sprintf("session:%07d", i), "x", 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var d *liveDriver
	b.Run("open", func(b *testing.B) {
		var top, group, worst time.Duration
		for i := 0; i < b.N; i++ {
			if d != nil {
				d.Close()
			}
			start := time.Now()
			d = newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark"}), 140, 40)
			d.until(b, 30*time.Second, "the top level", screenHas("session"))
			top += time.Since(start)
			d.apply(tea.KeyPressMsg{Code: 'j', Text: "j"})
			start = time.Now()
			d.apply(tea.KeyPressMsg{Code: 'l', Text: "l"})
			listed := func(d *liveDriver) bool {
				names, ok := d.m.cache.Children("/session")
				ds, open := d.m.tree.Dir("/session")
				return ok && len(names) == n && open && len(ds.Names) == n
			}
			for !listed(d) {
				select {
				case msg := <-d.msgs:
					t0 := time.Now()
					d.apply(msg)
					_ = d.m.View()
					if el := time.Since(t0); el > 50*time.Millisecond {
						b.Logf("%T took %s", msg, el)
					}
					worst = max(worst, time.Since(t0))
				case <-time.After(30 * time.Second):
					b.Fatalf("session never listed:\n%s", d.screen())
				}
			}
			_ = d.m.View()
			group += time.Since(start)
		}
		b.ReportMetric(float64(top.Microseconds())/1000/float64(b.N), "ms/open")
		b.ReportMetric(float64(group.Microseconds())/1000/float64(b.N), "ms/open-group")
		b.ReportMetric(float64(worst.Microseconds())/1000, "ms/worst-frame")
	})
	defer d.Close()
	b.Run("key-down", func(b *testing.B) {
		var lat []time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			d.apply(tea.KeyPressMsg{Code: 'j', Text: "j"})
			_ = d.m.View()
			lat = append(lat, time.Since(t0))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms/p99")
	})
}
