package root_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/redisview/redistest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestCLIBadInput runs commands whose input only the server can judge (a
// missing node, a chroot, a changed version) and checks the exit status
// and that the error is one line saying what is wrong. Input that needs no
// server is TestCLIUsageErrors'.
func TestCLIBadInput(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	c := cmdtest.Dial(t, s)
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
		{[]string{"-s", s, "get", base + "/missing"}, 1, "read " + base + "/missing: node does not exist"},
		{[]string{"-s", s + "/no-such-chroot", "get", "/"}, 1, "chroot /no-such-chroot does not exist"},
		{[]string{"-s", s, "locks", base + "/missing"}, 1, base + "/missing does not exist"},
		{[]string{"-s", s, "doctor", base + "/missing"}, 2, "does not exist"},
		{[]string{"-s", s, "create", base + "/no/parent"}, 1, "the parent " + base + "/no does not exist"},
		{[]string{"-s", s, "create", base + "/kids"}, 1, "already exists"},
		{[]string{"-s", s, "set", base + "/kids", "v2", "--version", "7"}, 1, "changed meanwhile (version 0, expected 7)"},
		{[]string{"-s", s, "delete", base + "/kids"}, 1, "add --recursive"},
		{[]string{"-s", s, "delete", base + "/kids", "--recursive"}, 2, "pass --yes"},
		{[]string{"-s", s, "--read-only", "create", base + "/ro"}, 2, "read-only"},
		{[]string{"-s", s, "--read-only", "delete", base + "/kids/a"}, 2, "read-only"},
		{[]string{"-s", s, "getacl", base + "/missing"}, 1, "node does not exist"},
		{[]string{"--config", cfg, "config", "current-context"}, 1, "no current context"},
	} {
		// A connect timeout far above the runs' limit (runBinary's):
		// input that is retried instead of answered fails the test.
		code, _, stderr := cmdtest.RunBinary(t, env, append([]string{"--connect-timeout", "10m"}, tc.args...)...)
		line := strings.TrimSuffix(stderr, "\n")
		if code != tc.code || strings.Contains(line, "\n") || !strings.Contains(line, tc.want) || !strings.HasPrefix(line, "zkscope") {
			t.Errorf("zkscope %q: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, stderr, tc.code, tc.want)
		}
		if strings.Contains(line, "does not exist: it does not exist") || strings.Contains(line, "zk: invalid path") {
			t.Errorf("zkscope %q: unhelpful error %q", tc.args, line)
		}
	}
	if _, err := c.Create(base+"/ro", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Errorf("--read-only create made the node anyway (%v)", err)
	}
	if ok, _, _ := c.Exists(base + "/kids/a"); !ok {
		t.Error("a refused delete deleted the node")
	}
}

// TestCLIUsageErrors: input that needs no server to judge — a relative
// path, a missing argument, an unknown command, flag, --recipe or mode, a
// bad flag value, flags that exclude each other — exits 2 with one line
// saying what is wrong, and connects nowhere: the server given never
// answers, so a command that tried it would not fail with the input's
// error, and its listen queue shows any connection.
func TestCLIUsageErrors(t *testing.T) {
	srv := cmdtest.NewSilentServer(t)
	zkAddr, redisURL := srv.Addr(), "redis://"+srv.Addr()
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists")
	if err := os.WriteFile(exists, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[contexts.local]\nservers = \""+zkAddr+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_STATE_HOME=" + t.TempDir(), "ZKSCOPE_SERVER=", "ZKSCOPE_CONTEXT=", "ZKSCOPE_AUTH="}

	for _, tc := range []struct {
		server string // "" : the silent ZooKeeper address
		args   []string
		want   string
	}{
		// A bad path, a missing argument, an unknown command or flag.
		{"", []string{"get", "app/config"}, `path "app/config" is relative: znode paths start with / (did you mean /app/config?)`},
		{"", []string{"get"}, "accepts 1 arg(s), received 0 (usage: zkscope get PATH"},
		{"", []string{"setacl", "/x"}, "accepts 2 arg(s), received 1 (usage: zkscope setacl PATH ACL"},
		{"", []string{"frob"}, `unknown command "frob" for "zkscope"`},
		{"", []string{"config", "frob"}, `unknown command "frob" for "zkscope config"`},
		{"", []string{"completion", "frob"}, `unknown command "frob" for "zkscope completion"`},
		{"", []string{"get", "/", "--frob"}, "unknown flag: --frob"},
		{"", []string{"tree", "zookeeper"}, "znode paths start with /"},
		{"", []string{"locks", "app"}, "znode paths start with /"},
		{"", []string{"doctor", "app"}, "znode paths start with /"},
		{"", []string{"sessions", "app"}, "znode paths start with /"},
		{"", []string{"lock", "locks/x"}, "znode paths start with /"},
		{"", []string{"evict", "n-0000000001"}, "znode paths start with /"},
		{"", []string{"revoke", "n"}, "znode paths start with /"},
		{"", []string{"delete", "app"}, "znode paths start with /"},
		{"", []string{"getacl", "app/"}, "znode paths start with /"},
		{"", []string{"history", "app", "--txnlog", dir}, "znode paths start with /"},
		{"", []string{"get", "/app/"}, `path "/app/" ends with /: write /app`},
		// Bad flag values.
		{"", []string{"--session-timeout", "abc", "get", "/"}, `invalid argument "abc" for "--session-timeout"`},
		{"", []string{"--session-timeout", "-5s", "get", "/"}, "--session-timeout -5s: must be positive"},
		{"", []string{"--connect-timeout", "-1s", "get", "/"}, "--connect-timeout -1s: must be positive"},
		{"", []string{"--theme", "purple", "get", "/"}, "--theme"},
		{"", []string{"--theme", "purple"}, "--theme"}, // the terminal UI
		{"", []string{"get", "/", "-o", "xml"}, `--output "xml": want json or yaml`},
		{"", []string{"getacl", "/", "-o", "xml"}, `--output "xml": want json or yaml`},
		{"", []string{"version", "-o", "xml"}, `--output "xml"`},
		{"", []string{"tree", "/", "--depth", "-1"}, "--depth -1"},
		{"", []string{"locks", "/", "--max-leases", "-3"}, "--max-leases -3"},
		{"", []string{"locks", "/", "--watch", "--interval", "0s"}, "--interval 0s: must be positive"},
		{"", []string{"locks", "/", "--watch", "--record", exists}, "the file exists"},
		{"", []string{"doctor", "/", "--hung-after", "11m"}, "--hung-after 11m"},
		{"", []string{"lock", "/x", "--recipe", "nope"}, `unknown lock library "nope"`},
		{"", []string{"lock", "/x", "--mode", "shared"}, `unknown lock mode "shared"`},
		{"", []string{"lock", "/x", "--kill-signal", "NOPE"}, `unknown signal "NOPE"`},
		{"", []string{"lock", "/x", "--timeout", "-1s"}, "--timeout -1s: must be positive"},
		{"", []string{"lock", "/x", "--timeout", "soon"}, `invalid argument "soon" for "--timeout"`},
		{"", []string{"lock", "/x", "--ttl", "30s"}, "--ttl applies to Redis locks only"},
		{"", []string{"lock", "/x", "./job.sh"}, "put the command after --"},
		{"", []string{"evict", "/x", "--expect-session", "zz"}, "--expect-session"},
		{"", []string{"evict", "--session", "zz"}, "--session"},
		{"", []string{"evict", "--session", "0x1", "--under", "app"}, `--under "app"`},
		{"", []string{"revoke", "/x", "--wait", "-1s"}, "--wait -1s"},
		{"", []string{"create", "/x", "--mode", "ephemeral"}, `--mode "ephemeral"`},
		{"", []string{"create", "/x", "--mode", "ttl"}, "a ttl node needs a TTL"},
		{"", []string{"create", "/x", "--mode", "ttl", "--ttl", "0s"}, "a ttl node needs a TTL"},
		{"", []string{"create", "/x", "--ttl", "1h"}, "--ttl applies to the ttl modes only"},
		{"", []string{"create", "/x", "--ttl", "0s"}, "--ttl applies to the ttl modes only"},
		{"", []string{"delete", "/"}, "the root and the server's own /zookeeper tree cannot be deleted"},
		{"", []string{"delete", "-r", "/zookeeper", "-y"}, "cannot be deleted"},
		{"", []string{"delete", "/zookeeper/quota"}, "cannot be deleted"},
		{"", []string{"create", "/x", "--data-file", filepath.Join(dir, "missing")}, "--data-file"},
		{"", []string{"set", "/x", "v", "--data-file", exists}, "either as DATA or with --data-file"},
		{"", []string{"set", "/x", "--version", "-3"}, "--version -3: must be 0 or more"},
		{"", []string{"setacl", "/x", "world:anyone"}, "want scheme:id:perms"},
		{"", []string{"setacl", "/x", "world:anyone:rx"}, "unknown permission"},
		{"", []string{"history", "/"}, "history needs exactly one of --txnlog"},
		{"", []string{"ensemble", "--interval", "-1s"}, "--interval -1s"},
		{"", []string{"--config", cfg, "config", "use-context", "nope"}, `no context "nope"`},
		// Flags that exclude each other.
		{"", []string{"get", "/", "--raw", "--stat"}, "--raw writes the data alone"},
		{"", []string{"locks", "/", "--record", filepath.Join(dir, "rec")}, "add --watch"},
		{"", []string{"doctor", "/", "--hung-after", "1m", "--no-verify"}, "does not go with --no-verify"},
		{"", []string{"lock", "/x", "--no-wait", "--timeout", "1s"}, "--no-wait and --timeout exclude each other"},
		{"", []string{"lock", "/x", "--force-recipe"}, "--force-recipe needs --recipe"},
		{"", []string{"lock", "/x", "--recipe", "kazoo", "--revocable"}, "--revocable honours Curator's revocation requests: it does not go with --recipe kazoo"},
		{"", []string{"lock", "/x", "--recipe", "go-zk", "--mode", "read"}, "go-zookeeper locks are exclusive only (asked for --mode read)"},
		{"", []string{"lock", "/x", "--recipe", "ephemeral", "--mode", "write"}, "locks are exclusive only (asked for --mode write)"},
		{"", []string{"history", "/", "--txnlog", dir, "--at", "now", "--since", "1h"}, "--at prints one moment"},
		// A bad connect string.
		{"host:notaport", []string{"get", "/"}, `port "notaport" is not a number`},
		{":99999", []string{"get", "/"}, `port "99999" is not a number`},
		{"-", []string{"get", "/"}, "--server is empty"},
		// Redis servers.
		{redisURL, []string{"lock", "k", "--ttl", "0s"}, "--ttl 0s: give at least 100ms"},
		{redisURL, []string{"lock", "k", "--no-wait", "--timeout", "1s"}, "--no-wait and --timeout exclude each other"},
		{redisURL, []string{"lock", "k", "--recipe", "kazoo"}, "--recipe is for ZooKeeper locks"},
		{redisURL, []string{"evict"}, "accepts 1 arg(s), received 0 (usage: zkscope evict"},
		{redisURL, []string{"locks", "--watch"}, "--watch works on ZooKeeper only"},
		{redisURL, []string{"doctor", "--depth", "2"}, "--depth works on ZooKeeper only"},
		{redisURL, []string{"get", "/"}, "this command reads ZooKeeper"},
		{"redis://user:pw@" + srv.Addr(), []string{"locks"}, "--server holds credentials"},
	} {
		server := tc.server
		switch server {
		case "":
			server = zkAddr
		case "-":
			server = ""
		}
		// A connect timeout far above the runs' limit: a command that
		// connected would still be waiting when runBinary gives up.
		args := append([]string{"-s", server, "--connect-timeout", "10m"}, tc.args...)
		code, _, stderr := cmdtest.RunBinary(t, env, args...)
		line := strings.TrimSuffix(stderr, "\n")
		if code != 2 || strings.Contains(line, "\n") || !strings.HasPrefix(line, "zkscope") || !strings.Contains(line, tc.want) {
			t.Errorf("zkscope %q: exit %d, stderr %q; want exit 2 and one line with %q", args, code, stderr, tc.want)
		}
		if srv.Connected() {
			t.Errorf("zkscope %q connected to the server before refusing its input", args)
		}
	}
}

// TestCLINamesWhatAnswers: a Redis port, an HTTP port or a closed port
// given as ZooKeeper, and a ZooKeeper or HTTP port given as Redis, fail at
// once (exit 1) naming what is there; a member list with one dead member
// still works.
func TestCLINamesWhatAnswers(t *testing.T) {
	redis := redistest.Start(t).Addr
	h := httptest.NewServer(http.NotFoundHandler())
	defer h.Close()
	web := strings.TrimPrefix(h.URL, "http://")
	port, err := zktest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	closed := "127.0.0.1:" + strconv.Itoa(port)
	zkAddr := zktest.Shared(t).Addrs()[0]
	env := []string{"XDG_STATE_HOME=" + t.TempDir(), "ZKSCOPE_SERVER=", "ZKSCOPE_CONTEXT="}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-s", redis, "get", "/"}, 1, redis + " answered like Redis, not ZooKeeper (for Redis locks give -s redis://" + redis + ")"},
		{[]string{"-s", web, "locks", "/"}, 1, web + " answered like an HTTP server, not ZooKeeper"},
		{[]string{"-s", closed, "get", "/"}, 1, closed + ": connection refused"},
		{[]string{"-s", closed, "doctor", "/"}, 2, closed + ": connection refused"}, // doctor: nothing could be checked
		{[]string{"-s", "redis://" + zkAddr, "locks"}, 1, zkAddr + " answered like ZooKeeper, not Redis"},
		{[]string{"-s", "redis://" + web, "doctor"}, 2, web + " answered like an HTTP server, not Redis"},
		{[]string{"-s", closed + "," + zkAddr, "get", "/"}, 0, ""},
	} {
		// A connect timeout far above the runs' limit (runBinary's): a
		// command that waits for it instead of naming the peer fails.
		args := append([]string{"--connect-timeout", "10m"}, tc.args...)
		code, _, stderr := cmdtest.RunBinary(t, env, args...)
		line := strings.TrimSuffix(stderr, "\n")
		if code != tc.code || tc.want == "" && stderr != "" || tc.want != "" && (strings.Contains(line, "\n") || !strings.Contains(line, tc.want)) {
			t.Errorf("zkscope %q: exit %d, stderr %q; want exit %d and one line with %q", args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestCLIInterruptedWait: Ctrl-C while `zkscope lock` waits exits 130 (a
// timeout exits 1), and --no-wait fails without a "waiting… position" line.
func TestCLIInterruptedWait(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	c := cmdtest.Dial(t, s)
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll))
	p := zktest.Path(t)
	if _, err := c.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(p+"/_c_11111111-0000-4000-8000-000000000001-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}

	code, _, stderr := cmdtest.RunBinary(t, env, "-s", s, "lock", p, "--no-wait")
	if code != 1 || strings.Contains(stderr, "position") || !strings.Contains(stderr, "held by someone else") {
		t.Errorf("--no-wait on a held lock: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = cmdtest.RunBinary(t, env, "-s", s, "lock", p, "--timeout", "300ms")
	if code != 1 {
		t.Errorf("--timeout: exit %d, want 1; stderr:\n%s", code, stderr)
	}

	cmd := exec.Command(cmdtest.Binary(t), "-s", s, "lock", p)
	cmd.Env = append(os.Environ(), env...)
	var errOut cmdtest.SyncBuffer
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
