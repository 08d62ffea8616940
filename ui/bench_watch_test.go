package ui

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/fourlw"
	"github.com/zkscope/zkscope/zkview/treecache"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// serverWatches is what the member at addr counts: every watch (mntr's
// zk_watch_count: data and child watches; a persistent watch is one of
// each) and wchs's data watches.
func serverWatches(tb testing.TB, addr string) (all, data int64) {
	tb.Helper()
	out, err := zktest.FourLetterWord(addr, "mntr", 10*time.Second)
	if err != nil {
		tb.Fatalf("mntr: %v", err)
	}
	m, err := fourlw.ParseMntr(out)
	if err != nil {
		tb.Fatalf("mntr: %v", err)
	}
	out, err = zktest.FourLetterWord(addr, "wchs", 10*time.Second)
	if err != nil {
		tb.Fatalf("wchs: %v", err)
	}
	w, err := fourlw.ParseWchs(out)
	if err != nil {
		tb.Fatalf("wchs: %v", err)
	}
	return m.WatchCount, w.Watches
}

// settledWatches is serverWatches once the count stopped changing for
// half a second (watches are removed in the background), at most 20 s.
func settledWatches(tb testing.TB, addr string) (all, data int64) {
	tb.Helper()
	all, data = serverWatches(tb, addr)
	stable := time.Now()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && time.Since(stable) < 500*time.Millisecond; {
		time.Sleep(50 * time.Millisecond)
		a, d := serverWatches(tb, addr)
		if a != all || d != data {
			all, data, stable = a, d, time.Now()
		}
	}
	return all, data
}

// BenchmarkTUIWatches counts the server's watches while the TUI shows a
// tree: 20 directories of 5 children opened one after another with `:cd`
// (the cursor landing on a child of each), then all closed again, on a
// server of its own (only this TUI's watches counted). Both paths in the
// same run: one-shot watches (poll) and persistent watches (follow).
// Metrics: watches (mntr's zk_watch_count) and data-watches (wchs) with
// the 20 directories open, and watches-closed after collapsing them.
func BenchmarkTUIWatches(b *testing.B) {
	cl := zktest.StartStandalone(b, zktest.Options{})
	addr := cl.Addrs()[0]
	connect := func() *zkview.Client {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c, err := zkview.Connect(ctx, zkview.Config{Servers: cl.Addrs(), SessionTimeout: 20 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	c := connect()
	defer c.Close()
	const dirs, kids = 20, 5
	for i := range dirs {
		zktest.FillChildren(b, c.Conn(), fmt.Sprintf("/w/d%02d", i), kids,
			func(j int) string { return fmt.Sprintf("c%d", j) }, func(int) []byte { return []byte("x") }, 0)
	}
	for _, mode := range []string{"poll", "follow"} {
		b.Run(mode, func(b *testing.B) {
			var open, openData, closed int64
			for range b.N {
				c := connect() // a session of its own: no watch of the last round left
				m := New(Options{Client: c, Start: "/w", Theme: "dark"})
				m.cache.(*treecache.Tree).SetPolling(mode == "poll")
				d := newLiveDriver(m, 140, 60)
				d.until(b, 30*time.Second, "/w open", func(d *liveDriver) bool {
					ds, ok := d.m.tree.Dir("/w")
					return ok && ds.Loaded
				})
				for i := range dirs {
					target := fmt.Sprintf("/w/d%02d/c%d", i, i%kids)
					d.typeLine(":cd " + target)
					d.until(b, 30*time.Second, target+" selected with its data", func(d *liveDriver) bool {
						n, ok := d.m.tree.Node(target)
						return d.m.detail.Path() == target && ok && n.HasStat
					})
				}
				o, od := settledWatches(b, addr)
				d.typeLine(":cd /w")
				d.until(b, 30*time.Second, "/w selected", func(d *liveDriver) bool { return d.m.tree.CursorPath() == "/w" })
				for i := range dirs {
					d.m.collapse(fmt.Sprintf("/w/d%02d", i))
				}
				cl, _ := settledWatches(b, addr)
				open, openData, closed = open+o, openData+od, closed+cl
				d.Close()
				c.Close()
				settledWatches(b, addr)
			}
			n := float64(b.N)
			b.ReportMetric(float64(open)/n, "watches")
			b.ReportMetric(float64(openData)/n, "data-watches")
			b.ReportMetric(float64(closed)/n, "watches-closed")
		})
	}
}
