package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// zkscopeBinary is the real binary, built once ([zktest.Zkscope]).
func zkscopeBinary(t testing.TB) string { return zktest.Zkscope(t) }

// runBinary runs zkscope with args (stdin empty, not a terminal) and
// returns its exit status, stdout and stderr.
func runBinary(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(zkscopeBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("zkscope %v did not finish within 60s; stderr:\n%s", args, errOut.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// TestCLIBadInput runs each documented command with bad input and checks
// the exit status and that the error is one line (saying what is wrong),
// quickly: nothing is retried until a timeout.
func TestCLIBadInput(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	c := dial(t, s)
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll)) // may exist already
	base := zktest.Path(t)
	for _, p := range []string{base, base + "/kids", base + "/kids/a", base + "/lock"} {
		if _, err := c.Create(p, []byte("v"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	state := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("[contexts.local]\nservers = \""+s+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_STATE_HOME=" + state, "ZKSCOPE_SERVER=", "ZKSCOPE_CONTEXT="}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-s", s, "get", "app/config"}, 1, "znode paths start with / (did you mean /app/config?)"},
		{[]string{"-s", s, "get", base + "/missing"}, 1, "read " + base + "/missing: node does not exist"},
		{[]string{"-s", "host:notaport", "get", "/"}, 1, `port "notaport" is not a number`},
		{[]string{"-s", ":99999", "get", "/"}, 1, `port "99999" is not a number`},
		{[]string{"-s", "", "get", "/"}, 1, "--server is empty"},
		{[]string{"-s", s + "/no-such-chroot", "get", "/"}, 1, "chroot /no-such-chroot does not exist"},
		{[]string{"-s", s, "--session-timeout", "-5s", "get", "/"}, 1, "--session-timeout -5s: must be positive"},
		{[]string{"-s", s, "--connect-timeout", "-1s", "get", "/"}, 1, "--connect-timeout -1s: must be positive"},
		{[]string{"-s", s, "--theme", "purple", "get", "/"}, 1, "--theme"},
		{[]string{"-s", s, "get", "/", "-o", "xml"}, 1, `--output "xml": want json or yaml`},
		{[]string{"-s", s, "get", "/", "--raw", "--stat"}, 1, "--raw writes the data alone"},
		{[]string{"-s", s, "tree", "/", "--depth", "-1"}, 1, "--depth -1"},
		{[]string{"-s", s, "tree", "zookeeper"}, 1, "znode paths start with /"},
		{[]string{"-s", s, "locks", base + "/missing"}, 1, base + "/missing does not exist"},
		{[]string{"-s", s, "locks", base, "--max-leases", "-3"}, 1, "--max-leases -3"},
		{[]string{"-s", s, "locks", base, "--watch", "--interval", "0s"}, 1, "--interval 0s: must be positive"},
		{[]string{"-s", s, "doctor", "app"}, 2, "znode paths start with /"},
		{[]string{"-s", s, "doctor", base + "/missing"}, 2, "does not exist"},
		{[]string{"-s", s, "lock", base + "/lock", "--timeout", "-1s"}, 1, "--timeout -1s: must be positive"},
		{[]string{"-s", s, "lock", "locks/x"}, 1, "znode paths start with /"},
		{[]string{"-s", s, "revoke", base + "/lock/n", "--wait", "-1s"}, 1, "--wait -1s"},
		{[]string{"-s", s, "evict", "n-0000000001"}, 1, "znode paths start with /"},
		{[]string{"-s", s, "create", base + "/no/parent"}, 1, "the parent " + base + "/no does not exist"},
		{[]string{"-s", s, "create", base + "/x", "--mode", "ephemeral"}, 1, `--mode "ephemeral"`},
		{[]string{"-s", s, "create", base + "/kids"}, 1, "already exists"},
		{[]string{"-s", s, "set", base + "/kids", "v2", "--version", "7"}, 1, "changed meanwhile (version 0, expected 7)"},
		{[]string{"-s", s, "delete", base + "/kids"}, 1, "add --recursive"},
		{[]string{"-s", s, "delete", base + "/kids", "--recursive"}, 2, "pass --yes"},
		{[]string{"-s", s, "--read-only", "create", base + "/ro"}, 2, "read-only"},
		{[]string{"-s", s, "--read-only", "delete", base + "/kids/a"}, 2, "read-only"},
		{[]string{"-s", s, "setacl", base + "/kids", "world:anyone"}, 1, "want scheme:id:perms"},
		{[]string{"-s", s, "setacl", base + "/kids", "world:anyone:rx"}, 1, "unknown permission"},
		{[]string{"-s", s, "getacl", base + "/missing"}, 1, "node does not exist"},
		{[]string{"--config", cfg, "config", "use-context", "nope"}, 1, `no context "nope"`},
		{[]string{"--config", cfg, "config", "current-context"}, 1, "no current context"},
		{[]string{"version", "-o", "xml"}, 1, `--output "xml"`},
	} {
		// A connect timeout far above the bound below: input that is
		// retried instead of refused at once fails the bound however
		// loaded the machine is.
		start := time.Now()
		code, _, stderr := runBinary(t, env, append([]string{"--connect-timeout", "2m"}, tc.args...)...)
		took := time.Since(start)
		line := strings.TrimSuffix(stderr, "\n")
		if code != tc.code || strings.Contains(line, "\n") || !strings.Contains(line, tc.want) || !strings.HasPrefix(line, "zkscope") {
			t.Errorf("zkscope %q: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, stderr, tc.code, tc.want)
		}
		if strings.Contains(line, "does not exist: it does not exist") || strings.Contains(line, "zk: invalid path") {
			t.Errorf("zkscope %q: unhelpful error %q", tc.args, line)
		}
		if took > 45*time.Second {
			t.Errorf("zkscope %q took %s to fail: bad input must fail at once", tc.args, took.Round(time.Millisecond))
		}
	}
	if _, err := c.Create(base+"/ro", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Errorf("--read-only create made the node anyway (%v)", err)
	}
	if ok, _, _ := c.Exists(base + "/kids/a"); !ok {
		t.Error("a refused delete deleted the node")
	}
}

// TestCLIInterruptedWait: Ctrl-C while `zkscope lock` waits exits 130 (a
// timeout exits 1), and --no-wait fails without a "waiting… position" line.
func TestCLIInterruptedWait(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	c := dial(t, s)
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll))
	p := zktest.Path(t)
	if _, err := c.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(p+"/_c_11111111-0000-4000-8000-000000000001-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}

	code, _, stderr := runBinary(t, env, "-s", s, "lock", p, "--no-wait")
	if code != 1 || strings.Contains(stderr, "position") || !strings.Contains(stderr, "held by someone else") {
		t.Errorf("--no-wait on a held lock: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runBinary(t, env, "-s", s, "lock", p, "--timeout", "300ms")
	if code != 1 {
		t.Errorf("--timeout: exit %d, want 1; stderr:\n%s", code, stderr)
	}

	cmd := exec.Command(zkscopeBinary(t), "-s", s, "lock", p)
	cmd.Env = append(os.Environ(), env...)
	var errOut syncBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(errOut.String(), "waiting for"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("zkscope lock never said it waits:\n%s", errOut.String())
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("interrupted wait: exit %d, want 130; stderr:\n%s", code, errOut.String())
	}
	if kids, _, _ := c.Children(p); len(kids) != 1 {
		t.Errorf("the interrupted wait left its node: %v", kids)
	}
}
