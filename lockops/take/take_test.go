package take_test

import (
	"context"
	"errors"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/lockops/take/taketest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// TestTakeReleaseEachFormat takes each recipe's exclusive (or write) side,
// checks the node's exact format and parents, makes a second zkscope
// contender queue behind it on the right node, and hands over on release.
func TestTakeReleaseEachFormat(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	for _, tc := range []struct {
		recipe    *lockops.Library
		mode      lockops.Mode
		container bool
	}{
		{lockops.Curator, lockops.ModeExclusive, true},
		{lockops.Curator, lockops.ModeWrite, true},
		{lockops.Kazoo, lockops.ModeExclusive, false},
		{lockops.Kazoo, lockops.ModeWrite, false},
		{lockops.GoZK, lockops.ModeExclusive, false},
	} {
		t.Run(tc.recipe.Name+"/"+string(tc.mode), func(t *testing.T) {
			ctx := context.Background()
			a := locktest.NewClient(t, cl.Addrs())
			b := locktest.NewClient(t, cl.Addrs())
			lockPath := zktest.Path(t) + "/lock"
			h1, err := take.Take(ctx, a, lockPath, take.Options{Library: tc.recipe, Mode: tc.mode, Note: "first"})
			if err != nil {
				t.Fatalf("take: %v", err)
			}
			if h1.State() != hold.StateHeld {
				t.Fatalf("state %s, want held", h1.State())
			}
			name := path.Base(h1.Node)
			if re := take.NameFormats[tc.recipe.Name+"/"+string(tc.mode)]; !re.MatchString(name) {
				t.Fatalf("node name %q does not match %s", name, re)
			}
			data, st, err := a.Conn().Get(h1.Node)
			if err != nil {
				t.Fatal(err)
			}
			if st.EphemeralOwner != a.SessionID() || h1.Session != a.SessionID() {
				t.Fatalf("owner 0x%x, held session 0x%x, client session 0x%x", st.EphemeralOwner, h1.Session, a.SessionID())
			}
			if !strings.Contains(string(data), "zkscope pid") || !strings.HasSuffix(string(data), ": first") {
				t.Fatalf("node data %q lacks the owner identity and note", data)
			}
			// A second contender in the same format queues behind us and
			// watches our node.
			second := taketest.TakeAsync(ctx, b, lockPath, take.Options{Mode: tc.mode})
			pr := second.WaitingOn(t, h1.Node)
			if pr.Position != 1 || pr.QueueLen != 2 {
				t.Fatalf("second contender progress %+v, want position 1 of 2", pr)
			}
			if err := h1.Release(ctx); err != nil {
				t.Fatalf("release: %v", err)
			}
			if err := h1.Release(ctx); err != nil {
				t.Fatalf("second release must be a no-op: %v", err)
			}
			h2, err := second.Wait(t)
			if err != nil {
				t.Fatalf("second take: %v", err)
			}
			if !take.NameFormats[tc.recipe.Name+"/"+string(tc.mode)].MatchString(path.Base(h2.Node)) {
				t.Fatalf("auto-detected contender made %q", h2.Node)
			}
			if err := h2.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if kids := locktest.Children(t, a, lockPath); len(kids) != 0 {
				t.Fatalf("nodes left behind: %v", kids)
			}
			// Clients see ephemeralOwner 0 for containers too, and the server
			// removes emptied ones only after a while: only the persistent
			// parents are checked here.
			if !tc.container {
				if ok, _, err := a.Conn().Exists(lockPath); err != nil || !ok {
					t.Fatalf("persistent parent %s is gone (%v)", lockPath, err)
				}
			}
		})
	}
	entries := audittest.Read(t, auditLog)
	if !audittest.Has(entries, lockops.OpTake, audit.OK, "/zkscope-test/") || !audittest.Has(entries, lockops.OpRelease, audit.OK, "/zkscope-test/") {
		t.Fatalf("audit log lacks take/release lines: %+v", entries)
	}
}

// TestReadersShareWritersWait checks both read/write formats: two readers
// hold together, a writer waits on the right node, and readers behind the
// writer wait on it.
func TestReadersShareWritersWait(t *testing.T) {
	audittest.ToTemp(t)
	cl := zktest.Shared(t)
	for _, recipe := range []*lockops.Library{lockops.Curator, lockops.Kazoo} {
		t.Run(recipe.Name, func(t *testing.T) {
			ctx := context.Background()
			lockPath := zktest.Path(t)
			r1c, r2c, wc, r3c := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
			r1, err := take.Take(ctx, r1c, lockPath, take.Options{Library: recipe, Mode: lockops.ModeRead})
			if err != nil {
				t.Fatal(err)
			}
			r2, err := take.Take(ctx, r2c, lockPath, take.Options{Library: recipe, Mode: lockops.ModeRead, Wait: hold.WaitNone})
			if err != nil {
				t.Fatalf("second reader must not wait: %v", err)
			}
			w := taketest.TakeAsync(ctx, wc, lockPath, take.Options{Library: recipe, Mode: lockops.ModeWrite})
			w.WaitingOn(t, r2.Node) // the nearest (kazoo) / previous (Curator) node
			var writerNode string
			locktest.WaitFor(t, "the writer's node", 30*time.Second, func() bool {
				for _, k := range locktest.Children(t, r1c, lockPath) {
					if strings.Contains(k, "__WRIT__") || strings.Contains(k, "__lock__") {
						writerNode = zkview.Join(lockPath, k)
						return true
					}
				}
				return false
			})
			r3 := taketest.TakeAsync(ctx, r3c, lockPath, take.Options{Library: recipe, Mode: lockops.ModeRead})
			r3.WaitingOn(t, writerNode)
			if err := r2.Release(ctx); err != nil {
				t.Fatal(err)
			}
			w.WaitingOn(t, r1.Node)
			if err := r1.Release(ctx); err != nil {
				t.Fatal(err)
			}
			wh, err := w.Wait(t)
			if err != nil {
				t.Fatal(err)
			}
			if err := wh.Release(ctx); err != nil {
				t.Fatal(err)
			}
			rh, err := r3.Wait(t)
			if err != nil {
				t.Fatal(err)
			}
			rh.Release(ctx)
		})
	}
}

// TestGoZKLockWaitsForUs: go-zookeeper's own zk.Lock waits while zkscope
// holds a go-zk format lock and gets it when we release; and we wait for it.
func TestGoZKLockWaitsForUs(t *testing.T) {
	audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	lockPath := zktest.Path(t)
	ours := locktest.NewClient(t, cl.Addrs())
	theirs := locktest.NewClient(t, cl.Addrs())
	h, err := take.Take(ctx, ours, lockPath, take.Options{Library: lockops.GoZK})
	if err != nil {
		t.Fatal(err)
	}
	l := zk.NewLock(theirs.Conn(), lockPath, zk.WorldACL(zk.PermAll))
	locked := make(chan error, 1)
	go func() { locked <- l.Lock() }()
	locktest.WaitFor(t, "zk.Lock to queue", 30*time.Second, func() bool { return len(locktest.Children(t, ours, lockPath)) == 2 })
	select {
	case err := <-locked:
		t.Fatalf("zk.Lock returned (%v) while zkscope holds the lock", err)
	default:
	}
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-locked:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("zk.Lock did not get the lock after we released it")
	}
	// Now they hold it: auto-detection picks go-zk and we wait on their node.
	w := taketest.TakeAsync(ctx, ours, lockPath, take.Options{})
	pr := w.WaitingOn(t, zkview.Join(lockPath, locktest.Children(t, ours, lockPath)[0]))
	if pr.Recipe != "go-zk.lock" {
		t.Fatalf("auto-detected %s, want go-zk.lock", pr.Recipe)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	h2, err := w.Wait(t)
	if err != nil {
		t.Fatal(err)
	}
	h2.Release(ctx)
}

// TestTimeoutAndNoWaitLeaveNoNode: a take that times out, and a --no-wait
// take, delete their node again and log the failure.
func TestTimeoutAndNoWaitLeaveNoNode(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	lockPath := zktest.Path(t)
	a, b := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	h, err := take.Take(ctx, a, lockPath, take.Options{Library: lockops.Curator})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release(ctx)
	_, err = take.Take(ctx, b, lockPath, take.Options{Wait: hold.WaitTimeout, Timeout: 300 * time.Millisecond})
	if !errors.Is(err, hold.ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout", err)
	}
	if kids := locktest.Children(t, a, lockPath); len(kids) != 1 || kids[0] != path.Base(h.Node) {
		t.Fatalf("after timeout the queue is %v, want only the holder", kids)
	}
	_, err = take.Take(ctx, b, lockPath, take.Options{Wait: hold.WaitNone})
	if !errors.Is(err, hold.ErrWouldBlock) {
		t.Fatalf("got %v, want ErrWouldBlock", err)
	}
	if kids := locktest.Children(t, a, lockPath); len(kids) != 1 {
		t.Fatalf("after --no-wait the queue is %v, want only the holder", kids)
	}
	// A cancelled context behaves like a timeout.
	cctx, cancel := context.WithCancel(ctx)
	w := taketest.TakeAsync(cctx, b, lockPath, take.Options{})
	w.WaitingOn(t, h.Node)
	cancel()
	if _, err := w.Wait(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	locktest.WaitFor(t, "the cancelled contender's node to go", 10*time.Second, func() bool { return len(locktest.Children(t, a, lockPath)) == 1 })
	if entries := audittest.Read(t, auditLog); !audittest.Has(entries, lockops.OpTake, audit.Failed, lockPath) {
		t.Fatalf("audit log lacks the failed takes: %+v", entries)
	}
}

// TestForceDeletedNodeIsLost: someone deletes our node; the handle says
// Lost at once (never held again) and Release says so.
func TestForceDeletedNodeIsLost(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a, other := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	h, err := take.Take(ctx, a, zktest.Path(t), take.Options{Library: lockops.Curator})
	if err != nil {
		t.Fatal(err)
	}
	changes := h.Changes()
	if err := other.Conn().Delete(h.Node, -1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.LostCh():
	case <-time.After(30 * time.Second):
		t.Fatal("deletion of our node was not noticed")
	}
	if h.State() != hold.StateLost || !strings.Contains(h.Reason(), "deleted") {
		t.Fatalf("state %s (%s), want lost because deleted", h.State(), h.Reason())
	}
	var last hold.Change
	for ch := range changes {
		last = ch
	}
	if last.State != hold.StateLost {
		t.Fatalf("last change %+v, want lost", last)
	}
	if err := h.Release(ctx); !errors.Is(err, hold.ErrLost) {
		t.Fatalf("release of a lost lock: %v, want ErrLost", err)
	}
	if !audittest.Has(audittest.Read(t, auditLog), lockops.OpRelease, audit.Failed, h.Node) {
		t.Fatal("audit log lacks the failed release")
	}
}

// TestHoldKeepsSessionAlive holds a lock across several session timeouts:
// go-zookeeper's pings keep the session and the node. (A brief suspension
// on a badly stalled machine is allowed; losing the lock is not.)
func TestHoldKeepsSessionAlive(t *testing.T) {
	audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a := locktest.NewClient(t, cl.Addrs(), func(c *zkview.Config) { c.SessionTimeout = 2 * time.Second })
	h, err := take.Take(ctx, a, zktest.Path(t), take.Options{Library: lockops.Curator})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(6 * time.Second) // the point of the test: time passes while held
	select {
	case <-h.LostCh():
		t.Fatalf("lost while idle: %s", h.Reason())
	default:
	}
	locktest.WaitFor(t, "the lock to be held", 30*time.Second, func() bool { return h.State() == hold.StateHeld })
	if _, st, err := a.Conn().Get(h.Node); err != nil || st.EphemeralOwner != h.Session || a.SessionID() != h.Session {
		t.Fatalf("node after idle hold: %v %+v", err, st)
	}
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestReadOnlyRefusesTake: a read-only client never creates a node, and the
// refusal is logged.
func TestReadOnlyRefusesTake(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ro := locktest.NewClient(t, cl.Addrs(), func(c *zkview.Config) { c.ReadOnly = true })
	lockPath := zktest.Path(t)
	_, err := take.Take(context.Background(), ro, lockPath, take.Options{})
	if !errors.Is(err, zkview.ErrReadOnly) {
		t.Fatalf("got %v, want ErrReadOnly", err)
	}
	if ok, _, _ := ro.Conn().Exists(lockPath); ok {
		t.Fatal("read-only take created the lock directory")
	}
	if !audittest.Has(audittest.Read(t, auditLog), lockops.OpTake, audit.Refused, lockPath) {
		t.Fatal("audit log lacks the refused take")
	}
}

// TestRecipeMismatch: asking for an exclusive lock on a Curator read/write
// directory is refused before any node is created.
func TestRecipeMismatch(t *testing.T) {
	audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a := locktest.NewClient(t, cl.Addrs())
	lockPath := zktest.Path(t)
	h, err := take.Take(ctx, a, lockPath, take.Options{Library: lockops.Curator, Mode: lockops.ModeRead})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release(ctx)
	if _, err := take.Take(ctx, a, lockPath, take.Options{}); err == nil || !strings.Contains(err.Error(), "--mode") {
		t.Fatalf("got %v, want a --mode hint", err)
	}
	if kids := locktest.Children(t, a, lockPath); len(kids) != 1 {
		t.Fatalf("queue %v, want only the reader", kids)
	}
}

// TestTakeUnderChroot: with a chroot, paths are the caller's view and the
// nodes land below the chroot on the server.
func TestTakeUnderChroot(t *testing.T) {
	audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	chroot := zktest.Path(t)
	raw := locktest.NewClient(t, cl.Addrs())
	zktest.MakePath(t, raw.Conn(), chroot)
	a := locktest.NewClient(t, cl.Addrs(), func(c *zkview.Config) { c.Chroot = chroot })
	b := locktest.NewClient(t, cl.Addrs(), func(c *zkview.Config) { c.Chroot = chroot })
	h, err := take.Take(ctx, a, "/app/lock", take.Options{Library: lockops.Curator})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h.Node, "/app/lock/_c_") {
		t.Fatalf("node %s is not in the caller's view", h.Node)
	}
	if kids := locktest.Children(t, raw, chroot+"/app/lock"); len(kids) != 1 || "/app/lock/"+kids[0] != h.Node {
		t.Fatalf("server-side children %v for %s", kids, h.Node)
	}
	w := taketest.TakeAsync(ctx, b, "/app/lock", take.Options{})
	w.WaitingOn(t, h.Node)
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	h2, err := w.Wait(t)
	if err != nil {
		t.Fatal(err)
	}
	h2.Release(ctx)
}
