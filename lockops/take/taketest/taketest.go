// Package taketest takes a lock in the background for tests, with its
// progress as it comes.
//
// Tests only: no package but a test imports it.
package taketest

import (
	"context"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/zkview"
)

// Async is a take running in the background ([TakeAsync]): its
// progress, closed Done when it finished, and then what it gave.
type Async struct {
	Progress chan take.Progress
	Done     chan struct{}
	Held     *take.Held
	Err      error
}

// TakeAsync runs Take in the background, reporting progress.
func TakeAsync(ctx context.Context, c *zkview.Client, p string, o take.Options) *Async {
	a := &Async{Progress: make(chan take.Progress, 64), Done: make(chan struct{})}
	o.Progress = func(pr take.Progress) {
		select {
		case a.Progress <- pr:
		default:
		}
	}
	go func() {
		defer close(a.Done)
		a.Held, a.Err = take.Take(ctx, c, p, o)
	}()
	return a
}

// WaitingOn waits until the async take reports it watches node.
func (a *Async) WaitingOn(t testing.TB, node string) take.Progress {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case pr := <-a.Progress:
			if pr.WaitingOn == node {
				return pr
			}
		case <-a.Done:
			t.Fatalf("take finished (held=%v err=%v) before waiting on %s", a.Held, a.Err, node)
		case <-timeout:
			t.Fatalf("timed out waiting for the contender to watch %s", node)
		}
	}
}

// Wait waits until the take finished and returns what it gave.
func (a *Async) Wait(t testing.TB) (*take.Held, error) {
	t.Helper()
	select {
	case <-a.Done:
		return a.Held, a.Err
	case <-time.After(60 * time.Second):
		t.Fatal("take did not finish")
	}
	return nil, nil
}
