package lockpane

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestMain shares one real ZooKeeper between the tests that need a
// connection (the take dialog reads plans) and stops it at the end.
func TestMain(m *testing.M) { zktest.Main(m) }

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

// isQuit reports whether cmd (or a command in its batch) quits.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	msg := cmd()
	if _, ok := msg.(tea.QuitMsg); ok {
		return true
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if isQuit(c) {
				return true
			}
		}
	}
	return false
}
