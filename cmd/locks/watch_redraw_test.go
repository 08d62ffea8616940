package locks_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLocksWatchRedraws: `locks --watch` redraws when a contender arrives
// and stops cleanly when its context ends.
func TestLocksWatchRedraws(t *testing.T) {
	srv := zktest.Shared(t)
	c := cmdtest.Dial(t, srv.Addrs()[0])
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll)) // may exist already
	p := zktest.Path(t)
	if _, err := c.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	mk := func(uuid string) {
		t.Helper()
		if _, err := c.Create(p+"/_c_"+uuid+"-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	mk("11111111-0000-4000-8000-000000000001")

	root := cmdtest.NewRoot()
	var out cmdtest.SyncBuffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"-s", srv.ConnectString(), "locks", p, "--watch", "--interval", "1m", "--no-verify"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("--watch ended with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("--watch did not stop when its context ended")
		}
	}()
	waitOutput := func(what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(out.String(), what) {
			if time.Now().After(deadline) {
				t.Fatalf("--watch never showed %q:\n%s", what, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitOutput("1 holding, 0 waiting")
	// The redraw comes from the children watch (the interval is a minute).
	mk("22222222-0000-4000-8000-000000000002")
	waitOutput("1 holding, 1 waiting")
}

// TestLocksWatchIntervalFloor: an --interval below the floor is raised to
// it, and said so once.
func TestLocksWatchIntervalFloor(t *testing.T) {
	srv := zktest.Shared(t)
	root := cmdtest.NewRoot()
	var out cmdtest.SyncBuffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"-s", srv.ConnectString(), "locks", "/zookeeper", "--watch", "--interval", "1ms", "--no-verify"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "0 lock") && !strings.Contains(out.String(), "no locks") {
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Count(got, "--interval 1ms raised to 1s") != 1 {
		t.Errorf("no single note of the raised interval:\n%s", got)
	}
}
