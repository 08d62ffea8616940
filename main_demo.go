package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/ui"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// demoLocksRoot is where the demo's live contenders fight.
const demoLocksRoot = "/app/locks"

// demoInstallHint is the one command that makes `zkscope demo` work here:
// Homebrew's on macOS, else Debian's (with sudo unless we are root).
func demoInstallHint() string {
	switch {
	case runtime.GOOS == "darwin":
		return "brew install zookeeper"
	case os.Geteuid() == 0:
		return "apt-get install -y zookeeper"
	}
	return "sudo apt-get install -y zookeeper"
}

// demoOptions tune [runDemo] (tests replace the output and watch the
// environment come up).
type demoOptions struct {
	NoTUI bool
	Out   io.Writer
	// Ready is called once the server serves, the tree is filled and the
	// contenders run.
	Ready func(env demoEnv)
	// PrintEvery is the pace of the --no-tui queue print (default 2s).
	PrintEvery time.Duration
	// PeerCommand makes the command running a library's own contenders
	// (default demoPeerCommand; a test makes a library missing).
	PeerCommand peerCommand
}

// demoEnv is what the demo started.
type demoEnv struct {
	Dir     string
	Servers []string
	// Peers are the processes of the libraries' own contenders; Notice
	// is what the TUI's status line says first ("" nothing).
	Peers  []*os.Process
	Notice string
}

// demoRunE is the demo subcommand's RunE (main.go). Without a terminal
// (output piped or redirected) it prints the queues instead of the TUI.
func demoRunE(cmd *cobra.Command, _ []string) error {
	return runDemo(cmd.Context(), demoOptions{NoTUI: !isTerminal(os.Stdout), Out: cmd.OutOrStdout()})
}

// runDemo starts a local ZooKeeper in a temporary directory, fills it with
// a small realistic tree, starts live lock contenders and opens the TUI on
// it (or, without a terminal, prints the queues every few seconds). Every
// part is cleaned up on return, on Ctrl-C and on SIGTERM/SIGHUP.
func runDemo(ctx context.Context, o demoOptions) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	out := o.Out
	if out == nil {
		out = os.Stdout
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	dir, err := os.MkdirTemp("", "zkscope-demo-")
	if err != nil {
		return fmt.Errorf("demo: temporary directory: %w", err)
	}
	var (
		cleanOnce sync.Once
		cluster   *zktest.Cluster
		peers     *demoContenders // the libraries' own processes
		clusterMu sync.Mutex
		wg        sync.WaitGroup
	)
	cleanup := func() {
		cleanOnce.Do(func() {
			cancel()
			wg.Wait()
			clusterMu.Lock()
			if peers != nil {
				peers.stop() // their sessions close while the server runs
			}
			if cluster != nil {
				cluster.Stop()
			}
			clusterMu.Unlock()
			os.RemoveAll(dir)
		})
	}
	defer cleanup()

	// Signals: SIGHUP (the terminal went away) always ends the demo; SIGINT
	// and SIGTERM too, except while the TUI runs (it handles them itself
	// and returns, and the deferred cleanup runs).
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	intr := make(chan os.Signal, 1)
	signal.Notify(intr, os.Interrupt, syscall.SIGTERM)
	stopIntr := sync.OnceFunc(func() { signal.Stop(intr) })
	defer stopIntr()
	go func() {
		select {
		case <-hup:
			cleanup()
			os.Exit(129)
		case <-intr:
			cancel()
		case <-ctx.Done():
		}
	}()

	fmt.Fprintf(out, "Starting a local ZooKeeper in %s…\n", dir)
	cl, err := zktest.Launch(1, zktest.Options{TickTime: 500, MaxSessionTimeout: 30000}, dir)
	if err != nil {
		if strings.Contains(err.Error(), "not installed") || strings.Contains(err.Error(), "missing") || strings.Contains(err.Error(), "ZOOKEEPER_HOME") {
			return fmt.Errorf("demo needs a local ZooKeeper install (%s); install it with: %s (or set ZOOKEEPER_HOME to an Apache ZooKeeper release)", firstLine(err), demoInstallHint())
		}
		return fmt.Errorf("demo: start ZooKeeper: %w (its log is in %s)", err, dir)
	}
	clusterMu.Lock()
	cluster = cl
	clusterMu.Unlock()
	if ctx.Err() != nil {
		return nil
	}
	servers := cl.Addrs()
	cfg := zkview.Config{Servers: servers, SessionTimeout: 10 * time.Second, Context: "demo", ReadOnly: conn.ReadOnly}
	cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
	c, err := zkview.Connect(cctx, cfg)
	ccancel()
	if err != nil {
		return fmt.Errorf("demo: connect to the local ZooKeeper: %w", err)
	}
	defer c.Close()
	if err := fillDemoTree(c); err != nil {
		return fmt.Errorf("demo: fill the tree: %w", err)
	}
	fmt.Fprintln(out, "Starting the lock contenders (Curator's and kazoo's own clients where installed)…")
	if o.PeerCommand == nil {
		o.PeerCommand = demoPeerCommand
	}
	cs := startDemoContenders(ctx, o.PeerCommand, dir, strings.Join(servers, ","), take.DemoLocks(demoLocksRoot))
	clusterMu.Lock()
	peers = cs
	clusterMu.Unlock()
	contenders := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		contenders <- take.RunDemoLocks(ctx, servers, cs.rest) // zkscope stands in for the others
	}()
	// Open on live queues: wait (briefly) for every demo lock's first
	// contender.
	for _, l := range take.DemoLocks(demoLocksRoot) {
		waitForContender(ctx, c, l.Path, 15*time.Second)
	}
	if o.Ready != nil {
		env := demoEnv{Dir: dir, Servers: servers, Notice: cs.notice()}
		for _, p := range cs.peers {
			env.Peers = append(env.Peers, p.cmd.Process)
		}
		o.Ready(env)
	}

	addrs := strings.Join(servers, ",")
	fmt.Fprintf(out, "ZooKeeper serves on %s; live contenders below %s:\n", addrs, demoLocksRoot)
	for _, l := range cs.lines {
		fmt.Fprintln(out, "  "+l)
	}
	fmt.Fprintf(out, "From another terminal: %s\n", demoWatchCommand(addrs))
	if o.NoTUI {
		fmt.Fprintln(out, "Ctrl-C stops the demo and cleans up.")
		return printDemoQueues(ctx, c, out, o.PrintEvery, contenders)
	}
	stopIntr()
	err = ui.Run(ui.Options{Client: c, Context: "demo", Theme: themeName, ReadOnly: conn.ReadOnly, Start: demoLocksRoot + "/curator-mutex", Notice: cs.notice()})
	switch {
	case errors.Is(err, context.Canceled):
		err = nil
	case errors.Is(err, tea.ErrInterrupted): // SIGINT from outside the terminal
		fmt.Fprintln(out, "Interrupted: stopping the demo's ZooKeeper and removing its directory.")
		err = exitError{code: 130}
	}
	return err
}

// printDemoQueues prints every demo lock's queue every few seconds until
// ctx ends.
func printDemoQueues(ctx context.Context, c *zkview.Client, out io.Writer, every time.Duration, contenders <-chan error) error {
	if every <= 0 {
		every = 2 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(out, "Stopping the demo…")
			return nil
		case err := <-contenders:
			if err != nil {
				return fmt.Errorf("demo contenders: %w", err)
			}
		case <-t.C:
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			qs, err := scan.Scan(sctx, c, demoLocksRoot, scan.Options{})
			cancel()
			if err != nil && !errors.Is(err, scan.ErrTruncated) {
				if ctx.Err() != nil {
					continue
				}
				fmt.Fprintf(out, "could not read the locks: %v\n", err)
				continue
			}
			fmt.Fprintf(out, "— %s\n", time.Now().Format("15:04:05"))
			for _, q := range qs {
				fmt.Fprintf(out, "%-24s %s\n", strings.TrimPrefix(q.Path, demoLocksRoot+"/"), demoQueueLine(q))
			}
		}
	}
}

// demoQueueLine is one queue in a line: "holds: 0000000004(write) · waits: …".
func demoQueueLine(q lockops.Queue) string {
	var hold, wait []string
	for _, p := range q.Participants {
		s := fmt.Sprintf("%s(%s)", seqOf(p), p.Mode)
		if p.State == lockops.StateHolding {
			hold = append(hold, s)
		} else {
			wait = append(wait, s)
		}
	}
	line := fmt.Sprintf("%-16s holds: %s", q.Kind, strings.Join(hold, " "))
	if len(wait) > 0 {
		line += " · waits: " + strings.Join(wait, " ")
	}
	return line
}

func seqOf(p lockops.Participant) string {
	if p.HasSeq {
		return fmt.Sprintf("%010d", p.Seq)
	}
	return p.Name
}

// fillDemoTree writes a small realistic tree: application config (JSON),
// service registrations (ephemeral, like a service registry's), binary and
// gzip-compressed data, and a forgotten persistent lock node.
func fillDemoTree(c *zkview.Client) error {
	conn := c.Conn()
	acl := zk.WorldACL(zk.PermAll)
	create := func(p string, data []byte, flags int32) error {
		_, err := conn.Create(c.Abs(p), data, flags, acl)
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", p, err)
		}
		return nil
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte(`{"plan":"rolling","batches":[["web-1","web-2"],["web-3"]],"paused":false}` + "\n"))
	zw.Close()
	nodes := []struct {
		path  string
		data  string
		raw   []byte
		flags int32
	}{
		{path: "/app"},
		{path: "/app/config", data: `{"service":"billing","replicas":3,"db":{"host":"db.internal","pool":20},"features":{"invoices-v2":true,"dark-launch":false}}`},
		{path: "/app/feature-flags", data: `{"checkout.newFlow":{"enabled":true,"percent":25},"search.fuzzy":{"enabled":false}}`},
		{path: "/app/deploy-plan", raw: zipped.Bytes()},
		{path: "/app/session-key", raw: []byte{0x8f, 0x1c, 0x00, 0xa7, 0x42, 0xde, 0xad, 0xbe, 0xef, 0x10, 0x03, 0x7e, 0xff, 0x00, 0x19, 0x64}},
		{path: "/app/leader", data: "web-2.internal:8080"},
		{path: "/app/locks"},
		// The live locks' directories exist before their contenders
		// connect, so the TUI can open on one however slowly they come.
		{path: "/app/locks/curator-mutex"},
		{path: "/app/locks/curator-rwlock"},
		{path: "/app/locks/kazoo-lock"},
		{path: "/app/locks/nightly-report"},
		// A lock node nobody will ever release: persistent (a bug in a
		// hand-written lock), for the problem badges.
		{path: "/app/locks/nightly-report/_c_6f1d2a40-94b7-4e0c-8a51-3c2d9e7b1f00-lock-", data: "report-runner@batch-3", flags: zk.FlagSequence},
		{path: "/services"},
		{path: "/services/billing"},
		{path: "/services/billing/instances"},
		{path: "/services/billing/instances/web-1", data: `{"host":"10.0.3.11","port":8080,"zone":"eu-west-1a","version":"2.14.0"}`, flags: zk.FlagEphemeral},
		{path: "/services/billing/instances/web-2", data: `{"host":"10.0.3.12","port":8080,"zone":"eu-west-1b","version":"2.14.0"}`, flags: zk.FlagEphemeral},
		{path: "/services/billing/instances/web-3", data: `{"host":"10.0.3.13","port":8080,"zone":"eu-west-1c","version":"2.13.2"}`, flags: zk.FlagEphemeral},
		{path: "/services/search"},
		{path: "/services/search/instances"},
		{path: "/services/search/instances/member_", data: `{"host":"10.0.4.21","port":9200}`, flags: zk.FlagEphemeral | zk.FlagSequence},
		{path: "/services/search/instances/member_", data: `{"host":"10.0.4.22","port":9200}`, flags: zk.FlagEphemeral | zk.FlagSequence},
		{path: "/jobs"},
		{path: "/jobs/queue"},
	}
	for _, n := range nodes {
		data := n.raw
		if data == nil && n.data != "" {
			data = []byte(n.data)
		}
		if err := create(n.path, data, n.flags); err != nil {
			return err
		}
	}
	for i := range 5 {
		if err := create(fmt.Sprintf("/jobs/queue/job-%010d", i), []byte(fmt.Sprintf(`{"id":%d,"kind":"invoice-batch"}`, 4100+i)), 0); err != nil {
			return err
		}
	}
	return nil
}

// waitForContender waits until the lock directory p has a child (or
// timeout, or ctx ends).
func waitForContender(ctx context.Context, c *zkview.Client, p string, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for ctx.Err() == nil && time.Now().Before(deadline) {
		kids, _, ch, err := c.Conn().ChildrenW(c.Abs(p))
		if err == nil && len(kids) > 0 {
			return
		}
		if err != nil {
			ch = nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// isTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one too).
func isTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(f.Fd())
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.Index(s, " (install with"); i >= 0 {
		s = s[:i]
	}
	return strings.SplitN(s, "\n", 2)[0]
}
