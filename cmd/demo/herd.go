package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/demo"
	"github.com/zkscope/zkscope/demo/herd"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/ui"
	"github.com/zkscope/zkscope/zkview"
)

// herdOptions are `demo --herd`'s flags.
type herdOptions struct {
	On         bool
	Contenders int
	Releases   int // --report's (default Contenders)
	Report     bool
	JSON       bool
	Interval   time.Duration // between releases in the TUI and the printed form
}

func (h *herdOptions) bind(fs *pflag.FlagSet) {
	fs.BoolVar(&h.On, "herd", false, "show the herd effect: a naive lock beside Curator's predecessor chain, measured")
	fs.IntVar(&h.Contenders, "contenders", herd.DefaultContenders, fmt.Sprintf("with --herd: contenders on each lock (2 to %d)", herd.MaxContenders))
	fs.IntVar(&h.Releases, "releases", 0, "with --herd --report: releases of each lock (default: as many as contenders)")
	fs.BoolVar(&h.Report, "report", false, "with --herd: run --releases releases without the TUI and print the totals")
	fs.BoolVar(&h.JSON, "json", false, "with --herd --report: print the report as JSON")
	fs.DurationVar(&h.Interval, "interval", 1500*time.Millisecond, "with --herd: time between releases on screen")
}

// check refuses the --herd flags without --herd and values out of range.
func (h *herdOptions) check(fs *pflag.FlagSet) error {
	for _, name := range []string{"contenders", "releases", "report", "json", "interval"} {
		if fs.Changed(name) && !h.On {
			return cmdutil.Usagef("--%s is a --herd flag: add --herd", name)
		}
	}
	switch {
	case h.Contenders < 2 || h.Contenders > herd.MaxContenders:
		return cmdutil.Usagef("--contenders %d: give 2 to %d", h.Contenders, herd.MaxContenders)
	case fs.Changed("releases") && h.Releases < 1:
		return cmdutil.Usagef("--releases %d: give 1 or more", h.Releases)
	case (fs.Changed("releases") || h.JSON) && !h.Report:
		return cmdutil.Usagef("--releases and --json go with --report (the TUI runs until you quit)")
	case h.Interval < 0:
		return cmdutil.Usagef("--interval %s: give a duration of 0 or more", h.Interval)
	}
	if h.Releases == 0 {
		h.Releases = h.Contenders
	}
	return nil
}

// runHerd starts the demo's server and the two herd locks on it, then
// reports, prints or shows their releases. Every part is cleaned up on
// return and on signals.
func runHerd(ctx context.Context, o demoOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, progress := o.Out, o.Out
	if out == nil {
		out = os.Stdout
	}
	if o.Herd.Report {
		progress = o.Err // stdout is the report's alone
		if progress == nil {
			progress = os.Stderr
		}
	}
	d, err := demo.New(demo.Options{Out: progress, ReadOnly: o.ReadOnly})
	if err != nil {
		return err
	}
	defer d.Close()
	stopIntr, stopSignals := handleSignals(ctx, cancel, d)
	defer stopSignals()
	if err := d.StartServer(ctx); err != nil {
		if errors.Is(err, demo.ErrStopped) {
			return nil
		}
		return err
	}
	fmt.Fprintf(progress, "Starting %d contenders on each of two locks…\n", o.Herd.Contenders)
	h, err := herd.Start(ctx, herd.Options{Servers: d.Env().Servers, Contenders: o.Herd.Contenders})
	if err != nil {
		return stopped(ctx, err)
	}
	defer h.Close()
	if o.Ready != nil {
		o.Ready(d.Env())
	}
	if o.Herd.Report {
		rep, err := herd.Run(ctx, h, o.Herd.Releases)
		if err != nil {
			return stopped(ctx, err)
		}
		if o.Herd.JSON {
			return herd.WriteJSON(out, rep)
		}
		return herd.WriteTable(out, rep)
	}
	addrs := strings.Join(d.Env().Servers, ",")
	watch := demo.WatchCommandAt(addrs, herd.DefaultRoot)
	if o.NoTUI {
		fmt.Fprintf(out, "ZooKeeper serves on %s; from another terminal: %s\n", addrs, watch)
		fmt.Fprintln(out, "Ctrl-C stops the demo and cleans up.")
		return stopped(ctx, printReleases(ctx, out, h, o.Herd.Interval))
	}
	stopIntr()
	return ui.RunHerd(ui.HerdOptions{Theme: o.Theme, Interval: o.Herd.Interval, Step: herdStep(h, d.Client()),
		Notice: "From another terminal: " + watch})
}

// herdStep is the screen's step: a round of releases (unless release is
// false), then both locks read as zkscope reads any lock.
func herdStep(h *herd.Herd, c *zkview.Client) func(ctx context.Context, release bool) (ui.HerdFrame, error) {
	return func(ctx context.Context, release bool) (ui.HerdFrame, error) {
		f := ui.HerdFrame{Contenders: h.Contenders()}
		if release {
			if _, err := h.Round(ctx); err != nil {
				return f, err
			}
		}
		queues, err := h.Queues(ctx, c)
		if err != nil {
			return f, err
		}
		for _, s := range herd.Styles {
			n, total := h.Totals(s)
			last := h.Last(s)
			f.Locks = append(f.Locks, ui.HerdLock{Name: string(s), Recipe: s.Recipe(), Path: h.Path(s),
				Queue: queues[s], Releases: n, Last: uiCounts(last.Counts), Total: uiCounts(total),
				WatchesBefore: last.WatchesBefore, WatchedNodes: last.WatchedNodes})
		}
		return f, nil
	}
}

func uiCounts(c herd.Counts) ui.HerdCounts {
	return ui.HerdCounts{Notifications: c.Notifications, ServerNotifications: c.ServerNotifications,
		Requests: c.Requests, Reads: c.Reads, Handover: c.Handover}
}

// stopped is nil when err came of ctx's end (Ctrl-C), else err.
func stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// printReleases releases each lock every interval and prints what each
// release cost, until ctx ends.
func printReleases(ctx context.Context, w io.Writer, h *herd.Herd, interval time.Duration) error {
	for ctx.Err() == nil {
		rs, err := h.Round(ctx)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.OtherWatchers > 0 {
				fmt.Fprintf(w, "%-5s release %d: %s other than the contenders' watched it too (not counted)\n", r.Lock, r.N, lockops.Plural(r.OtherWatchers, "session"))
			}
			n, total := h.Totals(r.Lock)
			fmt.Fprintf(w, "%-5s release %d: %s (the servers listed %s; %s on %s), %s (%s), next holder after %s; so far %s and %s in %s\n",
				r.Lock, r.N, lockops.Plural(r.Notifications, "notification"), lockops.Plural(r.ServerNotifications, "watcher"),
				watchesText(r.WatchesBefore), lockops.Plural(r.WatchedNodes, "node"),
				lockops.Plural(r.Requests, "request"), lockops.Plural(r.Reads, "read"), r.Handover.Round(10*time.Microsecond),
				lockops.Plural(total.Notifications, "notification"), lockops.Plural(total.Requests, "request"), lockops.Plural(n, "release"))
		}
		select {
		case <-ctx.Done():
		case <-time.After(interval):
		}
	}
	return nil
}

// watchesText is "1 watch", "4 watches".
func watchesText(n int) string {
	if n == 1 {
		return "1 watch"
	}
	return fmt.Sprintf("%d watches", n)
}
