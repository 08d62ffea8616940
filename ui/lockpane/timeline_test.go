package lockpane

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// readAt delivers one of the pane's own reads of q at at.
func readAt(p *Model, q lockops.Queue, at time.Time) {
	p.loadID++
	p.loading = true
	p.onLoaded(lockLoadedMsg{id: p.loadID, path: q.Path, queue: q.Clone(), at: at})
}

// handOver is mutexQueue after its first n holders released, in order.
func handOver(n int) lockops.Queue {
	q := mutexQueue()
	q.Problems = nil
	q.Participants = q.Participants[n:]
	for i := range q.Participants {
		x := &q.Participants[i]
		x.Position = i
		if i == 0 {
			x.State, x.Watches, x.WatchKind = lockops.StateHolding, "", ""
		}
	}
	return q
}

// TestLockPaneTimeline: the pane keeps the states it read; T shows the
// strip of holders over time and [ / ] step through past states, each
// drawn with its waits as they were; T again goes back to the live queue.
func TestLockPaneTimeline(t *testing.T) {
	p := testPane(themes.Dark, 100, 24)
	p.resetDir(lockDir)
	p.visible = true
	p.client = &zkview.Client{} // commands are built, never run
	for i := 0; i < 3; i++ {
		at := lockT0.Add(time.Duration(i) * 10 * time.Second)
		p.clock = func() time.Time { return at }
		readAt(p, handOver(i), at)
		readAt(p, handOver(i), at.Add(time.Second)) // the same queue again: not a new state
	}
	if n := len(p.hist.states); n != 3 {
		t.Fatalf("%d states kept, want 3", n)
	}
	press(p, "T")
	out := paneScreen(p)
	checkPaneShape(t, p, out)
	if !strings.Contains(out, "AAAA") || !strings.Contains(out, "BBBB") || !strings.Contains(out, "CCC") || !strings.Contains(out, "state 3/3") {
		t.Fatalf("the timeline does not show three holders in turn:\n%s", out)
	}
	golden.RequireEqual(t, out)
	press(p, "[")
	press(p, "[")
	out = paneScreen(p)
	if !strings.Contains(out, "state 1/3 at 07:00:00.000") || !strings.Contains(out, "W3 → W2 → W1 → H1") {
		t.Fatalf("[ [ does not show the first state with its chain:\n%s", out)
	}
	press(p, "[") // already the oldest
	press(p, "]")
	if out := paneScreen(p); !strings.Contains(out, "state 2/3") {
		t.Fatalf("] does not step forward:\n%s", out)
	}
	press(p, "T")
	if out := paneScreen(p); strings.Contains(out, "state ") {
		t.Fatalf("T again does not go back to the live queue:\n%s", out)
	}
}

// TestLockPaneTimelineFromTxnlog: given the shared server's transaction
// log, the timeline replays the lock's real past: a holder, a waiter that
// takes over when the holder's node is deleted; live reads then follow
// the log's states.
func TestLockPaneTimelineFromTxnlog(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	c, _, err := zk.Connect(srv.Addrs(), 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	zktest.MakePath(t, c, base)
	var nodes []string
	for _, id := range []string{"first", "second"} {
		n, err := c.Create(base+"/0123456789abcdef0123456789abcdef__lock__", []byte(id), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	if err := c.Delete(nodes[0], -1); err != nil {
		t.Fatal(err)
	}
	p := testPane(themes.Dark, 100, 24)
	p.resetDir(base)
	p.SetTxnlog(filepath.Join(srv.Servers[0].Dir, "data"))
	cmd := p.loadTimeline(false)
	if cmd == nil || !p.hist.loading {
		t.Fatal("the timeline does not read the log")
	}
	p.Update(cmd())
	if p.hist.loadErr != nil || !p.hist.fromLog {
		t.Fatalf("replay: %v", p.hist.loadErr)
	}
	if n := len(p.hist.states); n != 3 {
		t.Fatalf("%d states from the log, want 3 (first holds; second waits; second holds)", n)
	}
	press(p, "T")
	out := paneScreen(p)
	if !strings.Contains(out, "3 states from the transaction log") || !strings.Contains(out, "A first") || !strings.Contains(out, "B second") || !strings.Contains(out, "zxid 0x") {
		t.Fatalf("timeline from the log:\n%s", out)
	}

	// Live reads go on after the log's states: the same queue adds
	// nothing, a new waiter adds a state.
	p.visible, p.client = true, &zkview.Client{} // commands are built, never run
	readAt(p, liveQueue(t, c, base), time.Now())
	if n := len(p.hist.states); n != 3 {
		t.Fatalf("the live read of the log's last state added a state: %d", n)
	}
	if _, err := c.Create(base+"/0123456789abcdef0123456789abcdef__lock__", []byte("third"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	readAt(p, liveQueue(t, c, base), time.Now())
	out = paneScreen(p)
	if n := len(p.hist.states); n != 4 || !strings.Contains(out, "3 states from the transaction log, 1 seen live since") ||
		!strings.Contains(out, "state 4/4") || !strings.Contains(out, "(the newest)") {
		t.Fatalf("%d states; the live read after the log:\n%s", n, out)
	}
}

// liveQueue reads the lock at dir from the server and decodes it, as the
// pane's own reads do.
func liveQueue(t *testing.T, c *zk.Conn, dir string) lockops.Queue {
	t.Helper()
	kids, _, err := c.Children(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := lockops.Dir{Path: dir}
	for _, k := range kids {
		data, st, err := c.Get(dir + "/" + k)
		if err != nil {
			t.Fatal(err)
		}
		d.Children = append(d.Children, lockops.ChildOf(k, dir+"/"+k, st, data))
	}
	return lockops.Decode(d, lockops.DecodeOptions{})
}

// TestLockPaneTimelineKeepsZxids: each state in the live ring carries the
// servers' zxid of its read (the directory's pzxid) with the time, and a
// past state says it.
func TestLockPaneTimelineKeepsZxids(t *testing.T) {
	p := testPane(themes.Dark, 100, 24)
	p.resetDir(lockDir)
	p.visible = true
	p.client = &zkview.Client{} // commands are built, never run
	for i := 0; i < 2; i++ {
		at := lockT0.Add(time.Duration(i) * 10 * time.Second)
		p.clock = func() time.Time { return at }
		q := handOver(i)
		p.loadID++
		p.loading = true
		p.onLoaded(lockLoadedMsg{id: p.loadID, path: q.Path, queue: q.Clone(), at: at, zxid: int64(0x2a + i)})
	}
	if n := len(p.hist.states); n != 2 || p.hist.states[0].At.Zxid != 0x2a || p.hist.states[1].At.Zxid != 0x2b {
		t.Fatalf("states %+v, want zxids 0x2a and 0x2b", p.hist.states)
	}
	press(p, "[")
	if out := paneScreen(p); !strings.Contains(out, "zxid 0x2a") {
		t.Fatalf("a past state does not say its zxid:\n%s", out)
	}
}
