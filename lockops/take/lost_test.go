package take_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/lockops/take/taketest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLostStaysLost: a standalone server is stopped for longer than the
// session timeout and restarted on the same data, which brings our session
// back. The lock was declared lost meanwhile, so zkscope deletes our node
// at once and says so; Release after LOST does not prevent it. The session
// comes back only if zkscope reconnects within a session timeout of the
// server's restart: 10s leaves a loaded machine room (with 4s the server
// expired it first).
func TestLostStaysLost(t *testing.T) {
	// The scenario needs the session back, which a loaded machine may not
	// give in time (the restarted server expires it first): then it is
	// run again with a longer session timeout, not failed.
	for _, sessionTimeout := range []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second} {
		if lostStaysLost(t, sessionTimeout) {
			return
		}
		t.Logf("the session expired before zkscope reconnected (timeout %s): again with a longer one", sessionTimeout)
	}
	t.Fatal("the session never came back after the server's restart, with timeouts up to 40s")
}

// lostStaysLost runs the scenario once; false: the session expired before
// it could come back (no verdict).
func lostStaysLost(t *testing.T, sessionTimeout time.Duration) bool {
	t.Helper()
	auditLog := audittest.ToTemp(t)
	cl := zktest.StartStandalone(t, zktest.Options{})
	srv := cl.Servers[0]
	c := locktest.NewClient(t, cl.Addrs(), func(cfg *zkview.Config) { cfg.SessionTimeout = sessionTimeout })
	lockPath := "/locks/lost-stays-lost"
	h, err := take.Take(context.Background(), c, lockPath, take.Options{Library: lockops.Curator})
	if err != nil {
		t.Fatal(err)
	}
	changes := h.Changes()
	srv.Kill()
	down := time.Now()
	select {
	case <-h.LostCh():
	case <-time.After(30 * time.Second):
		t.Fatalf("no LOST while the server is down; state %s", h.State())
	}
	if lostAfter := time.Since(down); lostAfter > sessionTimeout {
		t.Fatalf("LOST %s after the server went down, later than the session timeout", lostAfter)
	}
	if err := h.Release(context.Background()); !errors.Is(err, hold.ErrLost) {
		t.Fatalf("release after LOST: %v, want ErrLost", err)
	}
	// The scenario: the server stays down for longer than the session
	// timeout (this is the fault being tested, not a wait for a condition).
	time.Sleep(time.Until(down.Add(sessionTimeout + time.Second)))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitServing(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	var deleted hold.Change
	// A deadline, not a pause: on a loaded machine the restarted server
	// may take a while to take its old sessions back.
	timeout := time.After(90 * time.Second)
	for deleted.Reason == "" {
		select {
		case ch, ok := <-changes:
			if !ok {
				if c.SessionID() != h.Session {
					return false // expired, not brought back: no verdict
				}
				t.Fatalf("changes closed without the deletion; session 0x%x is ours", uint64(c.SessionID()))
			}
			if ch.NodeDeleted {
				deleted = ch
			}
		case <-timeout:
			t.Fatalf("our node was not deleted after the session came back; session 0x%x (ours 0x%x), state %s", uint64(c.SessionID()), uint64(h.Session), c.State().State)
		}
	}
	if c.SessionID() != h.Session {
		t.Fatalf("session 0x%x, want ours 0x%x back", uint64(c.SessionID()), uint64(h.Session))
	}
	if !strings.Contains(deleted.Reason, "deleted our node") {
		t.Fatalf("reason %q", deleted.Reason)
	}
	if kids := locktest.Children(t, c, lockPath); len(kids) != 0 {
		t.Fatalf("nodes left: %v", kids)
	}
	if !audittest.Has(audittest.Read(t, auditLog), hold.OpDeleteLost, audit.OK, h.Node) {
		t.Fatal("the deletion is not in the audit log")
	}
	t.Logf("%s", deleted.Reason)
	return true
}

// TestTakeLostPlaceSaysRejoin: a wait whose session ends fails with
// ErrLost and says that the place in the queue is lost and how to rejoin.
func TestTakeLostPlaceSaysRejoin(t *testing.T) {
	cl := zktest.Shared(t)
	lockPath := zktest.Path(t)
	holder := locktest.NewClient(t, cl.Addrs())
	h, err := take.Take(context.Background(), holder, lockPath, take.Options{Library: lockops.Curator})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release(context.Background())
	waiter := locktest.NewClient(t, cl.Addrs())
	a := taketest.TakeAsync(context.Background(), waiter, lockPath, take.Options{})
	a.WaitingOn(t, h.Node)
	locktest.CloseSessionAs(t, cl.Addrs(), waiter.Conn())
	_, err = a.Wait(t)
	t.Logf("%v", err)
	if !errors.Is(err, hold.ErrLost) || !strings.Contains(err.Error(), "our place in the queue of "+lockPath+" is lost") || !strings.Contains(err.Error(), "rejoin") {
		t.Fatalf("wait cut by the session's end: %v", err)
	}
}
