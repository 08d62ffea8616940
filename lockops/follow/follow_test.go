package follow_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// observed counts the queues a follow observed.
type observed struct {
	mu sync.Mutex
	n  int
}

func (o *observed) Observe(*lockops.Queue, int64, time.Time) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n++
	return nil
}

func (o *observed) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

// TestReadAndFollow: Read decodes a Curator mutex once; Follow shows it,
// then shows a new waiter as its children watch fires (the interval is a
// minute), tells the observer, and ends when its context does.
func TestReadAndFollow(t *testing.T) {
	srv := zktest.Shared(t)
	lock := zktest.Path(t)
	c, err := zkview.Connect(context.Background(), zkview.Config{Servers: srv.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	zktest.MakePath(t, c.Conn(), lock)
	contend := func(uuid string) {
		t.Helper()
		if _, err := c.Conn().Create(lock+"/_c_"+uuid+"-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	contend("11111111-0000-4000-8000-000000000001")

	s, err := follow.Read(context.Background(), c, lock, follow.Options{NoVerify: true})
	if err != nil || len(s.Queues) != 1 || len(s.Queues[0].Holders()) != 1 {
		t.Fatalf("Read: %v %+v", err, s.Queues)
	}

	ctx, cancel := context.WithCancel(context.Background())
	snaps := make(chan follow.Snapshot, 16)
	obs := &observed{}
	done := make(chan error, 1)
	go func() {
		done <- follow.Follow(ctx, c, lock, follow.Options{NoVerify: true, Interval: time.Minute, Observer: obs},
			func(s follow.Snapshot) error { snaps <- s; return nil },
			func(err error) { t.Errorf("scan failed: %v", err) })
	}()
	waiting := func(want int) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case s := <-snaps:
				if len(s.Queues) == 1 && len(s.Queues[0].Participants)-len(s.Queues[0].Holders()) == want {
					return
				}
			case <-deadline:
				t.Fatalf("no snapshot with %d waiting", want)
			}
		}
	}
	waiting(0)
	contend("22222222-0000-4000-8000-000000000002")
	waiting(1)
	if obs.count() < 2 {
		t.Errorf("the observer was told %d queues, want at least 2", obs.count())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Follow ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("Follow did not end with its context")
	}
}
