package zkview

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestFollowAgainWhileStopping: a Follow stopped in the background (as
// the UI stops them) while a new one on the same path starts, either
// mode: the new one's watch is set after the old one's removeWatches, so
// it sees the next change every time. (The window where the removal could
// overtake the new watch is microseconds wide: this checks the behaviour,
// it does not reliably catch its loss.)
func TestFollowAgainWhileStopping(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root+"/p")
	follow(t, c, root, false) // keeps the watch session open throughout
	p := root + "/p"
	for i := range 50 {
		old := follow(t, c, p, i%2 == 0)
		stopped, start := make(chan struct{}), make(chan struct{})
		go func() { <-start; old.Stop(); close(stopped) }()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		close(start)
		f, err := c.Follow(ctx, p, i%4 < 2)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		<-stopped
		f.Take() // the first resync
		child := fmt.Sprintf("%s/c%d", p, i)
		if _, err := c.Conn().Create(child, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		deadline := time.After(15 * time.Second)
	wait:
		for {
			select {
			case <-f.Ready():
				if len(f.Take()) > 0 {
					break wait
				}
			case <-deadline:
				t.Fatalf("round %d: no event for %s: the new watch was removed with the old", i, child)
			}
		}
		f.Stop()
	}
}
