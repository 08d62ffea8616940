package scan

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestApplyEventsUnderKazooChurn: kazoo processes take and release the
// same lock in a loop while a recursive Follow's events are applied to
// the cached directory as they come; each time the workers pause, the
// queue decoded from the events equals the queue a fresh read decodes.
func TestApplyEventsUnderKazooChurn(t *testing.T) {
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	dir := zktest.Path(t) + "/lock"
	zktest.MakePath(t, c.Conn(), c.Abs(dir))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := c.Follow(ctx, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()

	var (
		mu      sync.Mutex
		applied lockops.Queue
		batches int
		failure error
	)
	go func() {
		var cache *DirCache
		for {
			select {
			case <-ctx.Done():
				return
			case <-f.Done():
				return
			case <-f.Ready():
			}
			d, next, err := ApplyEvents(ctx, c, dir, cache, f.Take())
			cache = next
			mu.Lock()
			if err != nil && !errors.Is(err, context.Canceled) {
				failure = err
			}
			applied = lockops.Decode(d, lockops.DecodeOptions{})
			batches++
			mu.Unlock()
		}
	}()

	var procs []*zktest.KazooProc
	for i := range 4 {
		procs = append(procs, zktest.KazooLoop(t, cl.ConnectString(), dir, fmt.Sprintf("w%d", i), 5*time.Millisecond))
	}
	for round := range 3 {
		before := procs[0].Count("w0 acquired")
		waitUntil(t, "the workers to take the lock again", func() bool { return procs[0].Count("w0 acquired") >= before+3 })
		// A data change and an arrival and departure of a node of our own.
		own, err := c.Conn().Create(c.Abs(dir)+"/"+strings.Repeat("ab", 16)+"__lock__", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Conn().Set(own, []byte(fmt.Sprintf("round %d", round)), -1); err != nil {
			t.Fatal(err)
		}
		if round == 1 {
			if err := c.Conn().Delete(own, -1); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range procs {
			p.Stop(t)
		}
		var fresh lockops.Queue
		waitUntil(t, "the queue from events to equal a fresh read's", func() bool {
			names, st, err := c.Children(dir)
			if err != nil {
				t.Fatal(err)
			}
			d, _, err := ReadDirAgain(ctx, c, dir, names, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			fresh = lockops.Decode(d, lockops.DecodeOptions{})
			mu.Lock()
			defer mu.Unlock()
			if failure != nil {
				t.Fatalf("applying events: %v", failure)
			}
			return reflect.DeepEqual(applied, fresh)
		})
		// Rounds 0 and 2 keep a node of ours; in round 1 ours left, and the
		// workers, stopped at any moment of their 5 ms loop, may all be
		// between a release and their next node: an empty queue is then
		// what both reads must agree on.
		if round != 1 && len(fresh.Participants) == 0 {
			t.Fatalf("round %d: an empty queue", round)
		}
		if round != 1 { // a node of ours that stayed would hold the lock for good
			if err := c.Conn().Delete(own, -1); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range procs {
			p.Continue(t)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if batches < 3 {
		t.Fatalf("only %d batches of events applied", batches)
	}
	t.Logf("%d batches of events applied", batches)
}

// waitUntil polls ok with a deadline generous for a loaded machine.
func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestApplyEventsDirGone: the directory's deletion gives ErrDirGone and a
// cache that waits; its creation again reads it whole.
func TestApplyEventsDirGone(t *testing.T) {
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	dir := zktest.Path(t) + "/lock"
	ctx := context.Background()
	_, gone, err := ApplyEvents(ctx, c, dir, nil, nil)
	if !errors.Is(err, ErrDirGone) || gone == nil {
		t.Fatalf("a missing directory: %v, cache %v", err, gone)
	}
	if _, again, err := ApplyEvents(ctx, c, dir, gone, []zkview.FollowEvent{{Type: zkview.FollowDeleted, Path: dir + "/x"}}); !errors.Is(err, ErrDirGone) || again == nil {
		t.Fatalf("events below a gone directory: %v", err)
	}
	zktest.MakePath(t, c.Conn(), c.Abs(dir))
	d, back, err := ApplyEvents(ctx, c, dir, gone, []zkview.FollowEvent{{Type: zkview.FollowCreated, Path: dir}})
	if err != nil || back == nil || back.Children == nil || d.Stat.Czxid == 0 {
		t.Fatalf("the directory created again: %v, %+v", err, d)
	}
}
