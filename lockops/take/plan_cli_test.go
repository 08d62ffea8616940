package take

// zkscope lock never guesses the library: on real servers, with real
// kazoo and Curator contenders.

import (
	"os"
	"os/exec"
	"path"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestCLINeverGuessesLibrary: a lock with no contenders and nothing next
// to it is refused (exit 2, naming --recipe, no node); next to kazoo locks
// zkscope takes in kazoo's format and a real kazoo contender waits on it;
// --recipe curator on the hint-less path makes a real Curator contender
// wait; --recipe curator against a held kazoo lock is refused.
func TestCLINeverGuessesLibrary(t *testing.T) {
	cl := zktest.Shared(t)
	auditLog := audittest.ToTemp(t)
	state := path.Dir(path.Dir(auditLog)) // XDG_STATE_HOME
	c := locktest.NewClient(t, cl.Addrs())
	addr := cl.Addrs()[0]
	base := zktest.Path(t)

	// 1. Nothing tells: refused, nothing created.
	fresh := base + "/fresh/deploy"
	code, stderr := locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", fresh, "--", "true"), 60*time.Second)
	if code != lockops.ExitRefused || !strings.Contains(stderr, "--recipe curator") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("exit %d, want %d with one line naming --recipe; stderr:\n%s", code, lockops.ExitRefused, stderr)
	}
	if ok, _, err := c.Conn().Exists(c.Abs(path.Dir(fresh))); err != nil || ok {
		t.Fatalf("a refused take created %s (%v)", path.Dir(fresh), err)
	}
	if !audittest.Has(audittest.Read(t, auditLog), lockops.OpTake, audit.Refused, fresh) {
		t.Fatal("the refusal is not in the audit log as refused")
	}

	// 2. Next to a kazoo lock: kazoo's format, and a real kazoo contender
	// waits on our node.
	apps := base + "/apps"
	kz := zktest.StartKazoo(t, cl.ConnectString())
	kz.Acquire(t, "orders", "lock", apps+"/orders")
	kz.Await(t, "orders", "acquired")
	deploy := apps + "/deploy"
	cmd := locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", deploy, "--note", "maintenance")
	out, exited := locktest.StartCLI(t, cmd, "Ctrl-C releases")
	if !strings.Contains(out.String(), "the 1 lock next to it uses kazoo: taking in kazoo's format") {
		t.Fatalf("zkscope did not say why kazoo; stderr:\n%s", out.String())
	}
	ours := locktest.Children(t, c, deploy)
	if len(ours) != 1 || !NameFormats["kazoo/exclusive"].MatchString(ours[0]) {
		t.Fatalf("our node %v is not in kazoo's format", ours)
	}
	kz.Acquire(t, "deploy", "lock", deploy)
	locktest.WatchedBy(t, addr, zkview.Join(deploy, ours[0]))
	if kz.Has("deploy", "acquired") {
		t.Fatal("the kazoo contender took the lock we hold")
	}
	cmd.Process.Signal(syscall.SIGINT)
	if code := locktest.WaitExit(t, cmd, exited, out); code != 0 {
		t.Fatalf("exit %d after SIGINT; stderr:\n%s", code, out.String())
	}
	kz.Await(t, "deploy", "acquired")

	// 3. --recipe curator against the kazoo holder: refused, nothing made.
	code, stderr = locktest.RunWithin(t, locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", deploy, "--recipe", "curator", "--", "true"), 60*time.Second)
	if code != lockops.ExitRefused || !strings.Contains(stderr, "kazoo.lock") || !strings.Contains(stderr, "--force-recipe") {
		t.Fatalf("exit %d, want %d naming the kazoo contenders and --force-recipe; stderr:\n%s", code, lockops.ExitRefused, stderr)
	}
	if kids := locktest.Children(t, c, deploy); len(kids) != 1 {
		t.Fatalf("queue %v, want only the kazoo holder", kids)
	}

	// 4. --recipe curator on the hint-less path: a real Curator contender
	// waits on our node, and gets the lock when we let go.
	cmd = locktest.ZkscopeCmd(t, state, cl.ConnectString(), "lock", fresh, "--recipe", "curator")
	out, exited = locktest.StartCLI(t, cmd, "Ctrl-C releases")
	ours = locktest.Children(t, c, fresh)
	if len(ours) != 1 || !NameFormats["curator/exclusive"].MatchString(ours[0]) {
		t.Fatalf("our node %v is not in Curator's format", ours)
	}
	cu := locktest.StartPeer(t, "curator", cl.ConnectString(), fresh, "mutex")
	locktest.WatchedBy(t, addr, zkview.Join(fresh, ours[0]))
	if cu.AcquiredYet() {
		t.Fatal("the Curator contender took the lock we hold")
	}
	cmd.Process.Signal(syscall.SIGINT)
	if code := locktest.WaitExit(t, cmd, exited, out); code != 0 {
		t.Fatalf("exit %d after SIGINT; stderr:\n%s", code, out.String())
	}
	cu.Expect(t, "acquired")
}

// TestCLIDefaultRecipe: the context's default_recipe decides for a lock
// with no contenders and no neighbours, and says so.
func TestCLIDefaultRecipe(t *testing.T) {
	cl := zktest.Shared(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	c := locktest.NewClient(t, cl.Addrs())
	config := t.TempDir() + "/config.toml"
	if err := os.WriteFile(config, []byte("[contexts.test]\nservers = \""+cl.ConnectString()+"\"\ndefault_recipe = \"go-zk\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lockPath := zktest.Path(t) + "/jobs/nightly"
	cmd := exec.Command(locktest.ZkscopeBinary(t), "--config", config, "--context", "test", "lock", lockPath, "--", "sh", "-c", "ls >/dev/null")
	cmd.Env = append(cmd.Environ(), "XDG_STATE_HOME="+state)
	code, stderr := locktest.RunWithin(t, cmd, 60*time.Second)
	if code != 0 || !strings.Contains(stderr, "taking in go-zookeeper's format, the context's default_recipe") {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if kids := locktest.Children(t, c, lockPath); len(kids) != 0 {
		t.Fatalf("left %v behind", kids)
	}
}
