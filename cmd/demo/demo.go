// Package demo is `zkscope demo`: a local ZooKeeper with live lock
// contenders (the demo package, this package's namesake), and the
// terminal UI on it, or without a terminal the queues printed every few
// seconds; signals end it and every part is cleaned up.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/demo"
	"github.com/zkscope/zkscope/ui"
)

const demoLong = `Start a local ZooKeeper (in a temporary directory, removed on exit) with
live lock contenders, and open the terminal UI on it; without a terminal the
queues are printed every few seconds instead.

With --herd, two locks with the same number of contenders take turns side
by side: a naive one (a plain ephemeral node every waiter watches: each
release wakes them all, the herd effect) and Curator's mutex (each waiter
watches only its predecessor). Each release shows the watch notifications
and requests it cost, counted by the contenders themselves and checked
against the servers' watch lists (wchc). The naive lock is what the lock
pane and 'zkscope doctor' flag as 'herd' on real clusters (docs/herd.md,
docs/locks.md). --report runs --releases releases without the TUI and
prints the totals (--json for scripts).`

const demoExample = `  zkscope demo                                  # the TUI on live Curator and kazoo locks
  zkscope demo --herd                           # the herd effect beside the predecessor chain
  zkscope demo --herd --contenders 20           # 20 contenders on each lock
  zkscope demo --herd --report                  # 10 releases each, the totals as a table
  zkscope demo --herd --report --json --releases 50 | jq '.locks[].total'`

// NewCmdDemo is `zkscope demo`. Without a terminal (output piped or
// redirected) it prints the queues instead of opening the TUI.
func NewCmdDemo(f *cmdutil.Factory) *cobra.Command {
	var h herdOptions
	cmd := &cobra.Command{
		Use:     "demo",
		Short:   "Start a local ZooKeeper with live lock contenders and open the TUI on it",
		Long:    demoLong,
		Example: demoExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := h.check(cmd.Flags()); err != nil {
				return err
			}
			return runDemo(cmd.Context(), demoOptions{
				NoTUI: !cmdutil.IsTerminal(os.Stdout), Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr(),
				Theme: f.Theme, ReadOnly: f.Flags.ReadOnly, Herd: h,
			})
		},
	}
	h.bind(cmd.Flags())
	return cmd
}

// demoOptions tune [runDemo] (tests replace the output and watch the
// environment come up).
type demoOptions struct {
	NoTUI    bool
	Out      io.Writer
	Err      io.Writer // --herd --report's progress (default os.Stderr)
	Herd     herdOptions
	Theme    string // --theme
	ReadOnly bool   // --read-only
	// Ready is called once the server serves, the tree is filled and the
	// contenders run.
	Ready func(env demo.Env)
	// PrintEvery is the pace of the --no-tui queue print (default 2s).
	PrintEvery time.Duration
	// PeerCommand makes the command running a library's own contenders
	// (default demo.LibraryCommand; a test makes a library missing).
	PeerCommand demo.PeerCommand
}

// runDemo starts the demo and opens the TUI on it (or, without a
// terminal, prints the queues every few seconds). Every part is cleaned
// up on return, on Ctrl-C and on SIGTERM/SIGHUP.
func runDemo(ctx context.Context, o demoOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Herd.On {
		return runHerd(ctx, o)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d, err := demo.New(demo.Options{Out: o.Out, ReadOnly: o.ReadOnly, PeerCommand: o.PeerCommand})
	if err != nil {
		return err
	}
	defer d.Close()
	stopIntr, stopSignals := handleSignals(ctx, cancel, d)
	defer stopSignals()
	if err := d.Start(ctx); err != nil {
		if errors.Is(err, demo.ErrStopped) {
			return nil
		}
		return err
	}
	if o.Ready != nil {
		o.Ready(d.Env())
	}
	out := o.Out
	if out == nil {
		out = os.Stdout
	}
	d.Describe(out)
	if o.NoTUI {
		fmt.Fprintln(out, "Ctrl-C stops the demo and cleans up.")
		return d.PrintQueues(ctx, out, o.PrintEvery)
	}
	stopIntr()
	err = ui.Run(ui.Options{Client: d.Client(), Context: "demo", Theme: o.Theme, ReadOnly: o.ReadOnly, Start: demo.Start, Notice: d.Env().Notice})
	switch {
	case errors.Is(err, context.Canceled):
		err = nil
	case errors.Is(err, tea.ErrInterrupted): // SIGINT from outside the terminal
		fmt.Fprintln(out, "Interrupted: stopping the demo's ZooKeeper and removing its directory.")
		err = cmdutil.ExitError{Code: 130}
	}
	return err
}

// handleSignals ends the demo on signals: SIGHUP (the terminal went away)
// always, cleaning up and exiting 129; SIGINT and SIGTERM cancel ctx
// until stopIntr is called (the TUI handles them itself and returns, and
// the deferred cleanup runs). stop ends the handling.
func handleSignals(ctx context.Context, cancel context.CancelFunc, d *demo.Demo) (stopIntr, stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	intr := make(chan os.Signal, 1)
	signal.Notify(intr, os.Interrupt, syscall.SIGTERM)
	stopIntr = sync.OnceFunc(func() { signal.Stop(intr) })
	go func() {
		select {
		case <-hup:
			d.Close()
			os.Exit(129)
		case <-intr:
			cancel()
		case <-ctx.Done():
		}
	}()
	return stopIntr, func() { stopIntr(); signal.Stop(hup) }
}
