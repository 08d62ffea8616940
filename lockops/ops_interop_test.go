package lockops

// Interop: zkscope's locks against the real libraries (Curator 5.4 from
// /usr/share/java, kazoo 2.8 for /usr/bin/python3), run by zktest's peers.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// peer is one real-library contender (its own process and session).
type peer struct {
	procs *zktest.Peers
}

// startPeer starts a real Curator ("mutex", "read", "write") or kazoo
// ("lock", "read", "write") contender on lockPath and waits until it is
// about to queue.
func startPeer(t *testing.T, lib, servers, lockPath, kind string) *peer {
	t.Helper()
	var procs *zktest.Peers
	if lib == "curator" {
		procs = zktest.StartCurator(t, servers)
	} else {
		procs = zktest.StartKazoo(t, servers)
	}
	procs.Acquire(t, "p", kind, lockPath)
	return &peer{procs}
}

// expect waits for the peer to report want ("acquired", "released").
func (p *peer) expect(t *testing.T, want string) {
	t.Helper()
	p.procs.Await(t, "p", want)
}

// acquiredYet reports whether the peer has acquired so far.
func (p *peer) acquiredYet() bool { return p.procs.Has("p", "acquired") }

func (p *peer) release(t *testing.T) {
	t.Helper()
	p.procs.Release(t, "p")
}

// watchedBy waits until some session holds a data watch on node according
// to the server (4lw wchp): the real client is waiting on it.
func watchedBy(t *testing.T, addr, node string) {
	t.Helper()
	waitFor(t, "a watch on "+node, 90*time.Second, func() bool {
		out, err := zktest.FourLetterWord(addr, "wchp", 2*time.Second)
		if err != nil {
			return false
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.TrimSpace(l) == node {
				return true
			}
		}
		return false
	})
}

func nodeOfPeer(t *testing.T, c *zkview.Client, lockPath, exclude string) string {
	t.Helper()
	var found string
	waitFor(t, "the peer's node in "+lockPath, 90*time.Second, func() bool {
		for _, k := range children(t, c, lockPath) {
			if n := zkview.Join(lockPath, k); n != exclude {
				found = n
				return true
			}
		}
		return false
	})
	return found
}

// TestInteropRealClients: real Curator and kazoo contenders wait while
// zkscope holds and proceed when it releases, and zkscope waits for them.
func TestInteropRealClients(t *testing.T) {
	auditToTemp(t)
	cl := zktest.Shared(t)
	addr := cl.Addrs()[0]
	for _, tc := range []struct {
		lib      string
		recipe   *Library
		ourMode  Mode
		peerKind string
		shared   bool // both hold at once (readers)
	}{
		{"curator", Curator, ModeExclusive, "mutex", false},
		{"curator", Curator, ModeWrite, "read", false},
		{"curator", Curator, ModeRead, "write", false},
		{"curator", Curator, ModeRead, "read", true},
		{"kazoo", Kazoo, ModeExclusive, "lock", false},
		{"kazoo", Kazoo, ModeWrite, "read", false},
		{"kazoo", Kazoo, ModeRead, "write", false},
	} {
		t.Run(fmt.Sprintf("%s/ours-%s/theirs-%s", tc.lib, tc.ourMode, tc.peerKind), func(t *testing.T) {
			ctx := context.Background()
			c := newClient(t, cl.Addrs())
			lockPath := zktest.Path(t)

			// We hold; they queue (or share) and proceed when we release.
			h, err := Take(ctx, c, lockPath, TakeOptions{Library: tc.recipe, Mode: tc.ourMode})
			if err != nil {
				t.Fatal(err)
			}
			p := startPeer(t, tc.lib, cl.ConnectString(), lockPath, tc.peerKind)
			if tc.shared {
				p.expect(t, "acquired")
				if h.State() != StateHeld {
					t.Fatalf("our read lock: %s", h.State())
				}
				h.Release(ctx)
				p.release(t)
				return
			}
			watchedBy(t, addr, h.Node)
			if p.acquiredYet() {
				t.Fatal("the peer acquired while zkscope holds the lock")
			}
			if err := h.Release(ctx); err != nil {
				t.Fatal(err)
			}
			p.expect(t, "acquired")

			// They hold; we wait on their node and proceed when they release.
			theirs := nodeOfPeer(t, c, lockPath, "")
			w := takeAsync(ctx, c, lockPath, TakeOptions{Mode: tc.ourMode})
			pr := w.waitingOn(t, theirs)
			if !strings.HasPrefix(pr.Recipe, tc.lib) {
				t.Fatalf("auto-detected %s in a %s directory", pr.Recipe, tc.lib)
			}
			p.release(t)
			h2, err := w.wait(t)
			if err != nil {
				t.Fatal(err)
			}
			if err := h2.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if kids := children(t, c, lockPath); len(kids) != 0 {
				t.Fatalf("nodes left: %v", kids)
			}
		})
	}
}

// TestInteropTimeoutHandsOn: zkscope waits with --timeout behind a real
// holder while another real client queues behind zkscope's node. When the
// timeout expires zkscope deletes its node; the real client behind it must
// move on to the holder (not stay stuck, not jump the queue) and acquire
// once the holder releases.
func TestInteropTimeoutHandsOn(t *testing.T) {
	auditToTemp(t)
	cl := zktest.Shared(t)
	addr := cl.Addrs()[0]
	for _, lib := range []string{"curator", "kazoo"} {

		t.Run(lib, func(t *testing.T) {
			t.Parallel() // each mostly waits out its timeout
			ctx := context.Background()
			c := newClient(t, cl.Addrs())
			lockPath := zktest.Path(t)
			kind := map[string]string{"curator": "mutex", "kazoo": "lock"}[lib]

			holder := startPeer(t, lib, cl.ConnectString(), lockPath, kind)
			holder.expect(t, "acquired")
			theirs := nodeOfPeer(t, c, lockPath, "")

			const timeout = 20 * time.Second
			w := takeAsync(ctx, c, lockPath, TakeOptions{Wait: WaitTimeout, Timeout: timeout})
			pr := w.waitingOn(t, theirs)

			behind := startPeer(t, lib, cl.ConnectString(), lockPath, kind)
			watchedBy(t, addr, pr.Node) // the second real client waits on our node

			_, err := w.wait(t)
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("take with --timeout: %v, want ErrTimeout", err)
			}
			for _, k := range children(t, c, lockPath) {
				if zkview.Join(lockPath, k) == pr.Node {
					t.Fatalf("our node %s is still there after the timeout", pr.Node)
				}
			}
			if behind.acquiredYet() {
				t.Fatal("the client behind us acquired while the real holder still holds")
			}
			holder.release(t)
			behind.expect(t, "acquired")
			behind.release(t)
		})
	}
}
