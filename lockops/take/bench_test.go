package take

import (
	"context"
	"testing"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// BenchmarkTakeRelease measures an uncontended take and release (create,
// stat, list, delete, plus the holder's watch) on a local server.
func BenchmarkTakeRelease(b *testing.B) {
	for _, r := range []*lockops.Library{lockops.Curator, lockops.Kazoo, lockops.GoZK} {
		b.Run(r.Name, func(b *testing.B) {
			b.Setenv("XDG_STATE_HOME", b.TempDir())
			cl := zktest.Shared(b)
			c := locktest.NewClient(b, cl.Addrs())
			ctx := context.Background()
			lockPath := zktest.Path(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h, err := Take(ctx, c, lockPath, Options{Library: r})
				if err != nil {
					b.Fatal(err)
				}
				if err := h.Release(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHandOver measures how long a waiting contender takes to get the
// lock after the holder releases it (release, watch event, list, acquire).
func BenchmarkHandOver(b *testing.B) {
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	cl := zktest.Shared(b)
	a, w := locktest.NewClient(b, cl.Addrs()), locktest.NewClient(b, cl.Addrs())
	ctx := context.Background()
	lockPath := zktest.Path(b)
	h, err := Take(ctx, a, lockPath, Options{Library: lockops.Curator})
	if err != nil {
		b.Fatal(err)
	}
	clients := [2]*zkscopeClient{{a, h}, {w, nil}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		holder, waiter := clients[i%2], clients[(i+1)%2]
		queued := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			var once bool
			nh, err := Take(ctx, waiter.c, lockPath, Options{Progress: func(p Progress) {
				if p.WaitingOn != "" && !once {
					once = true
					close(queued)
				}
			}})
			waiter.h = nh
			done <- err
		}()
		<-queued
		if err := holder.h.Release(ctx); err != nil {
			b.Fatal(err)
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	for _, c := range clients {
		if c.h != nil {
			c.h.Release(ctx)
		}
	}
}

type zkscopeClient struct {
	c *zkview.Client
	h *Held
}
