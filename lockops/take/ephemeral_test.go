package take

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLockEphemeralExcludesKazoo: `zkscope lock --recipe ephemeral` waits
// while a real kazoo client holds the lock with the same create-or-watch
// pattern, runs its command once kazoo lets go; and kazoo waits while
// zkscope holds it.
func TestLockEphemeralExcludesKazoo(t *testing.T) {
	cl := zktest.Shared(t)
	cs := cl.ConnectString()
	lock := zktest.Path(t)
	c := locktest.NewClient(t, cl.Addrs())
	kz := zktest.StartKazoo(t, cs)
	kz.Acquire(t, "k1", "ephemeral", lock)
	kz.Await(t, "k1", "acquired")

	// zkscope waits for kazoo.
	cmd := locktest.ZkscopeCmd(t, t.TempDir(), cs, "lock", lock, "--recipe", "ephemeral", "--", "sh", "-c", "echo ran")
	var out locktest.LockedBuffer
	cmd.Stdout = &out
	stderr, exited := locktest.StartCLI(t, cmd, "watching "+lock)
	if out.String() != "" {
		t.Fatalf("the command ran while kazoo held the lock: %q", out.String())
	}
	kz.Release(t, "k1")
	<-exited
	if code := cmd.ProcessState.ExitCode(); code != 0 || out.String() != "ran\n" {
		t.Fatalf("zkscope lock: exit %d, stdout %q, stderr:\n%s", code, out.String(), stderr.String())
	}
	if ok, _, _ := c.Conn().Exists(c.Abs(lock)); ok {
		t.Error("zkscope left its node behind")
	}

	// kazoo waits for zkscope: zkscope holds until its command's stdin ends.
	cmd = locktest.ZkscopeCmd(t, t.TempDir(), cs, "lock", lock, "--recipe", "ephemeral", "--", "sh", "-c", "cat >/dev/null")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, exited = locktest.StartCLI(t, cmd, "holding "+lock)
	kz.Acquire(t, "k2", "ephemeral", lock)
	kz.Await(t, "k2", "waiting")
	if kz.Has("k2", "acquired") {
		t.Fatal("kazoo took the lock zkscope holds")
	}
	// A lock --recipe kazoo on the ephemeral node is refused: mixing.
	code, refusal := locktest.RunWithin(t, locktest.ZkscopeCmd(t, t.TempDir(), cs, "lock", lock, "--recipe", "kazoo", "--no-wait"), 60*time.Second)
	if code != 2 || !strings.Contains(refusal, "--recipe ephemeral") {
		t.Errorf("lock --recipe kazoo on an ephemeral lock: exit %d, %q", code, refusal)
	}
	in.Close()
	if <-exited; cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("zkscope lock: exit %d; stderr:\n%s", cmd.ProcessState.ExitCode(), stderr.String())
	}
	kz.Await(t, "k2", "acquired")
}

// TestPlanTakeEphemeral: an ephemeral node at PATH means a plain
// ephemeral lock and nothing else; --recipe ephemeral takes only a
// missing or ephemeral PATH, exclusively. Refusals write nothing.
func TestPlanTakeEphemeral(t *testing.T) {
	cl := zktest.Shared(t)
	c, owner := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base+"/persistent/child")
	locktest.MustCreate(t, owner.Conn(), base+"/held", []byte("someone"), zk.FlagEphemeral)
	ctx := context.Background()
	cases := []struct {
		path   string
		o      Options
		refuse string // part of the refusal; "" for a plan
		why    bool   // the plan says why it chose the recipe
	}{
		{base + "/held", Options{}, "", true},
		{base + "/held", Options{Library: lockops.Ephemeral}, "", false},
		{base + "/held", Options{Library: lockops.Curator}, "pass --recipe ephemeral", false},
		{base + "/free", Options{Library: lockops.Ephemeral}, "", false},
		{base + "/free", Options{Library: lockops.Ephemeral, Mode: lockops.ModeRead}, "pass --mode exclusive", false},
		{base + "/persistent", Options{Library: lockops.Ephemeral}, "1 child below it", false},
		{base + "/persistent/child", Options{Library: lockops.Ephemeral}, "it is a persistent node", false},
	}
	for _, k := range cases {
		plan, err := PlanTake(ctx, c, k.path, k.o)
		switch {
		case k.refuse != "":
			if !lockops.IsRefusal(err) || !strings.Contains(err.Error(), k.refuse) {
				t.Errorf("%s %+v: %v, want a refusal with %q", k.path, k.o, err, k.refuse)
			}
		case err != nil || plan.Kind != lockops.KindEphemeralLock || plan.Library != lockops.Ephemeral || (plan.Why != "") != k.why:
			t.Errorf("%s %+v: plan %+v, %v", k.path, k.o, plan, err)
		}
	}
	if ok, _, _ := c.Conn().Exists(c.Abs(base + "/free")); ok {
		t.Error("planning wrote a node")
	}
}

// TestTakeEphemeralInProcess: Take with --recipe ephemeral: busy with
// --no-wait, waits for the holder otherwise, and a held lock whose node
// someone deletes is lost and stays lost.
func TestTakeEphemeralInProcess(t *testing.T) {
	audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a, b := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	lock := zktest.Path(t) + "/job"
	h1, err := Take(ctx, a, lock, Options{Library: lockops.Ephemeral})
	if err != nil {
		t.Fatal(err)
	}
	if h1.Node != lock || h1.Recipe != string(lockops.KindEphemeralLock) {
		t.Fatalf("held %s (%s)", h1.Node, h1.Recipe)
	}
	if _, err := Take(ctx, b, lock, Options{Wait: hold.WaitNone}); !errors.Is(err, hold.ErrWouldBlock) {
		t.Fatalf("a second take with no wait: %v, want %v", err, hold.ErrWouldBlock)
	}
	waiting := make(chan Progress, 4)
	got := make(chan error, 1)
	var h2 *Held
	go func() {
		var err error
		h2, err = Take(ctx, b, lock, Options{Progress: func(p Progress) { waiting <- p }})
		got <- err
	}()
	if p := <-waiting; p.WaitingOn != lock {
		t.Fatalf("progress %+v", p)
	}
	select {
	case err := <-got:
		t.Fatalf("took the lock while it was held: %v", err)
	default:
	}
	if err := h1.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if err := a.Conn().Delete(a.Abs(lock), -1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h2.LostCh():
	case <-time.After(30 * time.Second):
		t.Fatal("deletion of our node was not noticed")
	}
	if h2.State() != hold.StateLost {
		t.Fatalf("state %s, want lost", h2.State())
	}
}
