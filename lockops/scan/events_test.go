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

	fl := followSpliced(ctx, c, dir, f)
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
			return fl.equals(t, fresh)
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
	fl.check(t, 3)
}

// followed is a Follow's events applied as the lock pane applies them
// (ApplyEventsDelta, the queue spliced where the recipe allows, else
// decoded whole).
type followed struct {
	mu               sync.Mutex
	applied          lockops.Queue
	batches, spliced int
	failure          error
}

// followSpliced applies f's events to dir's queue until ctx ends.
func followSpliced(ctx context.Context, c *zkview.Client, dir string, f *zkview.Follow) *followed {
	fl := &followed{}
	go func() {
		var cache *DirCache
		var sp *lockops.Splicer
		for {
			select {
			case <-ctx.Done():
				return
			case <-f.Done():
				return
			case <-f.Ready():
			}
			dl, next, err := ApplyEventsDelta(ctx, c, dir, cache, f.Take())
			cache = next
			q, ok := lockops.Queue{}, false
			if err == nil && !dl.Whole {
				q, ok = sp.Splice(dl.Dir, dl.Gone, dl.Fresh)
			}
			if err == nil && !ok {
				d := dl.Dir
				if !dl.Whole {
					d, _, err = CachedDir(ctx, c, dl.Dir.Stat, next)
				}
				q = lockops.Decode(d, lockops.DecodeOptions{})
				sp = lockops.NewSplicer(q, lockops.DecodeOptions{})
			}
			fl.mu.Lock()
			if err != nil && !errors.Is(err, context.Canceled) {
				fl.failure = err
			}
			fl.applied = q
			fl.batches++
			if ok {
				fl.spliced++
			}
			fl.mu.Unlock()
		}
	}()
	return fl
}

// equals reports whether the queue from the events is fresh.
func (fl *followed) equals(t *testing.T, fresh lockops.Queue) bool {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.failure != nil {
		t.Fatalf("applying events: %v", fl.failure)
	}
	return reflect.DeepEqual(fl.applied, fresh)
}

// check fails unless at least min batches were applied, some spliced.
func (fl *followed) check(t *testing.T, min int) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.batches < min || fl.spliced == 0 {
		t.Fatalf("%d batches of events applied, %d spliced", fl.batches, fl.spliced)
	}
	t.Logf("%d batches of events applied, %d spliced", fl.batches, fl.spliced)
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

// TestApplyEventsUnderCuratorChurn: real Curator mutex contenders (each
// on its own session) join and leave in bursts, the holder released and
// two more joining each time, while a recursive Follow's events are
// applied; after every burst the queue from the events (spliced, not
// decoded whole) equals the queue a fresh read decodes.
func TestApplyEventsUnderCuratorChurn(t *testing.T) {
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	dir := zktest.Path(t) + "/lock"
	zktest.MakePath(t, c.Conn(), c.Abs(dir))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	f, err := c.Follow(ctx, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	fl := followSpliced(ctx, c, dir, f)
	peers := zktest.StartCurator(t, cl.ConnectString())
	next := 0
	released := map[string]bool{}
	join := func() {
		peers.Acquire(t, fmt.Sprintf("c%d", next), "mutex", dir)
		next++
	}
	for range 6 {
		join()
	}
	// A JVM starting on a loaded machine takes minutes: generous deadlines.
	for burst := range 6 {
		if burst > 0 {
			// The holder: the contenders' nodes are made in any order.
			holder := ""
			locktest.WaitFor(t, "a contender to hold", 5*time.Minute, func() bool {
				for i := range next {
					if id := fmt.Sprintf("c%d", i); !released[id] && peers.Has(id, "acquired") {
						holder = id
						return true
					}
				}
				return false
			})
			peers.Release(t, holder)
			released[holder] = true
			join()
			join()
		}
		want := 6 + burst
		locktest.WaitFor(t, fmt.Sprintf("burst %d: the queue from events to equal a fresh read's", burst), 5*time.Minute, func() bool {
			names, st, err := c.Children(dir)
			if err != nil {
				t.Fatal(err)
			}
			d, _, err := ReadDirAgain(ctx, c, dir, names, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			fresh := lockops.Decode(d, lockops.DecodeOptions{})
			return len(fresh.Participants) == want && fl.equals(t, fresh)
		})
	}
	fl.check(t, 6)
}
