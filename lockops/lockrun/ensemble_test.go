package lockrun

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/lockops/take/taketest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// followers returns the running members that report Mode: follower.
func followers(t *testing.T, cl *zktest.Cluster) []*zktest.Server {
	t.Helper()
	var out []*zktest.Server
	for _, s := range cl.Servers {
		if !s.Running() {
			continue
		}
		if srvr, err := zktest.FourLetterWord(s.ClientAddr, "srvr", 2*time.Second); err == nil && zktest.Mode(srvr) == "follower" {
			out = append(out, s)
		}
	}
	return out
}

// nextChange waits for the next state change on ch.
func nextChange(t *testing.T, ch <-chan hold.Change, want hold.State) hold.Change {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case c, ok := <-ch:
			if !ok {
				t.Fatalf("changes closed before %s", want)
			}
			if c.State == want {
				return c
			}
		case <-timeout:
			t.Fatalf("no %s state within 60s", want)
		}
	}
}

// TestHeldAcrossEnsembleFailures holds locks on a real 3-member ensemble
// while members die, sessions end and members freeze.
func TestHeldAcrossEnsembleFailures(t *testing.T) {
	audittest.ToTemp(t)
	cl := zktest.StartEnsemble(t, 3, zktest.Options{})
	ctx := context.Background()

	// The member we are connected to is killed: SUSPENDED, then held again
	// on another member with the same session and node.
	t.Run("member killed then reconnect", func(t *testing.T) {
		fs := followers(t, cl)
		if len(fs) < 2 {
			t.Fatalf("want 2 followers, have %d", len(fs))
		}
		c := locktest.NewClient(t, []string{fs[0].ClientAddr, fs[1].ClientAddr}, func(c *zkview.Config) { c.SessionTimeout = 20 * time.Second })
		h, err := take.Take(ctx, c, "/locks/failover", take.Options{Library: lockops.Curator})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Release(ctx)
		changes := h.Changes()
		victim := cl.ByAddr(c.Server())
		if victim == nil {
			t.Fatalf("connected to unknown member %q", c.Server())
		}
		victim.Kill()
		defer func() {
			if err := victim.Start(); err != nil {
				t.Fatal(err)
			}
			if err := victim.WaitServing(60 * time.Second); err != nil {
				t.Fatal(err)
			}
		}()
		sus := nextChange(t, changes, hold.StateSuspended)
		if !strings.Contains(sus.Reason, "disconnected") {
			t.Fatalf("suspended reason %q", sus.Reason)
		}
		nextChange(t, changes, hold.StateHeld)
		if c.SessionID() != h.Session || c.Server() == victim.ClientAddr {
			t.Fatalf("after reconnect: session 0x%x (held 0x%x), server %s", c.SessionID(), h.Session, c.Server())
		}
		if _, st, err := c.Conn().Get(h.Node); err != nil || st.EphemeralOwner != h.Session {
			t.Fatalf("our node after reconnect: %v %+v", err, st)
		}
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})

	// The session is closed by the server (as on expiry): LOST at once,
	// never held again, and the client is on a new session.
	t.Run("session ended is lost", func(t *testing.T) {
		c := locktest.NewClient(t, cl.Addrs())
		other := locktest.NewClient(t, cl.Addrs())
		h, err := take.Take(ctx, c, "/locks/expiry", take.Options{Library: lockops.Curator})
		if err != nil {
			t.Fatal(err)
		}
		changes := h.Changes()
		waiter := taketest.TakeAsync(ctx, other, "/locks/expiry", take.Options{})
		waiter.WaitingOn(t, h.Node)
		locktest.CloseSessionAs(t, cl.Addrs(), c.Conn())
		select {
		case <-h.LostCh():
		case <-time.After(60 * time.Second):
			t.Fatalf("session end not noticed; state %s", h.State())
		}
		// The old connection is dropped when the session is re-attached
		// elsewhere, so a suspended/held blip may come first; Lost is last
		// and final.
		var last hold.Change
		for ch := range changes {
			last = ch
		}
		if last.State != hold.StateLost {
			t.Fatalf("last change %+v, want lost", last)
		}
		if h.State() != hold.StateLost {
			t.Fatalf("state %s, want lost", h.State())
		}
		wh, err := waiter.Wait(t)
		if err != nil {
			t.Fatalf("the waiter did not get the lock: %v", err)
		}
		wh.Release(ctx)
		if err := h.Release(ctx); err == nil {
			t.Fatal("release of a lost lock must say so")
		}
		// The client went on with a new session: a lock taken in it is held,
		// not mistaken for lost because the connection announced a new
		// session earlier.
		locktest.WaitFor(t, "the client's new session", 60*time.Second, func() bool {
			st := c.State()
			return st.State == zkview.StateConnected && st.SessionID != h.Session
		})
		h3, err := take.Take(ctx, c, "/locks/expiry", take.Options{Library: lockops.Curator})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.Conn().Set(h3.Node, lockops.RevokeMessage, -1); err != nil {
			t.Fatal(err)
		}
		select {
		case <-h3.RevokeCh():
		case <-time.After(30 * time.Second):
			t.Fatal("the new lock's monitor is not running")
		}
		if h3.State() != hold.StateHeld {
			t.Fatalf("lock taken in the new session: %s (%s)", h3.State(), h3.Reason())
		}
		if err := h3.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})

	// `zkscope lock -- CMD` connected to one member that freezes for longer
	// than the session timeout: the lock must be treated as lost, CMD is
	// stopped and zkscope exits 75.
	t.Run("cli frozen member stops command", func(t *testing.T) {
		fs := followers(t, cl)
		if len(fs) == 0 {
			t.Fatal("no follower")
		}
		member := fs[0]
		state := t.TempDir()
		cmd := locktest.ZkscopeCmd(t, state, member.ClientAddr, "lock", "/locks/frozen", "--recipe", "curator", "--kill-grace", "30s", "--",
			"sh", "-c", "echo started; sleep 600 & wait")
		stderr, exited := locktest.StartUnderLock(t, cmd)
		if err := member.Pause(); err != nil {
			t.Fatal(err)
		}
		defer member.Resume()
		select {
		case <-exited:
		case <-time.After(90 * time.Second):
			t.Fatalf("zkscope did not stop the command; stderr:\n%s", stderr.String())
		}
		if code := cmd.ProcessState.ExitCode(); code != ExitLost {
			t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitLost, stderr.String())
		}
		if s := stderr.String(); !strings.Contains(s, "SUSPENDED") || !strings.Contains(s, "LOST the lock") {
			t.Fatalf("stderr lacks SUSPENDED/LOST:\n%s", s)
		}
	})
}
