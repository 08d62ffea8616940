package take_test

// Interop: zkscope's locks against the real libraries (Curator 5.4 from
// /usr/share/java, kazoo 2.8 for /usr/bin/python3), run by zktest's peers.

import (
	"context"
	"errors"
	"fmt"
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

// TestInteropRealClients: real Curator and kazoo contenders wait while
// zkscope holds and proceed when it releases, and zkscope waits for them.
func TestInteropRealClients(t *testing.T) {
	audittest.ToTemp(t)
	cl := zktest.Shared(t)
	addr := cl.Addrs()[0]
	for _, tc := range []struct {
		lib      string
		recipe   *lockops.Library
		ourMode  lockops.Mode
		peerKind string
		shared   bool // both hold at once (readers)
	}{
		{"curator", lockops.Curator, lockops.ModeExclusive, "mutex", false},
		{"curator", lockops.Curator, lockops.ModeWrite, "read", false},
		{"curator", lockops.Curator, lockops.ModeRead, "write", false},
		{"curator", lockops.Curator, lockops.ModeRead, "read", true},
		{"kazoo", lockops.Kazoo, lockops.ModeExclusive, "lock", false},
		{"kazoo", lockops.Kazoo, lockops.ModeWrite, "read", false},
		{"kazoo", lockops.Kazoo, lockops.ModeRead, "write", false},
	} {
		t.Run(fmt.Sprintf("%s/ours-%s/theirs-%s", tc.lib, tc.ourMode, tc.peerKind), func(t *testing.T) {
			ctx := context.Background()
			c := locktest.NewClient(t, cl.Addrs())
			lockPath := zktest.Path(t)

			// We hold; they queue (or share) and proceed when we release.
			h, err := take.Take(ctx, c, lockPath, take.Options{Library: tc.recipe, Mode: tc.ourMode})
			if err != nil {
				t.Fatal(err)
			}
			p := locktest.StartPeer(t, tc.lib, cl.ConnectString(), lockPath, tc.peerKind)
			if tc.shared {
				p.Expect(t, "acquired")
				if h.State() != hold.StateHeld {
					t.Fatalf("our read lock: %s", h.State())
				}
				h.Release(ctx)
				p.Release(t)
				return
			}
			locktest.WatchedBy(t, addr, h.Node)
			if p.AcquiredYet() {
				t.Fatal("the peer acquired while zkscope holds the lock")
			}
			if err := h.Release(ctx); err != nil {
				t.Fatal(err)
			}
			p.Expect(t, "acquired")

			// They hold; we wait on their node and proceed when they release.
			theirs := locktest.NodeOfPeer(t, c, lockPath, "")
			w := taketest.TakeAsync(ctx, c, lockPath, take.Options{Mode: tc.ourMode})
			pr := w.WaitingOn(t, theirs)
			if !strings.HasPrefix(pr.Recipe, tc.lib) {
				t.Fatalf("auto-detected %s in a %s directory", pr.Recipe, tc.lib)
			}
			p.Release(t)
			h2, err := w.Wait(t)
			if err != nil {
				t.Fatal(err)
			}
			if err := h2.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if kids := locktest.Children(t, c, lockPath); len(kids) != 0 {
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
	audittest.ToTemp(t)
	cl := zktest.Shared(t)
	addr := cl.Addrs()[0]
	for _, lib := range []string{"curator", "kazoo"} {

		t.Run(lib, func(t *testing.T) {
			t.Parallel() // each mostly waits out its timeout
			ctx := context.Background()
			c := locktest.NewClient(t, cl.Addrs())
			lockPath := zktest.Path(t)
			kind := map[string]string{"curator": "mutex", "kazoo": "lock"}[lib]

			holder := locktest.StartPeer(t, lib, cl.ConnectString(), lockPath, kind)
			holder.Expect(t, "acquired")
			theirs := locktest.NodeOfPeer(t, c, lockPath, "")

			const timeout = 20 * time.Second
			w := taketest.TakeAsync(ctx, c, lockPath, take.Options{Wait: hold.WaitTimeout, Timeout: timeout})
			pr := w.WaitingOn(t, theirs)

			behind := locktest.StartPeer(t, lib, cl.ConnectString(), lockPath, kind)
			locktest.WatchedBy(t, addr, pr.Node) // the second real client waits on our node

			_, err := w.Wait(t)
			if !errors.Is(err, hold.ErrTimeout) {
				t.Fatalf("take with --timeout: %v, want ErrTimeout", err)
			}
			for _, k := range locktest.Children(t, c, lockPath) {
				if zkview.Join(lockPath, k) == pr.Node {
					t.Fatalf("our node %s is still there after the timeout", pr.Node)
				}
			}
			if behind.AcquiredYet() {
				t.Fatal("the client behind us acquired while the real holder still holds")
			}
			holder.Release(t)
			behind.Expect(t, "acquired")
			behind.Release(t)
		})
	}
}
