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

// NewCmdDemo is `zkscope demo`. Without a terminal (output piped or
// redirected) it prints the queues instead of opening the TUI.
func NewCmdDemo(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Start a local ZooKeeper with live lock contenders and open the TUI on it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), demoOptions{
				NoTUI: !cmdutil.IsTerminal(os.Stdout), Out: cmd.OutOrStdout(),
				Theme: f.Theme, ReadOnly: f.Flags.ReadOnly,
			})
		},
	}
}

// demoOptions tune [runDemo] (tests replace the output and watch the
// environment come up).
type demoOptions struct {
	NoTUI    bool
	Out      io.Writer
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
