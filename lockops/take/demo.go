package take

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// DemoLock is one lock the demo contenders fight over.
type DemoLock struct {
	Path    string
	Library *lockops.Library
	// Modes of the contenders, one each (e.g. read, read, write, read).
	Modes []lockops.Mode
}

// DemoLocks are the locks [RunDemoContenders] creates below root: a Curator
// mutex, a Curator read/write lock and a kazoo lock.
func DemoLocks(root string) []DemoLock {
	return []DemoLock{
		{Path: zkview.Join(root, "curator-mutex"), Library: lockops.Curator,
			Modes: []lockops.Mode{lockops.ModeExclusive, lockops.ModeExclusive, lockops.ModeExclusive, lockops.ModeExclusive}},
		{Path: zkview.Join(root, "curator-rwlock"), Library: lockops.Curator,
			Modes: []lockops.Mode{lockops.ModeRead, lockops.ModeWrite, lockops.ModeRead, lockops.ModeRead}},
		{Path: zkview.Join(root, "kazoo-lock"), Library: lockops.Kazoo,
			Modes: []lockops.Mode{lockops.ModeExclusive, lockops.ModeExclusive, lockops.ModeExclusive}},
	}
}

// RunDemoContenders runs the contenders of [DemoLocks] against servers until
// ctx ends (see [RunDemoLocks]).
func RunDemoContenders(ctx context.Context, servers []string, root string) error {
	return RunDemoLocks(ctx, servers, DemoLocks(root))
}

// RunDemoLocks runs zkscope contenders on locks against servers until ctx
// ends: each on its own session, taking its lock with [Take] in the lock's
// library's format, holding it a few seconds, releasing, pausing and
// queueing again, so the TUI has live holders and waiters to show. Each
// node's data says it is zkscope writing that library's format (the demo
// runs the libraries themselves when they are installed). Their takes are
// not audited. It returns nil when ctx ends, or an error when a contender
// cannot connect.
func RunDemoLocks(ctx context.Context, servers []string, locks []DemoLock) error {
	type contender struct {
		lock DemoLock
		mode lockops.Mode
		id   int
		c    *zkview.Client
	}
	var all []contender
	defer func() {
		for _, ct := range all {
			ct.c.Close()
		}
	}()
	for _, l := range locks {
		for i, m := range l.Modes {
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			c, err := zkview.Connect(cctx, zkview.Config{Servers: servers, SessionTimeout: 10 * time.Second})
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("demo contender for %s: %w", l.Path, err)
			}
			all = append(all, contender{lock: l, mode: m, id: i + 1, c: c})
		}
	}
	var wg sync.WaitGroup
	for _, ct := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runDemoContender(ctx, ct.c, ct.lock, ct.mode, ct.id)
		}()
	}
	wg.Wait()
	return nil
}

func runDemoContender(ctx context.Context, c *zkview.Client, l DemoLock, mode lockops.Mode, id int) {
	pause := func(min, max time.Duration) bool {
		d := min + rand.N(max-min)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	// Stagger the start so queues build up in a varied order.
	if !pause(10*time.Millisecond, 1500*time.Millisecond) {
		return
	}
	for ctx.Err() == nil {
		h, err := Take(ctx, c, l.Path, Options{
			Library: l.Library, Mode: mode, Note: fmt.Sprintf("stand-in for a %s contender %d (%s)", l.Library.Title, id, mode),
			unaudited: true,
		})
		if err != nil {
			if errors.Is(err, context.Canceled) || ctx.Err() != nil {
				return
			}
			if !pause(time.Second, 2*time.Second) {
				return
			}
			continue
		}
		hold := pause(2*time.Second, 5*time.Second)
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		h.Release(rctx)
		cancel()
		if !hold || !pause(500*time.Millisecond, 2*time.Second) {
			return
		}
	}
}
