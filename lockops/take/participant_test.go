package take

// A node inside a lock directory is that lock's participant, never a lock
// of its own: `zkscope lock` on it is refused, naming the lock, and the
// take code itself creates nothing there, on real kazoo and Curator locks.

import (
	"context"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// dirState is a directory's children and cversion, to show that nothing
// was created in it (a create bumps the cversion even if deleted again).
func dirState(t *testing.T, c *zkview.Client, dir string) (string, int32) {
	t.Helper()
	kids, st, err := c.Conn().Children(c.Abs(dir))
	if err != nil {
		t.Fatalf("children of %s: %v", dir, err)
	}
	slices.Sort(kids)
	return strings.Join(kids, ","), st.Cversion
}

// holderOf waits until dir has want children and returns the first in
// sequence order (the holder of a kazoo lock and a Curator mutex alike).
func holderOf(t *testing.T, c *zkview.Client, dir string, want int) string {
	t.Helper()
	var kids []string
	locktest.WaitFor(t, "the contenders' nodes in "+dir, 90*time.Second, func() bool {
		kids = locktest.Children(t, c, dir)
		return len(kids) == want
	})
	slices.SortFunc(kids, func(a, b string) int { return strings.Compare(a[len(a)-10:], b[len(b)-10:]) })
	return zkview.Join(dir, kids[0])
}

// TestCLILockOnParticipantRefused: a real kazoo lock (holder and a waiter
// watching the holder) and a real Curator mutex: `zkscope lock` on the
// holder's node, with the lock's own --recipe, with --recipe ephemeral and
// with none, and on a new path inside the lock directory, is refused (exit
// 2, one line naming the lock directory, never suggesting --recipe
// ephemeral), and the directory's children and cversion are unchanged.
func TestCLILockOnParticipantRefused(t *testing.T) {
	cl := zktest.Shared(t)
	auditLog := audittest.ToTemp(t)
	state := path.Dir(path.Dir(auditLog))
	c := locktest.NewClient(t, cl.Addrs())
	base := zktest.Path(t)

	kz := zktest.StartKazoo(t, cl.ConnectString())
	kazooDir := base + "/locks/t2"
	kz.Acquire(t, "holder", "lock", kazooDir)
	kz.Await(t, "holder", "acquired")
	kz.Acquire(t, "waiter", "lock", kazooDir)
	kazooHolder := holderOf(t, c, kazooDir, 2)
	locktest.WatchedBy(t, cl.Addrs()[0], kazooHolder)

	cu := zktest.StartCurator(t, cl.ConnectString())
	curatorDir := base + "/locks/mutex"
	cu.Acquire(t, "holder", "mutex", curatorDir)
	cu.Await(t, "holder", "acquired")
	curatorHolder := holderOf(t, c, curatorDir, 1)

	for _, tc := range []struct {
		dir, node, recipe string
	}{
		{kazooDir, kazooHolder, "kazoo"},
		{curatorDir, curatorHolder, "curator"},
	} {
		for _, args := range [][]string{
			{"lock", tc.node, "--recipe", tc.recipe, "--timeout", "5s"},
			{"lock", tc.node, "--recipe", "ephemeral", "--timeout", "5s"},
			{"lock", tc.node, "--timeout", "5s"},
			{"lock", tc.dir + "/mine/deploy", "--recipe", tc.recipe, "--timeout", "5s"},
		} {
			kids, cversion := dirState(t, c, tc.dir)
			code, stderr := locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), args...), 60*time.Second)
			line := strings.TrimSpace(stderr)
			if code != lockops.ExitRefused || strings.Contains(line, "\n") || !strings.Contains(line, "did you mean "+tc.dir+"?") ||
				strings.Contains(line, "--recipe ephemeral") {
				t.Errorf("zkscope %q: exit %d, stderr %q; want exit %d and one line naming %s, no --recipe ephemeral", args, code, stderr, lockops.ExitRefused, tc.dir)
			}
			if k, v := dirState(t, c, tc.dir); k != kids || v != cversion {
				t.Errorf("zkscope %q changed %s: children %s cversion %d, were %s cversion %d", args, tc.dir, k, v, kids, cversion)
			}
		}
	}
	// The TUI's take dialog asks the same planner for every choice.
	for _, lib := range append([]*lockops.Library{nil, lockops.Ephemeral}, lockops.TakeLibraries()...) {
		if _, err := PlanTake(context.Background(), c, kazooHolder, Options{Library: lib}); !lockops.IsRefusal(err) || !strings.Contains(err.Error(), "did you mean "+kazooDir+"?") {
			t.Errorf("PlanTake of the kazoo holder with %s: %v, want a refusal naming %s", lib, err, kazooDir)
		}
	}
	if kz.Has("waiter", "acquired") {
		t.Error("the kazoo waiter got the lock its holder still holds")
	}
	if !audittest.Has(audittest.Read(t, auditLog), lockops.OpTake, audit.Refused, kazooHolder) {
		t.Error("the refusal is not in the audit log")
	}
}

// TestTakeCodeCreatesNothingInLockDir: the take code itself, bypassing
// the planner, creates no plain ephemeral node and no missing parent inside
// a lock directory: a real kazoo lock whose first holder has let go, its
// exact name free again while the second holds.
func TestTakeCodeCreatesNothingInLockDir(t *testing.T) {
	cl := zktest.Shared(t)
	audittest.ToTemp(t)
	c := locktest.NewClient(t, cl.Addrs())
	dir := zktest.Path(t) + "/locks/t2"
	kz := zktest.StartKazoo(t, cl.ConnectString())
	kz.Acquire(t, "first", "lock", dir)
	kz.Await(t, "first", "acquired")
	kz.Acquire(t, "second", "lock", dir)
	first := holderOf(t, c, dir, 2)
	kz.Release(t, "first")
	kz.Await(t, "second", "acquired")
	kids, cversion := dirState(t, c, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	plan := Plan{Path: first, Library: lockops.Ephemeral, Mode: lockops.ModeExclusive, Kind: lockops.KindEphemeralLock}
	if h, err := joinEphemeral(ctx, c, plan, Options{Wait: hold.WaitNone}); !lockops.IsRefusal(err) || !strings.Contains(err.Error(), "did you mean "+dir+"?") {
		if h != nil {
			h.Release(ctx)
		}
		t.Errorf("joinEphemeral at %s: %v, want a refusal naming %s", first, err, dir)
	}
	plan = Plan{Path: dir + "/mine", Library: lockops.Curator, Mode: lockops.ModeExclusive, Kind: lockops.KindCuratorMutex}
	if h, err := join(ctx, c, plan, Options{Wait: hold.WaitNone}); !lockops.IsRefusal(err) {
		if h != nil {
			h.Release(ctx)
		}
		t.Errorf("join below %s: %v, want a refusal", dir, err)
	}
	if k, v := dirState(t, c, dir); k != kids || v != cversion {
		t.Errorf("the take code changed %s: children %s cversion %d, were %s cversion %d", dir, k, v, kids, cversion)
	}
}

// TestPlanTakeInsideSemaphore: a lease of a real Curator semaphore and of
// a real kazoo semaphore is refused, naming the semaphore; an
// application's own locks/ directory next to a leases/ one is no
// semaphore, and a lock in it is planned as usual.
func TestPlanTakeInsideSemaphore(t *testing.T) {
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	base := zktest.Path(t)
	ctx := context.Background()

	cu := zktest.StartCurator(t, cl.ConnectString())
	cu.Acquire(t, "s", "semaphore", base+"/cursem", "2")
	cu.Await(t, "s", "acquired")
	kz := zktest.StartKazoo(t, cl.ConnectString())
	kz.Acquire(t, "s", "semaphore", base+"/kzsem", "2")
	kz.Await(t, "s", "acquired")
	for _, tc := range []struct{ dir, sem, kind string }{
		{base + "/cursem/leases", base + "/cursem", "curator.semaphore-v2"},
		{base + "/kzsem", base + "/kzsem", "kazoo.semaphore"},
	} {
		lease := zkview.Join(tc.dir, locktest.Children(t, c, tc.dir)[0])
		_, err := PlanTake(ctx, c, lease, Options{Library: lockops.Curator})
		if !lockops.IsRefusal(err) || !strings.Contains(err.Error(), "inside the "+tc.kind+" "+tc.sem+",") {
			t.Errorf("PlanTake of the lease %s: %v, want a refusal naming the %s %s", lease, err, tc.kind, tc.sem)
		}
	}

	app := base + "/app"
	zktest.MakePath(t, c.Conn(), c.Abs(app+"/leases"))
	cu.Acquire(t, "other", "mutex", app+"/locks/other")
	cu.Await(t, "other", "acquired")
	if plan, err := PlanTake(ctx, c, app+"/locks/deploy", Options{Library: lockops.Curator}); err != nil || plan.Kind != lockops.KindCuratorMutex {
		t.Errorf("PlanTake next to an application's leases/: %+v, %v", plan, err)
	}
}
