package scan

// Interop for `zkscope locks --json`: real Curator 5.4 and kazoo clients
// (and go-zookeeper's zk.Lock), each contender on its own session, build
// contention on a real server and stay blocked; the real binary's report
// must say exactly who holds, who waits on which node with which call, and
// the servers must confirm every data/exists wait. Then the holder lets go
// and the real clients must move exactly as the report predicted.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/internal/contracttest"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// locksJSON runs the real `zkscope locks PATH --json`.
func locksJSON(t *testing.T, servers, p string, extra ...string) contracttest.Obj {
	t.Helper()
	cmd := locktest.ZkscopeCmd(t, t.TempDir(), servers, append([]string{"locks", p, "--json"}, extra...)...)
	var out strings.Builder
	cmd.Stdout = &out
	if code, stderr := locktest.RunWithin(t, cmd, 60*time.Second); code != 0 {
		t.Fatalf("zkscope locks %s --json: exit %d: %s", p, code, stderr)
	}
	r, err := contracttest.DecodeReport([]byte(out.String()))
	if err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out.String())
	}
	contracttest.Check(t, r)
	return r
}

// settled fetches the report until the lock at p has n participants and
// the servers confirm every data/exists wait, and returns that lock.
func settled(t *testing.T, servers, p string, n int, extra ...string) contracttest.Obj {
	t.Helper()
	var last contracttest.Obj
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := locksJSON(t, servers, p, extra...)
		if locks := r.Objs("locks"); len(locks) == 1 && r.Num("schema") == 1 {
			last = locks[0]
			ok := len(last.Objs("participants")) == n
			for _, pp := range last.Objs("participants") {
				if requireObserved && !pp.IsNull("watch_kind") && pp.Str("watch_kind") != "children" && !pp.Flag("watch_observed") {
					ok = false
				}
			}
			if ok {
				return last
			}
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(r, "", "  ")
			t.Fatalf("the report for %s never settled at %d participants with every wait observed:\n%s", p, n, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// queueShape renders a lock as "state mode -> watched-position (kind)"
// lines, positions standing for nodes.
func queueShape(l contracttest.Obj) string {
	pos := map[string]int{}
	for _, p := range l.Objs("participants") {
		pos[p.Str("node")] = p.Num("position")
	}
	var lines []string
	for _, p := range l.Objs("participants") {
		s := fmt.Sprintf("%d %s %s", p.Num("position"), p.Str("state"), p.Str("mode"))
		if w := p.Str("watches"); w != "" {
			if i, ok := pos[w]; ok {
				s += fmt.Sprintf(" -> %d (%s)", i, p.Str("watch_kind"))
			} else {
				s += fmt.Sprintf(" -> %s (%s)", w, p.Str("watch_kind"))
			}
		}
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}

func expectShape(t *testing.T, l contracttest.Obj, recipe string, want ...string) {
	t.Helper()
	if l.Str("recipe") != recipe {
		t.Errorf("%s: recipe %s, want %s", l.Str("path"), l.Str("recipe"), recipe)
	}
	if got := queueShape(l); got != strings.Join(want, "\n") {
		t.Errorf("%s (%s):\n%s\nwant:\n%s", l.Str("path"), l.Str("recipe"), got, strings.Join(want, "\n"))
	}
	for _, p := range l.Objs("participants") {
		if !p.Flag("ephemeral") || p.Str("session") == "0x0" || !strings.HasPrefix(p.Str("session"), "0x") || p.Str("ctime") == "" {
			t.Errorf("%s: participant fields %v", l.Str("path"), p)
		}
	}
}

// nodesIn waits until dir has n children: contenders are started one at a
// time so that their sequence order is known.
func nodesIn(t *testing.T, c *zkview.Client, dir string, n int) {
	t.Helper()
	locktest.WaitFor(t, fmt.Sprintf("%d nodes in %s", n, dir), 90*time.Second, func() bool {
		kids, _, err := c.Conn().Children(c.Abs(dir))
		return err == nil && len(kids) >= n
	})
}

func TestLocksJSONCuratorInterop(t *testing.T) {
	cl := zktest.Shared(t)
	cs := cl.ConnectString()
	c := locktest.NewClient(t, cl.Addrs())
	cur := zktest.StartCurator(t, cs)

	t.Run("mutex", func(t *testing.T) {
		p := zktest.Path(t)
		for i, id := range []string{"m1", "m2", "m3"} {
			cur.Acquire(t, id, "mutex", p)
			nodesIn(t, c, p, i+1)
		}
		cur.Await(t, "m1", "acquired")
		l := settled(t, cs, p, 3)
		expectShape(t, l, "curator.mutex", "0 holding exclusive", "1 waiting exclusive -> 0 (data)", "2 waiting exclusive -> 1 (data)")
		if holder := l.Objs("participants")[0]; requireObserved && !strings.HasPrefix(holder.Str("client"), "127.0.0.1:") {
			t.Errorf("holder's client address: %v", holder["client"])
		}
		cur.Release(t, "m1")
		cur.Await(t, "m2", "acquired")
		if cur.Has("m3", "acquired") {
			t.Error("m3 acquired out of turn")
		}
		expectShape(t, settled(t, cs, p, 2), "curator.mutex", "0 holding exclusive", "1 waiting exclusive -> 0 (data)")
	})

	t.Run("rwlock-writer-first", func(t *testing.T) {
		p := zktest.Path(t)
		for i, x := range [][2]string{{"w1", "write"}, {"r2", "read"}, {"w3", "write"}, {"r4", "read"}} {
			cur.Acquire(t, x[0], x[1], p)
			nodesIn(t, c, p, i+1)
		}
		cur.Await(t, "w1", "acquired")
		// Readers wait on the FIRST writer; a writer on the node before it.
		expectShape(t, settled(t, cs, p, 4), "curator.rwlock",
			"0 holding write", "1 waiting read -> 0 (data)", "2 waiting write -> 1 (data)", "3 waiting read -> 0 (data)")
		cur.Release(t, "w1")
		cur.Await(t, "r2", "acquired")
		expectShape(t, settled(t, cs, p, 3), "curator.rwlock",
			"0 holding read", "1 waiting write -> 0 (data)", "2 waiting read -> 1 (data)")
		if cur.Has("r4", "acquired") {
			t.Error("r4 acquired although a writer stands before it")
		}
	})

	t.Run("rwlock-readers-first", func(t *testing.T) {
		p := zktest.Path(t)
		for i, x := range [][2]string{{"a1", "read"}, {"a2", "read"}, {"a3", "write"}, {"a4", "read"}} {
			cur.Acquire(t, x[0], x[1], p)
			nodesIn(t, c, p, i+1)
		}
		cur.Await(t, "a1", "acquired")
		cur.Await(t, "a2", "acquired")
		expectShape(t, settled(t, cs, p, 4), "curator.rwlock",
			"0 holding read", "1 holding read", "2 waiting write -> 1 (data)", "3 waiting read -> 2 (data)")
	})

	t.Run("rwlock-downgrade", func(t *testing.T) {
		p := zktest.Path(t)
		cur.Acquire(t, "d1", "downgrade", p)
		cur.Await(t, "d1", "acquired")
		cur.Acquire(t, "d2", "read", p)
		nodesIn(t, c, p, 3)
		l := settled(t, cs, p, 3)
		expectShape(t, l, "curator.rwlock", "0 holding write", "1 holding read", "2 waiting read -> 0 (data)")
		if ps := l.Objs("participants"); ps[0].Str("session") != ps[1].Str("session") {
			t.Errorf("downgrade nodes of different sessions: %s %s", ps[0].Str("session"), ps[1].Str("session"))
		}
	})

	t.Run("semaphore-v2", func(t *testing.T) {
		p := zktest.Path(t)
		cur.Acquire(t, "s1", "semaphore", p, "2")
		cur.Await(t, "s1", "acquired")
		cur.Acquire(t, "s2", "semaphore", p, "2")
		cur.Await(t, "s2", "acquired")
		cur.Acquire(t, "s3", "semaphore", p, "2")
		nodesIn(t, c, p+"/leases", 3)
		cur.Acquire(t, "s4", "semaphore", p, "2")
		nodesIn(t, c, p+"/locks", 2)
		want := []string{"0 holding lease", "1 holding lease",
			"2 waiting lease -> " + p + "/leases (children)",
			"3 waiting lock -> " + p + "/leases (children)",
			"4 waiting lock -> 3 (data)"}
		expectShape(t, settled(t, cs, p, 5, "--max-leases", "2"), "curator.semaphore-v2", want...)
		// Without --max-leases it is inferred from the waiting lease.
		l := settled(t, cs, p, 5)
		if l.Num("max_leases") != 2 {
			t.Errorf("inferred max_leases %v", l["max_leases"])
		}
		cur.Release(t, "s1")
		cur.Await(t, "s3", "acquired")
		if cur.Has("s4", "acquired") {
			t.Error("s4 acquired a third lease")
		}
	})

	t.Run("leader-latch", func(t *testing.T) {
		p := zktest.Path(t)
		for i, id := range []string{"l1", "l2", "l3"} {
			cur.Acquire(t, id, "latch", p)
			nodesIn(t, c, p, i+1)
		}
		cur.Await(t, "l1", "acquired")
		expectShape(t, settled(t, cs, p, 3), "curator.leader-latch", "0 holding latch", "1 waiting latch -> 0 (data)", "2 waiting latch -> 1 (data)")
	})

	t.Run("zookeeper-writelock", func(t *testing.T) {
		p := zktest.Path(t)
		zktest.MakePath(t, c.Conn(), c.Abs(p))
		for i, id := range []string{"z1", "z2", "z3"} {
			cur.Acquire(t, id, "zklock", p)
			nodesIn(t, c, p, i+1)
		}
		cur.Await(t, "z1", "acquired")
		expectShape(t, settled(t, cs, p, 3), "zookeeper.lock", "0 holding exclusive", "1 waiting exclusive -> 0 (exists)", "2 waiting exclusive -> 1 (exists)")
	})
}

func TestLocksJSONKazooInterop(t *testing.T) {
	cl := zktest.Shared(t)
	cs := cl.ConnectString()
	c := locktest.NewClient(t, cl.Addrs())
	kz := zktest.StartKazoo(t, cs)

	t.Run("lock", func(t *testing.T) {
		p := zktest.Path(t)
		for i, id := range []string{"k1", "k2", "k3"} {
			kz.Acquire(t, id, "lock", p)
			nodesIn(t, c, p, i+1)
		}
		kz.Await(t, "k1", "acquired")
		l := settled(t, cs, p, 3)
		expectShape(t, l, "kazoo.lock", "0 holding exclusive", "1 waiting exclusive -> 0 (data)", "2 waiting exclusive -> 1 (data)")
		if d := l.Objs("participants")[1].Str("data"); d != "k2" {
			t.Errorf("data %q, want the identifier k2", d)
		}
	})

	t.Run("rwlock", func(t *testing.T) {
		p := zktest.Path(t)
		for i, x := range [][2]string{{"w1", "write"}, {"w2", "write"}, {"r3", "read"}, {"r4", "read"}} {
			kz.Acquire(t, x[0], x[1], p)
			nodesIn(t, c, p, i+1)
		}
		kz.Await(t, "w1", "acquired")
		// A kazoo reader waits on the NEAREST writer ahead (Curator's: the first).
		expectShape(t, settled(t, cs, p, 4), "kazoo.rwlock",
			"0 holding write", "1 waiting write -> 0 (data)", "2 waiting read -> 1 (data)", "3 waiting read -> 1 (data)")
		kz.Release(t, "w1")
		kz.Await(t, "w2", "acquired")
		kz.Release(t, "w2")
		kz.Await(t, "r3", "acquired")
		kz.Await(t, "r4", "acquired")
		kz.Acquire(t, "w5", "write", p)
		nodesIn(t, c, p, 3)
		expectShape(t, settled(t, cs, p, 3), "kazoo.rwlock", "0 holding read", "1 holding read", "2 waiting write -> 1 (data)")
	})

	t.Run("rwlock-deadlock-kazoo-2.8", func(t *testing.T) {
		// python-zk/kazoo#649, fixed in 2.9: a waiting reader re-waits on the
		// NEWEST writer, here one queued behind it, which waits on the reader.
		p := zktest.Path(t)
		for i, x := range [][2]string{{"d1", "write"}, {"d2", "read"}, {"d3", "write"}} {
			kz.Acquire(t, x[0], x[1], p)
			nodesIn(t, c, p, i+1)
		}
		kz.Await(t, "d1", "acquired")
		l := settled(t, cs, p, 3)
		if !hasProblem(l, "kazoo-rw-deadlock-risk") {
			t.Errorf("no deadlock risk reported: %v", l["problems"])
		}
		kz.Release(t, "d1")
		var r contracttest.Obj
		locktest.WaitFor(t, "the deadlock to be reported (or, kazoo >= 2.9, the reader to acquire)", 60*time.Second, func() bool {
			r = locksJSON(t, cs, p)
			locks := r.Objs("locks")
			return len(locks) == 1 && hasProblem(locks[0], "deadlock") || kz.Has("d2", "acquired")
		})
		if kz.Has("d2", "acquired") {
			// A fixed kazoo: no deadlock, and the report says the reader holds.
			expectShape(t, settled(t, cs, p, 2), "kazoo.rwlock", "0 holding read", "1 waiting write -> 0 (data)")
			return
		}
		l = r.Objs("locks")[0]
		ps := l.Objs("participants")
		if len(ps) != 2 || len(ps[0].Strs("observed_watches")) != 1 || ps[1].Str("watches") != ps[0].Str("node") {
			t.Errorf("the reader should be seen watching the writer behind it, which watches the reader: %v", ps)
		}
		cmd := locktest.ZkscopeCmd(t, t.TempDir(), cs, "doctor", p)
		var out strings.Builder
		cmd.Stdout = &out
		if code, _ := locktest.RunWithin(t, cmd, 60*time.Second); code != 1 || !strings.Contains(out.String(), "deadlock\t"+ps[0].Str("node")) {
			t.Errorf("doctor (exit %d) did not report the deadlock:\n%s", code, out.String())
		}
	})

	t.Run("semaphore", func(t *testing.T) {
		p := zktest.Path(t)
		kz.Acquire(t, "s1", "semaphore", p, "1")
		kz.Await(t, "s1", "acquired")
		kz.Acquire(t, "s2", "semaphore", p, "1")
		nodesIn(t, c, p+"-__lock__", 1)
		kz.Acquire(t, "s3", "semaphore", p, "1")
		nodesIn(t, c, p+"-__lock__", 2)
		l := settled(t, cs, p, 3)
		expectShape(t, l, "kazoo.semaphore", "0 holding lease", "1 waiting lock -> "+p+" (children)", "2 waiting lock -> 1 (data)")
		if l.Num("max_leases") != 1 {
			t.Errorf("max_leases %v, want 1 (the semaphore node's data)", l["max_leases"])
		}
		kz.Release(t, "s1")
		kz.Await(t, "s2", "acquired")
	})
}

func TestLocksJSONGoZKInterop(t *testing.T) {
	cl := zktest.Shared(t)
	cs := cl.ConnectString()
	c := locktest.NewClient(t, cl.Addrs())
	p := zktest.Path(t)
	type contender struct {
		lock     *zk.Lock
		acquired chan error
	}
	var cs3 []contender
	for i := 0; i < 3; i++ {
		conn, _, err := zk.Connect(cl.Addrs(), 10*time.Second, zk.WithLogInfo(false))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(conn.Close)
		if i == 0 {
			zktest.MakePath(t, conn, c.Abs(p))
		}
		k := contender{zk.NewLock(conn, p, zk.WorldACL(zk.PermAll)), make(chan error, 1)}
		go func() { k.acquired <- k.lock.Lock() }()
		nodesIn(t, c, p, i+1)
		cs3 = append(cs3, k)
	}
	if err := <-cs3[0].acquired; err != nil {
		t.Fatal(err)
	}
	expectShape(t, settled(t, cs, p, 3), "go-zk.lock", "0 holding exclusive", "1 waiting exclusive -> 0 (data)", "2 waiting exclusive -> 1 (data)")
	if err := cs3[0].lock.Unlock(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-cs3[1].acquired:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the second go-zk contender did not acquire")
	}
	select {
	case <-cs3[2].acquired:
		t.Fatal("the third go-zk contender acquired out of turn")
	default:
	}
}

// requireObserved: the servers must confirm every data/exists wait (and
// report the holder's client address).
const requireObserved = true

func hasProblem(l contracttest.Obj, kind string) bool {
	for _, p := range l.Objs("problems") {
		if p.Str("kind") == kind {
			return true
		}
	}
	return false
}
