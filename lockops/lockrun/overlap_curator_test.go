package lockrun

import (
	"strconv"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestCuratorPartitionOverlap measures, for comparison with
// TestCLIPartitionNoOverlap, what a real Curator 5.4 holder does after the
// same silent partition with the same 4 s session timeout: when it reports
// SUSPENDED and LOST (where an application following Curator's advice stops
// its work) against when another client gets the lock.
func TestCuratorPartitionOverlap(t *testing.T) {
	const session = 4 * time.Second
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	proxy := zktest.StartProxy(t, cl.Addrs()[0])
	lockPath := zktest.Path(t)
	cu := zktest.StartCurator(t, proxy.Addr())
	cu.Acquire(t, "holder", "mutex-timeout", lockPath, strconv.Itoa(int(session/time.Millisecond)))
	cu.Await(t, "holder", "acquired")
	other := contend(t, cl.Addrs(), lockPath, onlyChild(t, c, lockPath))

	start := time.Now()
	proxy.Blackhole()
	select {
	case <-other.got:
	case <-time.After(30 * time.Second):
		t.Fatal("the other client did not get the lock within 30 s")
	}
	if other.err != nil {
		t.Fatalf("the other client: %v", other.err)
	}
	t.Cleanup(func() { other.held.Release(t.Context()) })
	cu.Await(t, "holder", "lost")
	suspended, lost := cu.When("holder", "suspended"), cu.When("holder", "lost")
	t.Logf("Curator, silent partition, session %s: other client got the lock %s after the fault; Curator SUSPENDED at %s, LOST at %s; overlap if the application stops at LOST %s, at SUSPENDED %s",
		session, other.at.Sub(start).Round(time.Millisecond), suspended.Sub(start).Round(time.Millisecond), lost.Sub(start).Round(time.Millisecond),
		lost.Sub(other.at).Round(time.Millisecond), suspended.Sub(other.at).Round(time.Millisecond))
	if suspended.IsZero() || lost.Before(suspended) {
		t.Fatalf("Curator reported LOST at %v without SUSPENDED before it (%v)", lost, suspended)
	}
}
