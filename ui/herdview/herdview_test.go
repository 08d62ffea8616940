package herdview

import (
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/themes"
)

// TestViewFitsAndNamesSources: the screen is exactly its size, and every
// number under a queue says where it comes from.
func TestViewFitsAndNamesSources(t *testing.T) {
	p, _ := themes.Pick(themes.Dark, true, false)
	st := themes.New(p)
	v := New(&st, 1500*time.Millisecond)
	f := Frame{Contenders: 5, Locks: []Lock{
		{Name: "naive", Recipe: "plain ephemeral node; every waiter watches it", Path: "/herd/naive/lock", Releases: 2,
			Last: Counts{4, 4, 11, 7, 3 * time.Millisecond}, Total: Counts{8, 8, 22, 14, 7 * time.Millisecond}},
		{Name: "chain", Recipe: "Curator mutex; each waiter watches its predecessor", Path: "/herd/chain", Releases: 2,
			Last: Counts{1, 1, 1, 1, time.Millisecond}, Total: Counts{2, 1, 2, 2, 2 * time.Millisecond}},
	}}
	f.Locks[0].Queue.Kind = lockops.KindEphemeralLock
	f.Locks[0].WatchesBefore, f.Locks[0].WatchedNodes = 4, 1
	v.SetFrame(f)
	for _, size := range [][2]int{{120, 36}, {80, 24}, {200, 50}, {60, 24}} {
		v.SetSize(size[0], size[1])
		pw, ph := v.PaneSize()
		pane := strings.TrimSuffix(strings.Repeat(strings.Repeat("x", pw)+"\n", ph), "\n")
		out := v.Render([]string{pane, pane})
		lines := strings.Split(out, "\n")
		if len(lines) != size[1] {
			t.Errorf("%v: %d lines", size, len(lines))
		}
		for i, l := range lines {
			if w := lipgloss.Width(l); w > size[0] {
				t.Errorf("%v: line %d is %d cells wide", size, i, w)
			}
		}
		if size[0] == 60 { // short labels: every number still shown whole
			for _, want := range []string{"wchc before  4 on 1 node", "clients saw       4        8", "servers sent      4        8",
				"requests         11       22", "reads           7       14", "handover        3ms   ~3.5ms", "servers and clients differ"} {
				if !strings.Contains(ansi.Strip(out), want) {
					t.Errorf("%v: no %q in\n%s", size, want, ansi.Strip(out))
				}
			}
		}
		if size[0] < 120 {
			continue
		}
		for _, want := range []string{"5 contenders on each lock", "notifications (contenders)", "notified (servers' wchc)",
			"requests (contenders)", "of which reads", "watches before (wchc)", "4 on 1 node", "after 2 releases", "the servers' view and the contenders' agree",
			"the servers' view and the contenders' differ", "docs/herd.md"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q in\n%s", size, want, out)
			}
		}
	}
}

// TestViewEscapesText: once the styling is taken off, nothing but text
// reaches the terminal: a status (a server's error), a notice and the
// titles with control characters and bidi overrides come out escaped.
func TestViewEscapesText(t *testing.T) {
	p, _ := themes.Pick(themes.None, true, true)
	st := themes.New(p)
	v := New(&st, time.Second)
	v.SetSize(120, 30)
	nasty := "a\x1b[31mred\x07\u202eevil\u009b"
	v.SetFrame(Frame{Contenders: 2, Locks: []Lock{{Name: nasty, Recipe: nasty, Path: nasty}, {Name: "chain", Recipe: nasty}}})
	for _, set := range []func(){func() { v.SetStatus(nasty) }, func() { v.SetStatus(""); v.SetNotice(nasty) }} {
		set()
		out := ansi.Strip(v.Render([]string{"", ""}))
		if strings.ContainsAny(out, "\x1b\x07\u202e\u009b") || !strings.Contains(out, `a\x1b[31mred`) {
			t.Errorf("raw control characters on the screen: %q", out)
		}
	}
}
