// Package herdview draws `zkscope demo --herd`'s screen: the naive lock
// and the predecessor chain side by side, each as the lock pane draws its
// queue (the root hands the panes' views in), and under each what its
// last release and all its releases cost, every number named with where
// it comes from: the contenders' own counters or the servers' watch lists.
package herdview

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

// Counts are what one release, or all of a lock's releases, cost.
type Counts struct {
	Notifications       int           // the contenders' own count
	ServerNotifications int           // sessions wchc listed watching the released node
	Requests            int           // sent by the woken contenders (their own count)
	Reads               int           // the reads among Requests
	Handover            time.Duration // release until the next holder held (a sum in totals)
}

// Lock is one lock's state after a release.
type Lock struct {
	Name   string // "naive", "chain"
	Recipe string // how it is taken, in a few words
	Path   string
	// Queue is the lock as zkscope's scan, decoders and diagnosis read it.
	Queue    lockops.Queue
	Releases int
	Last     Counts
	Total    Counts
	// WatchesBefore is the watches on the lock's nodes the servers listed
	// (wchc) before the last release, on WatchedNodes nodes.
	WatchesBefore, WatchedNodes int
}

// Frame is both locks after a round of releases (none yet at first).
type Frame struct {
	Contenders int
	Locks      []Lock
}

// countsHeight is the lines under each queue: a blank and countLines.
const countsHeight = 9

// View is the screen's layout and its parts other than the queues.
type View struct {
	st       *themes.Styles
	w, h     int
	frame    Frame
	interval time.Duration
	paused   bool
	status   string // an error, or "" (escaped when drawn)
	notice   string // shown until a key is pressed
}

// New builds the view drawing with st; interval is the time between
// releases, said in the header.
func New(st *themes.Styles, interval time.Duration) *View {
	return &View{st: st, interval: interval}
}

// SetSize sets the screen's size.
func (v *View) SetSize(w, h int) { v.w, v.h = w, h }

// SetFrame shows f's numbers.
func (v *View) SetFrame(f Frame) { v.frame = f }

// SetPaused says whether releases are paused.
func (v *View) SetPaused(p bool) { v.paused = p }

// SetNotice shows text in the footer until it is cleared ("").
func (v *View) SetNotice(text string) { v.notice = text }

// SetStatus shows text on the status line (an error; "" clears it).
func (v *View) SetStatus(text string) { v.status = text }

// PaneSize is the inner size each lock's queue is drawn at.
func (v *View) PaneSize() (w, h int) {
	return max(v.w/2-2, 10), max(v.h-4-countsHeight, 3) // header, footer, borders
}

// Render draws the screen; panes are the lock panes' views, in the
// frame's lock order.
func (v *View) Render(panes []string) string {
	colW := v.w / 2
	var cols []string
	for i, l := range v.frame.Locks {
		pane := ""
		if i < len(panes) {
			pane = panes[i]
		}
		w := colW
		if i == len(v.frame.Locks)-1 {
			w = v.w - colW*(len(v.frame.Locks)-1)
		}
		lines := strings.Split(pane, "\n")
		_, ph := v.PaneSize()
		for len(lines) < ph {
			lines = append(lines, "")
		}
		lines = append(lines[:ph], "")
		lines = append(lines, v.countLines(l, w-2)...)
		cols = append(cols, common.Box(v.st, l.Name+" · "+l.Recipe, lines, w, v.h-2, i == 0))
	}
	body := lipgloss.JoinHorizontal(lipgloss.Top, cols...)
	return strings.Join([]string{v.header(), body, v.footer()}, "\n")
}

func (v *View) header() string {
	text := fmt.Sprintf(" zkscope demo --herd · %d contenders on each lock · a release every %s", v.frame.Contenders, v.interval)
	if v.paused {
		text += " · paused"
	}
	return v.st.Header.Width(v.w).Render(common.Truncate(text, v.w))
}

func (v *View) footer() string {
	if v.status != "" {
		return common.Truncate(v.st.Error.Render(printable.String(v.status)), v.w)
	}
	if v.notice != "" {
		return common.Truncate(v.st.Info.Render(printable.String(v.notice)), v.w)
	}
	keys := v.st.HelpKey.Render("space") + v.st.HelpDesc.Render(" pause") + v.st.HelpSep.Render(" · ") +
		v.st.HelpKey.Render("q") + v.st.HelpDesc.Render(" quit") + v.st.HelpSep.Render(" · ") +
		v.st.Muted.Render("'herd' is the problem the lock pane and doctor flag (docs/herd.md)")
	return common.Truncate(keys, v.w)
}

// countLines are the numbers under one queue, each saying its source,
// in inner columns: the full labels where they fit (47), short ones
// (docs/herd.md names both) in a narrow terminal.
func (v *View) countLines(l Lock, inner int) []string {
	st := v.st
	labels, lastW, totalW := fullCountLabels, 7, 12
	if inner < 47 {
		labels, lastW, totalW = shortCountLabels, 6, 8
	}
	labelW := max(inner-lastW-totalW-2, 8)
	row := func(what string, last, total any) string {
		return fmt.Sprintf("%-*s %*v %*v", labelW, what, lastW, last, totalW, total)
	}
	mean := "-"
	if l.Releases > 0 {
		mean = round(l.Total.Handover / time.Duration(l.Releases)).String()
	}
	last := func(n int) any {
		if l.Releases == 0 {
			return "-"
		}
		return n
	}
	handover := "-"
	if l.Releases > 0 {
		handover = round(l.Last.Handover).String()
	}
	agree := st.Success.Render(labels[8])
	if l.Total.Notifications != l.Total.ServerNotifications {
		agree = st.Error.Render(labels[9])
	}
	watches := "-"
	if l.Releases > 0 {
		watches = fmt.Sprintf("%d on %s", l.WatchesBefore, lockops.Plural(l.WatchedNodes, "node"))
	}
	after := lockops.Plural(l.Releases, "release")
	if inner >= 47 {
		after = "after " + after
	}
	return []string{
		st.Section.Render(row(after, "last", "total")),
		fmt.Sprintf("%-*s %s", labelW, labels[1], watches),
		row(labels[2], last(l.Last.Notifications), l.Total.Notifications),
		row(labels[3], last(l.Last.ServerNotifications), l.Total.ServerNotifications),
		row(labels[4], last(l.Last.Requests), l.Total.Requests),
		row(labels[5], last(l.Last.Reads), l.Total.Reads),
		row(labels[6], handover, labels[7]+mean),
		agree,
	}
}

// The counts' labels: [0] unused, the rows' labels, the prefix of the
// mean handover, the agreement and the disagreement.
var (
	fullCountLabels = [...]string{"", "watches before (wchc)", "notifications (contenders)",
		"notified (servers' wchc)", "requests (contenders)", "  of which reads", "next holder after", "mean ",
		"the servers' view and the contenders' agree", "the servers' view and the contenders' differ"}
	shortCountLabels = [...]string{"", "wchc before", "clients saw", "servers sent", "requests",
		"  reads", "handover", "~",
		"servers and clients agree", "servers and clients differ"}
)

// round rounds d for people: to 10µs under a second.
func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}
