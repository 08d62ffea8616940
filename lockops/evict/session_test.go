package evict

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/lockops/take/taketest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestEvictSession: a session (zkscope's code, kazoo format) holds /x and
// waits on /y, which a real kazoo client holds, with another kazoo client
// waiting on /x behind it. `zkscope evict --session` refuses piped input
// without --yes, then deletes exactly that session's two nodes (audited),
// and the kazoo waiter acquires /x; the kazoo holder of /y is untouched.
// zkscope's own session is refused.
func TestEvictSession(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	victim, op := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	root := zktest.Path(t)
	x, y := root+"/x", root+"/y"
	kz := zktest.StartKazoo(t, cl.ConnectString())
	kz.Acquire(t, "ky", "lock", y)
	kz.Await(t, "ky", "acquired")
	h, err := take.Take(ctx, victim, x, take.Options{Library: lockops.Kazoo})
	if err != nil {
		t.Fatal(err)
	}
	kz.Acquire(t, "kx", "lock", x)
	locktest.WaitChildren(t, op, x, 2)
	w := taketest.TakeAsync(ctx, victim, y, take.Options{Library: lockops.Kazoo})
	locktest.WaitChildren(t, op, y, 2)
	<-w.Progress // it placed its node and watches

	if _, err := PlanSession(ctx, victim, victim.SessionID(), root); !lockops.IsRefusal(err) {
		t.Fatalf("evicting our own session: %v", err)
	}
	plan, err := PlanSession(ctx, op, victim.SessionID(), root)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Nodes) != 2 || plan.Nodes[0].Holding || plan.Nodes[0].Lock != y || !plan.Nodes[1].Holding || plan.Nodes[1].Node != h.Node {
		t.Fatalf("plan %+v", plan.Nodes)
	}
	var listed bytes.Buffer
	plan.Write(&listed, time.Now())
	if !strings.Contains(listed.String(), h.Node) || !strings.Contains(listed.String(), "waiting") {
		t.Errorf("listing:\n%s", listed.String())
	}

	sid := lockops.FormatSession(victim.SessionID())
	cmd := locktest.ZkscopeCmd(t, t.TempDir(), cl.ConnectString(), "evict", "--session", sid, "--under", root)
	cmd.Stdin = strings.NewReader(sid + "\n")
	if code, stderr := locktest.RunWithin(t, cmd, 30*time.Second); code != 2 {
		t.Fatalf("piped confirmation: exit %d, want 2 (refused): %s", code, stderr)
	}
	if n := len(locktest.Children(t, op, x)) + len(locktest.Children(t, op, y)); n != 4 {
		t.Fatalf("a refused evict deleted something: %d nodes left", n)
	}
	var out bytes.Buffer
	cmd = locktest.ZkscopeCmd(t, os.Getenv("XDG_STATE_HOME"), cl.ConnectString(), "evict", "--session", sid, "--under", root, "--yes")
	cmd.Stdout = &out
	if code, stderr := locktest.RunWithin(t, cmd, 30*time.Second); code != 0 {
		t.Fatalf("evict --session --yes: exit %d: %s\n%s", code, stderr, out.String())
	}
	if strings.Count(out.String(), "deleted ") != 2 {
		t.Errorf("output:\n%s", out.String())
	}
	kz.Await(t, "kx", "acquired")
	if kids := locktest.Children(t, op, y); len(kids) != 1 || !kz.Has("ky", "acquired") || kz.Has("ky", "released") {
		t.Errorf("/y after the eviction: %v", kids)
	}
	select {
	case <-h.LostCh():
	case <-time.After(30 * time.Second):
		t.Fatal("the evicted holder did not notice")
	}

	cmd = locktest.ZkscopeCmd(t, t.TempDir(), cl.ConnectString(), "evict", "--session", sid, "--under", root, "--yes")
	out.Reset()
	cmd.Stdout = &out
	if code, stderr := locktest.RunWithin(t, cmd, 30*time.Second); code != 0 || !strings.Contains(out.String(), "nothing to do") {
		t.Errorf("second evict: exit %d %s\n%s", code, stderr, out.String())
	}
	n := 0
	for _, e := range audittest.Read(t, auditLog) {
		if e.Operation == lockops.OpForceDelete && e.Result == audit.OK && strings.HasPrefix(e.Path, root) {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d force-delete audit lines, want 2", n)
	}
}

// TestEvictSessionEphemeralLock: a real kazoo client holds a plain
// ephemeral lock (create, or watch with exists) another kazoo client waits
// on; `zkscope evict --session` of the holder's session finds that node
// through its watcher, deletes it, and the waiter takes the lock. The
// waiter's session owns no node: evicting it has nothing to do.
func TestEvictSessionEphemeralLock(t *testing.T) {
	audittest.ToTemp(t)
	cl := zktest.Shared(t)
	op := locktest.NewClient(t, cl.Addrs())
	root := zktest.Path(t)
	lock := root + "/leader"
	kz := zktest.StartKazoo(t, cl.ConnectString())
	kz.Acquire(t, "a", "ephemeral", lock)
	kz.Await(t, "a", "acquired")
	kz.Acquire(t, "b", "ephemeral", lock)
	kz.Await(t, "b", "waiting")
	_, st, err := op.Conn().Get(lock)
	if err != nil {
		t.Fatal(err)
	}
	holder := st.EphemeralOwner

	ctx := context.Background()
	var plan *SessionEviction
	deadline := time.Now().Add(30 * time.Second)
	for {
		if plan, err = PlanSession(ctx, op, holder, root); err != nil {
			t.Fatal(err)
		}
		if len(plan.Nodes) == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond) // until the servers list b's watch, with a deadline
	}
	if len(plan.Nodes) != 1 || plan.Nodes[0].Node != lock || !plan.Nodes[0].Holding || plan.Nodes[0].Kind != lockops.KindEphemeralLock {
		t.Fatalf("plan %+v", plan.Nodes)
	}
	for _, w := range op.Introspect(ctx).Watchers(lock) {
		if p, err := PlanSession(ctx, op, w, root); err != nil || len(p.Nodes) != 0 {
			t.Errorf("the waiter %s's plan: %v %+v", lockops.FormatSession(w), err, p)
		}
	}
	var out bytes.Buffer
	cmd := locktest.ZkscopeCmd(t, os.Getenv("XDG_STATE_HOME"), cl.ConnectString(), "evict", "--session", lockops.FormatSession(holder), "--under", root, "--yes")
	cmd.Stdout = &out
	if code, stderr := locktest.RunWithin(t, cmd, 30*time.Second); code != 0 || !strings.Contains(out.String(), "deleted "+lock) {
		t.Fatalf("evict --session: exit %d: %s\n%s", code, stderr, out.String())
	}
	kz.Await(t, "b", "acquired")
	_, st, err = op.Conn().Get(lock)
	if err != nil || st.EphemeralOwner == holder {
		t.Fatalf("after the eviction: %v, owner %x", err, st.EphemeralOwner)
	}
}

// TestEvictSessionForceLeader: evicting the session of Kafka's controller
// refuses its leader node without ForceLeader (--force-leader), the node
// staying, and deletes it with it.
func TestEvictSessionForceLeader(t *testing.T) {
	cl := zktest.Shared(t)
	base := zktest.Path(t)
	s := locktest.BuildElections(t, cl.Addrs(), base)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	op := locktest.NewClient(t, cl.Addrs())
	ctx := context.Background()
	controller := base + "/kafka/controller"
	plan, err := PlanSession(ctx, op, s["broker1"].SessionID(), base+"/kafka")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Nodes) != 1 || plan.Nodes[0].Node != controller {
		t.Fatalf("plan = %+v, want the controller node alone", plan.Nodes)
	}
	if err := EvictSession(ctx, op, plan, nil); !lockops.IsRefusal(err) {
		t.Fatalf("EvictSession without ForceLeader = %v, want a refusal", err)
	}
	if ok, _, err := op.Conn().Exists(op.Abs(controller)); err != nil || !ok {
		t.Fatalf("after the refusal %s exists = %v (%v), want it kept", controller, ok, err)
	}
	plan.ForceLeader = true
	if err := EvictSession(ctx, op, plan, nil); err != nil {
		t.Fatalf("EvictSession with ForceLeader: %v", err)
	}
	if ok, _, err := op.Conn().Exists(op.Abs(controller)); err != nil || ok {
		t.Fatalf("after the eviction %s exists = %v (%v), want it deleted", controller, ok, err)
	}
}
