package take

import (
	"context"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestDemoContenders: the demo builds real queues (a holder and waiters)
// in every demo lock, keeps the audit log clean, and leaves no lock node
// once stopped.
func TestDemoContenders(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunDemoContenders(ctx, cl.Addrs(), root) }()
	defer func() {
		cancel()
		<-done
	}()
	obs := locktest.NewClient(t, cl.Addrs())
	for _, l := range DemoLocks(root) {
		locktest.WaitFor(t, "a queue in "+l.Path, 60*time.Second, func() bool {
			return len(locktest.Children(t, obs, l.Path)) >= 2
		})
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("RunDemoContenders did not return after cancel")
	}
	done <- nil // for the deferred receive
	for _, l := range DemoLocks(root) {
		locktest.WaitFor(t, "the demo nodes in "+l.Path+" to go", 30*time.Second, func() bool {
			return len(locktest.Children(t, obs, l.Path)) == 0
		})
	}
	if e := audittest.Read(t, auditLog); len(e) != 0 {
		t.Fatalf("the demo wrote to the audit log: %+v", e)
	}
}
