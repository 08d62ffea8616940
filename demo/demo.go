// Package demo is what `zkscope demo` runs: a local ZooKeeper in a
// temporary directory (started by zkview/zkserver), a small realistic tree,
// and live lock contenders — Curator's and kazoo's own clients in a Java
// and a Python process where they are installed, zkscope processes
// writing their formats where not — and the queues printed as text. The
// terminal UI and signals are the command's (cmd/demo).
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zkserver"
)

// LocksRoot is where the demo's live contenders fight.
const LocksRoot = "/app/locks"

// Start is the lock the terminal UI opens on.
const Start = LocksRoot + "/curator-mutex"

// InstallHint is the one command that makes `zkscope demo` work here:
// Homebrew's on macOS, else Debian's (with sudo unless we are root).
func InstallHint() string {
	switch {
	case runtime.GOOS == "darwin":
		return "brew install zookeeper"
	case os.Geteuid() == 0:
		return "apt-get install -y zookeeper"
	}
	return "sudo apt-get install -y zookeeper"
}

// Options tune a [Demo].
type Options struct {
	// Out is where it says what it starts (default os.Stdout).
	Out io.Writer
	// ReadOnly connects its client read-only.
	ReadOnly bool
	// PeerCommand makes the command running a library's own contenders
	// (default [LibraryCommand]; a test makes a library missing).
	PeerCommand PeerCommand
}

// Env is what the demo started.
type Env struct {
	Dir     string
	Servers []string
	// Peers are the processes of the libraries' own contenders; Notice
	// is what the TUI's status line says first ("" nothing).
	Peers  []*os.Process
	Notice string
}

// Demo is one demo: its directory, server, client and contenders. Every
// part is cleaned up by [Demo.Close], which may be called at any time,
// from any goroutine (a signal's), and more than once.
type Demo struct {
	o      Options
	dir    string
	ctx    context.Context // ends with Close
	cancel context.CancelFunc

	mu        sync.Mutex
	cluster   *zkserver.Cluster
	peers     *contenders // the libraries' own processes
	client    *zkview.Client
	wg        sync.WaitGroup
	fakes     chan error // zkscope's contenders' end
	closeOnce sync.Once
}

// New makes the demo's temporary directory; nothing runs yet.
func New(o Options) (*Demo, error) {
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.PeerCommand == nil {
		o.PeerCommand = LibraryCommand
	}
	dir, err := os.MkdirTemp("", "zkscope-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: temporary directory: %w", err)
	}
	d := &Demo{o: o, dir: dir, fakes: make(chan error, 1)}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	return d, nil
}

// ErrStopped is [Demo.Start]'s error when ctx ended as the server came
// up: there is nothing to show.
var ErrStopped = errors.New("demo stopped while starting")

// Start starts a local ZooKeeper, fills it with the demo's tree, starts
// the contenders and waits (briefly) for every lock's first one, so a
// screen opens on live queues. The demo stops when ctx ends.
func (d *Demo) Start(ctx context.Context) error {
	context.AfterFunc(ctx, d.cancel)
	fmt.Fprintf(d.o.Out, "Starting a local ZooKeeper in %s…\n", d.dir)
	if err := d.startServer(); err != nil {
		return err
	}
	if d.ctx.Err() != nil {
		return ErrStopped
	}
	c, err := d.connect()
	if err != nil {
		return err
	}
	if err := fillTree(c); err != nil {
		return fmt.Errorf("demo: fill the tree: %w", err)
	}
	fmt.Fprintln(d.o.Out, "Starting the lock contenders (Curator's and kazoo's own clients where installed)…")
	cs := startContenders(d.ctx, d.o.PeerCommand, d.dir, strings.Join(d.servers(), ","), take.DemoLocks(LocksRoot))
	d.mu.Lock()
	d.peers = cs
	d.mu.Unlock()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.fakes <- take.RunDemoLocks(d.ctx, d.servers(), cs.rest) // zkscope stands in for the others
	}()
	for _, l := range take.DemoLocks(LocksRoot) {
		waitForContender(d.ctx, c, l.Path, 15*time.Second)
	}
	return nil
}

// StartServer starts the local ZooKeeper and the demo's own client only:
// no tree, no contenders (`demo --herd` brings its own). The demo stops
// when ctx ends.
func (d *Demo) StartServer(ctx context.Context) error {
	context.AfterFunc(ctx, d.cancel)
	fmt.Fprintf(d.o.Out, "Starting a local ZooKeeper in %s…\n", d.dir)
	if err := d.startServer(); err != nil {
		return err
	}
	if d.ctx.Err() != nil {
		return ErrStopped
	}
	d.mu.Lock()
	d.peers = &contenders{}
	d.mu.Unlock()
	_, err := d.connect()
	return err
}

// startServer starts the demo's standalone ZooKeeper in its directory.
func (d *Demo) startServer() error {
	cl, err := zkserver.Launch(1, zkserver.Options{TickTime: 500, MaxSessionTimeout: 30000}, d.dir)
	if err != nil {
		if errors.Is(err, zkserver.ErrNotInstalled) {
			return fmt.Errorf("demo needs a local ZooKeeper install (%s); install it with: %s (or set ZOOKEEPER_HOME to an Apache ZooKeeper release)", firstLine(err), InstallHint())
		}
		return fmt.Errorf("demo: start ZooKeeper: %w (its log is in %s)", err, d.dir)
	}
	d.mu.Lock()
	d.cluster = cl
	d.mu.Unlock()
	return nil
}

// connect opens the demo's own client on its server.
func (d *Demo) connect() (*zkview.Client, error) {
	cfg := zkview.Config{Servers: d.servers(), SessionTimeout: 10 * time.Second, Context: "demo", ReadOnly: d.o.ReadOnly}
	cctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
	defer cancel()
	c, err := zkview.Connect(cctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("demo: connect to the local ZooKeeper: %w", err)
	}
	d.mu.Lock()
	d.client = c
	d.mu.Unlock()
	return c, nil
}

// servers are the client addresses of the demo's server.
func (d *Demo) servers() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cluster.Addrs()
}

// Client is the demo's own client on its server (after [Demo.Start]).
func (d *Demo) Client() *zkview.Client {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.client
}

// Env is what the demo started (after [Demo.Start]).
func (d *Demo) Env() Env {
	d.mu.Lock()
	defer d.mu.Unlock()
	env := Env{Dir: d.dir, Servers: d.cluster.Addrs(), Notice: d.peers.notice()}
	for _, p := range d.peers.peers {
		env.Peers = append(env.Peers, p.cmd.Process)
	}
	return env
}

// Describe writes where the demo's server serves, who contends on its
// locks and the command that watches them from another terminal.
func (d *Demo) Describe(w io.Writer) {
	env := d.Env()
	addrs := strings.Join(env.Servers, ",")
	fmt.Fprintf(w, "ZooKeeper serves on %s; live contenders below %s:\n", addrs, LocksRoot)
	d.mu.Lock()
	lines := d.peers.lines
	d.mu.Unlock()
	for _, l := range lines {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintf(w, "From another terminal: %s\n", WatchCommand(addrs))
}

// Close stops the contenders (their sessions close while the server
// runs), the server, and removes the demo's directory.
func (d *Demo) Close() {
	d.closeOnce.Do(func() {
		d.cancel()
		d.wg.Wait()
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.client != nil {
			d.client.Close()
		}
		if d.peers != nil {
			d.peers.stop()
		}
		if d.cluster != nil {
			d.cluster.Stop()
		}
		os.RemoveAll(d.dir)
	})
}

// firstLine is the first line of err.
func firstLine(err error) string {
	return strings.SplitN(err.Error(), "\n", 2)[0]
}
