package ui

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// liveDriver runs the root model like tea.Program does, without a terminal:
// commands run on goroutines, their messages come back through one channel
// and Update is applied on the caller's goroutine. Listener commands that
// block (connection state, tree events) simply stay parked until Close.
type liveDriver struct {
	m    Model
	msgs chan tea.Msg
	quit chan struct{}
	once sync.Once
}

func newLiveDriver(m Model, w, h int) *liveDriver {
	d := &liveDriver{m: m, msgs: make(chan tea.Msg, 1024), quit: make(chan struct{})}
	d.apply(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(m.Init())
	return d
}

// run executes cmd (and batches) in the background.
func (d *liveDriver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		d.deliver(msg)
	}()
}

func (d *liveDriver) deliver(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
		return
	case tea.QuitMsg:
		return
	}
	select {
	case d.msgs <- msg:
	case <-d.quit:
	}
}

// apply runs one message through Update and starts its command.
func (d *liveDriver) apply(msg tea.Msg) {
	nm, cmd := d.m.Update(msg)
	d.m = nm.(Model)
	d.run(cmd)
}

// screen is the current frame without styling.
func (d *liveDriver) screen() string { return ansi.Strip(d.m.View().Content) }

// until applies arriving messages until cond holds for the model, or fails
// the test after timeout.
func (d *liveDriver) until(tb testing.TB, timeout time.Duration, what string, cond func(*liveDriver) bool) {
	tb.Helper()
	if cond(d) {
		return
	}
	deadline := time.After(timeout)
	for {
		select {
		case msg := <-d.msgs:
			d.apply(msg)
			if cond(d) {
				return
			}
		case <-deadline:
			tb.Fatalf("waited %s for %s; screen:\n%s", timeout, what, d.screen())
		}
	}
}

// drain applies whatever messages are already waiting.
func (d *liveDriver) drain() {
	for {
		select {
		case msg := <-d.msgs:
			d.apply(msg)
		default:
			return
		}
	}
}

func (d *liveDriver) Close() {
	d.once.Do(func() {
		close(d.quit)
		d.m.Close()
	})
}

// liveClient connects to the package's shared server.
func liveClient(tb testing.TB) *zkview.Client {
	tb.Helper()
	cl := zktest.Shared(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := zkview.Connect(ctx, zkview.Config{Servers: cl.Addrs(), SessionTimeout: 20 * time.Second})
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	tb.Cleanup(c.Close)
	return c
}

// liveCreate creates p with data (flags as zk.Flag*).
func liveCreate(tb testing.TB, conn *zk.Conn, p string, data []byte, flags int32) string {
	tb.Helper()
	got, err := conn.Create(p, data, flags, zk.WorldACL(zk.PermAll))
	if err != nil {
		tb.Fatalf("create %s: %v", p, err)
	}
	return got
}

// liveBigDir makes a node with n children.
func liveBigDir(tb testing.TB, conn *zk.Conn, dir string, n int) {
	tb.Helper()
	zktest.FillChildren(tb, conn, dir, n,
		func(i int) string { return fmt.Sprintf("node-%07d", i) },
		func(int) []byte { return []byte("x") }, 0)
}
