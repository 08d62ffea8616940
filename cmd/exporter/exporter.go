// Package exporter is `zkscope exporter`: the flags checked, the clusters
// resolved from --context (or the one target), then the exporter package
// serving their locks as Prometheus metrics, or writing them to a
// textfile.
package exporter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/zkview"
)

const exporterLong = `Follow the locks of one or several clusters and serve them as Prometheus
metrics on --listen (/metrics, /healthz), or write them to --textfile for
node_exporter's textfile collector.

Each --context (repeatable) is a cluster, labelled cluster="NAME": a
ZooKeeper ensemble, whose locks at or below each PATH (default /) are
followed with children watches and a full scan every --interval, or Redis
servers, whose locks matching each --pattern (default *) are read every
--poll-interval. Without --context, the one target (--server, the current
context) is followed. Scrapes are answered from memory: they never read
ZooKeeper or Redis.

Per lock (cluster, path, recipe): holders, waiters, the holding node's age,
how long it has held where the exporter saw it begin, the oldest wait,
problems by kind and severity, Redis TTLs and Redlock masters. Per
cluster: locks followed, the last read's time and outcome, read errors,
changes applied, how it is followed. --holder-info adds who holds each
lock. See docs/exporter.md for the metrics and the alert rules.`

const exporterExample = `  zkscope exporter --context prod /app/locks
  zkscope exporter --context prod --context staging --listen 0.0.0.0:9644 --max-locks 200
  zkscope exporter -s redis://cache:6379 --pattern 'lock:*'
  zkscope exporter --context prod --once --textfile /var/lib/node_exporter/zkscope.prom   # from cron`

// exporterOptions are `zkscope exporter`'s.
type exporterOptions struct {
	Listen        string
	Contexts      []string
	Paths         []string
	Patterns      []string
	Textfile      string
	TextEvery     time.Duration
	Once          bool
	Interval      time.Duration
	PollInterval  time.Duration
	MaxLocks      int
	Include       []string
	Exclude       []string
	HolderInfo    bool
	NoVerify      bool
	MaxLeases     int
	ListenChanged bool
	Out, ErrOut   io.Writer
}

// NewCmdExporter is `zkscope exporter`.
func NewCmdExporter(f *cmdutil.Factory) *cobra.Command {
	var o exporterOptions
	cmd := &cobra.Command{
		Use:     "exporter [PATH...]",
		Short:   "Serve the locks of one or several clusters as Prometheus metrics",
		Long:    exporterLong,
		Example: exporterExample,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Out, o.ErrOut, o.Paths = cmd.OutOrStdout(), cmd.ErrOrStderr(), args
			o.ListenChanged = cmd.Flags().Changed("listen")
			return runExporter(cmd.Context(), f, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Listen, "listen", "127.0.0.1:9644", "address to serve /metrics and /healthz on")
	fl.StringArrayVar(&o.Contexts, "context", nil, "a context of the config file to follow, labelled cluster=NAME (repeatable; default: the one target)")
	fl.StringArrayVar(&o.Patterns, "pattern", nil, "Redis clusters: the key pattern of the locks to follow (repeatable; default *)")
	fl.StringVar(&o.Textfile, "textfile", "", "also write the metrics to FILE (atomically: a temporary file renamed over it), for node_exporter's textfile collector")
	fl.DurationVar(&o.TextEvery, "textfile-interval", 15*time.Second, "with --textfile: write it this often")
	fl.BoolVar(&o.Once, "once", false, "with --textfile: read each cluster once, write the file and exit (no server; for cron)")
	fl.DurationVar(&o.Interval, "interval", time.Minute, "ZooKeeper: a full scan this often (changes between them come from watches; at least 1s)")
	fl.DurationVar(&o.PollInterval, "poll-interval", 5*time.Second, "Redis: read the locks this often (at least 500ms)")
	fl.IntVar(&o.MaxLocks, "max-locks", 500, "serve at most this many locks per cluster on their own (most problems and waiters first), the rest summed as path=\"(other)\" (0: all)")
	fl.StringArrayVar(&o.Include, "include", nil, "serve only the locks whose path matches this glob or is below it (repeatable)")
	fl.StringArrayVar(&o.Exclude, "exclude", nil, "do not serve the locks whose path matches this glob or is below it (repeatable)")
	fl.BoolVar(&o.HolderInfo, "holder-info", false, "serve zkscope_lock_holder_info: each holder's node, session and client address")
	fl.BoolVar(&o.NoVerify, "no-verify", false, "ZooKeeper: do not ask the servers who is connected and watching (no watch-missing, no dead-owner)")
	fl.IntVar(&o.MaxLeases, "max-leases", 0, "semaphores' lease count (0: inferred)")
	cmd.RegisterFlagCompletionFunc("context", func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return f.CompleteContexts(cmd, nil, "")
	})
	return cmd
}

// check refuses flags that mean nothing together.
func (o *exporterOptions) check(f *cmdutil.Factory) error {
	switch {
	case len(o.Contexts) > 0 && f.Flags.Server != "":
		return cmdutil.Usagef("--server names one cluster and --context the clusters of the config file: give one or the other")
	case o.Once && o.Textfile == "":
		return cmdutil.Usagef("--once writes the metrics to --textfile once: add --textfile FILE")
	case o.Once && o.ListenChanged:
		return cmdutil.Usagef("--once serves nothing: leave --listen out, or --once to serve")
	case o.MaxLocks < 0 || o.MaxLeases < 0:
		return cmdutil.Usagef("--max-locks and --max-leases must be 0 or more")
	case o.Interval <= 0 || o.PollInterval <= 0 || o.TextEvery <= 0:
		return cmdutil.Usagef("--interval, --poll-interval and --textfile-interval must be positive")
	}
	for _, p := range o.Paths {
		if err := zkview.ValidatePath(p); err != nil {
			return cmdutil.Usagef("PATH %q: %v", p, err)
		}
	}
	if err := (exporter.Filter{Include: o.Include, Exclude: o.Exclude}).Check(); err != nil {
		return cmdutil.Usagef("--include/--exclude: %v", err)
	}
	return nil
}

// runExporter follows the clusters and serves (or writes) their metrics
// until a signal.
func runExporter(ctx context.Context, f *cmdutil.Factory, o exporterOptions) error {
	if err := o.check(f); err != nil {
		return err
	}
	clusters, sources, closeAll, err := resolveClusters(f, o)
	if err != nil {
		return err
	}
	defer closeAll()
	eo := exporter.Options{Filter: exporter.Filter{Include: o.Include, Exclude: o.Exclude}, MaxLocks: o.MaxLocks, HolderInfo: o.HolderInfo}
	text, err := exporter.Registry(clusters, eo, false)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tuneGC(ctx)
	done := make(chan struct{})
	go func() { exporter.Run(ctx, clusters, sources); close(done) }()
	defer func() { cancel(); <-done }()
	if o.Once {
		return writeOnce(ctx, o, clusters, text)
	}
	if o.Textfile != "" {
		go writeEvery(ctx, o, text)
	}
	return serve(ctx, o, clusters, eo)
}

// serve serves /metrics and /healthz on o.Listen until ctx ends.
func serve(ctx context.Context, o exporterOptions, clusters []*exporter.Cluster, eo exporter.Options) error {
	reg, err := exporter.Registry(clusters, eo, true)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", o.Listen, err)
	}
	fmt.Fprintf(o.ErrOut, "zkscope exporter: serving http://%s/metrics for %s\n", ln.Addr(), clusterNames(clusters))
	srv := &http.Server{Handler: exporter.Handler(reg, clusters), ReadHeaderTimeout: 10 * time.Second}
	if err := exporter.Serve(ctx, srv, ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// writeOnce waits until every cluster was read (or failed), writes the
// textfile and ends; status 1 when a cluster could not be read.
func writeOnce(ctx context.Context, o exporterOptions, clusters []*exporter.Cluster, g prometheus.Gatherer) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !exporter.AllRead(clusters) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	if err := exporter.WriteTextfile(o.Textfile, g); err != nil {
		return err
	}
	failed := 0
	for _, c := range clusters {
		if s := c.Status(); !s.Up {
			fmt.Fprintln(o.ErrOut, "zkscope exporter:", exporter.HealthLine(s))
			failed++
		}
	}
	if failed > 0 {
		return cmdutil.ExitError{Code: 1}
	}
	return nil
}

// writeEvery writes the textfile every o.TextEvery until ctx ends; a
// failure is said on stderr and tried again.
func writeEvery(ctx context.Context, o exporterOptions, g prometheus.Gatherer) {
	t := time.NewTicker(o.TextEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := exporter.WriteTextfile(o.Textfile, g); err != nil {
				fmt.Fprintln(o.ErrOut, "zkscope exporter: --textfile:", err)
			}
		}
	}
}

func clusterNames(clusters []*exporter.Cluster) string {
	names := make([]string, len(clusters))
	for i, c := range clusters {
		names[i] = c.Name()
	}
	return strings.Join(names, ", ")
}

// followOptions are Follow's options from o's flags.
func (o exporterOptions) followOptions() follow.Options {
	return follow.Options{MaxLeases: o.MaxLeases, NoVerify: o.NoVerify, Interval: max(o.Interval, follow.MinInterval)}
}

// paths are the ZooKeeper paths followed (/ when none given).
func (o exporterOptions) paths() []string {
	if len(o.Paths) == 0 {
		return []string{"/"}
	}
	return o.Paths
}

// patterns are the Redis key patterns followed (* when none given).
func (o exporterOptions) patterns() []string {
	if len(o.Patterns) == 0 {
		return []string{"*"}
	}
	return o.Patterns
}
