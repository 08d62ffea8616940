package scan

import (
	"context"
	"path"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestCuratorSemaphoreLocksReaped: a real Curator SemaphoreV2 whose lease
// is held with nobody queueing has an empty locks/ container, which the
// server deletes (the test servers every half second, a production server
// after its container check interval). It is still one semaphore at the
// path its users pass: the scan reports it there, and a lease node is
// inside it, not inside a lock at leases/.
func TestCuratorSemaphoreLocksReaped(t *testing.T) {
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	p := zktest.Path(t) + "/sem"
	cu := zktest.StartCurator(t, cl.ConnectString())
	cu.Acquire(t, "s1", "semaphore", p, "2")
	cu.Await(t, "s1", "acquired")
	locktest.WaitFor(t, "the server to reap the semaphore's empty locks/", time.Minute, func() bool {
		ok, _, err := c.Conn().Exists(c.Abs(p + "/" + lockops.CuratorLocks))
		return err == nil && !ok
	})

	qs, err := Scan(context.Background(), c, path.Dir(p), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Path != p || qs[0].Kind != lockops.KindCuratorSemaphoreV2 {
		t.Fatalf("scan found %d locks (%+v), want the semaphore at %s", len(qs), qs, p)
	}
	if h := len(qs[0].Holders()); h != 1 {
		t.Errorf("the semaphore has %d holders, want 1", h)
	}

	lease := zkview.Join(p+"/"+lockops.CuratorLeases, locktest.Children(t, c, p+"/"+lockops.CuratorLeases)[0])
	dir, kind, sem, err := EnclosingLock(context.Background(), c, lease)
	if err != nil || kind != lockops.KindCuratorSemaphoreV2 || sem != p {
		t.Errorf("EnclosingLock(%s) = %s %s %s %v, want the semaphore %s", lease, dir, kind, sem, err, p)
	}
}
