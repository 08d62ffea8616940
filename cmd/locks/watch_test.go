package locks_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/dbview/dbtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLocksWatchEphemeralLock: `locks --watch` finds a plain ephemeral
// lock that real kazoo clients take with create-or-watch (holder, and the
// waiter the servers list watching it with exists, zkscope itself never
// among them), and draws the new holder when the first lets go — from its
// watch, not from a rescan (the interval is far longer than the test).
func TestLocksWatchEphemeralLock(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	c := cmdtest.Dial(t, s)
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll)) // may exist already
	base := zktest.Path(t)
	if _, err := c.Create(base, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	lock := base + "/maintenance"
	kz := zktest.StartKazoo(t, s)
	kz.Acquire(t, "k1", "ephemeral", lock)
	kz.Await(t, "k1", "acquired")
	kz.Acquire(t, "k2", "ephemeral", lock)
	kz.Await(t, "k2", "waiting")

	cmd := exec.Command(cmdtest.Binary(t), "-s", s, "locks", base, "--watch", "--json", "--interval", "10m")
	var out cmdtest.SyncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	frameWith := func(holder string) bool { return ephemeralFrame(t, out.String(), lock, holder) }
	cmdtest.WaitUntil(t, "a frame with k1 holding and k2 waiting", func() bool { return frameWith("k1") })
	kz.Release(t, "k1")
	kz.Await(t, "k2", "acquired")
	cmdtest.WaitUntil(t, "a frame with k2 holding", func() bool { return frameWith("k2") })
}

// ephemeralFrame reports whether a line of text (NDJSON frames) shows the
// plain ephemeral lock at lock held by holder (kazoo's data), with one
// waiter watching it (exists) or, k2 holding, none.
func ephemeralFrame(t *testing.T, text, lock, holder string) bool {
	for _, line := range strings.Split(text, "\n") {
		var r struct {
			Locks []struct {
				Path, Recipe string
				Participants []struct {
					State, Data, Watches string
					WatchKind            string `json:"watch_kind"`
					OwnNode              *bool  `json:"own_node"`
				}
			}
		}
		if json.Unmarshal([]byte(line), &r) != nil || len(r.Locks) != 1 {
			continue
		}
		l := r.Locks[0]
		if l.Path != lock || l.Recipe != "zookeeper.ephemeral-lock" || len(l.Participants) < 1 {
			continue
		}
		h := l.Participants[0]
		if h.State != "holding" || h.Data != holder {
			continue
		}
		if len(l.Participants) > 2 {
			t.Fatalf("more waiters than kazoo's (zkscope counted itself?): %s", line)
		}
		if len(l.Participants) == 2 {
			w := l.Participants[1]
			return w.State == "waiting" && w.WatchKind == "exists" && w.Watches == lock && w.OwnNode != nil && !*w.OwnNode
		}
		return holder == "k2" // k2 holds: nobody is left waiting
	}
	return false
}

// TestLocksWatchFindsEphemeralLock: a plain ephemeral lock taken after
// `locks --watch` began (no lock directory: no event makes it one) is
// found by the interval's look through the servers' watch lists, then
// followed: the new holder is drawn when the first lets go.
func TestLocksWatchFindsEphemeralLock(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	c := cmdtest.Dial(t, s)
	base := zktest.Path(t)
	zktest.MakePath(t, c, base)
	lock := base + "/maintenance"
	cmd := exec.Command(cmdtest.Binary(t), "-s", s, "locks", base, "--watch", "--json", "--interval", "1s")
	var out cmdtest.SyncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	cmdtest.WaitUntil(t, "the first frame", func() bool { return strings.Contains(out.String(), "\n") })
	kz := zktest.StartKazoo(t, s)
	kz.Acquire(t, "k1", "ephemeral", lock)
	kz.Await(t, "k1", "acquired")
	kz.Acquire(t, "k2", "ephemeral", lock)
	kz.Await(t, "k2", "waiting")
	cmdtest.WaitUntil(t, "a frame with k1 holding and k2 waiting", func() bool { return ephemeralFrame(t, out.String(), lock, "k1") })
	kz.Release(t, "k1")
	kz.Await(t, "k2", "acquired")
	cmdtest.WaitUntil(t, "a frame with k2 holding", func() bool { return ephemeralFrame(t, out.String(), lock, "k2") })
}

func TestMain(m *testing.M) { zktest.Main(dbtest.Wrap(m)) }

// TestLocksWatchChanges: `locks --watch --json --changes` prints the
// whole report once, then only the lock that changed, then the lock
// that went away in "gone"; without --watch --json the flag is refused.
func TestLocksWatchChanges(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	c := cmdtest.Dial(t, s)
	base := zktest.Path(t)
	a, b := base+"/a", base+"/b"
	zktest.MakePath(t, c, a)
	zktest.MakePath(t, c, b)
	node := func(dir, uuid string) string {
		t.Helper()
		p, err := c.Create(dir+"/_c_"+uuid+"-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	node(a, "11111111-0000-4000-8000-000000000001")
	nb := node(b, "22222222-0000-4000-8000-000000000002")

	refused := exec.Command(cmdtest.Binary(t), "-s", s, "locks", base, "--json", "--changes")
	if out, err := refused.CombinedOutput(); refused.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "--changes") {
		t.Fatalf("--changes without --watch: %v %s", err, out)
	}
	cmd := exec.Command(cmdtest.Binary(t), "-s", s, "locks", base, "--watch", "--json", "--changes", "--interval", "10m", "--no-verify")
	var out cmdtest.SyncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	type report struct {
		Changes bool
		Gone    []string
		Locks   []struct {
			Path         string
			Participants []json.RawMessage
		}
	}
	lines := func() []report {
		var rs []report
		for _, line := range strings.Split(out.String(), "\n") {
			var r report
			if json.Unmarshal([]byte(line), &r) == nil {
				rs = append(rs, r)
			}
		}
		return rs
	}
	cmdtest.WaitUntil(t, "the whole report", func() bool { return len(lines()) >= 1 })
	if r := lines()[0]; r.Changes || len(r.Locks) != 2 {
		t.Fatalf("the first line is not the whole report: %+v", r)
	}
	node(a, "33333333-0000-4000-8000-000000000003")
	cmdtest.WaitUntil(t, "a line with a's waiter", func() bool {
		rs := lines()
		r := rs[len(rs)-1]
		return r.Changes && len(r.Locks) == 1 && r.Locks[0].Path == a && len(r.Locks[0].Participants) == 2
	})
	if err := c.Delete(nb, -1); err != nil {
		t.Fatal(err)
	}
	cmdtest.WaitUntil(t, "a line with b gone", func() bool {
		rs := lines()
		r := rs[len(rs)-1]
		return r.Changes && len(r.Locks) == 0 && len(r.Gone) == 1 && r.Gone[0] == b
	})
}
