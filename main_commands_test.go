package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestWriteCommands: create, set, getacl, setacl and delete change what
// they say, print what scripts need, and are audited.
func TestWriteCommands(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	c := dial(t, s)
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll))
	base := zktest.Path(t)

	mustRun := func(args ...string) string {
		t.Helper()
		out, err := run(t, append([]string{"-s", s}, args...)...)
		if err != nil {
			t.Fatalf("zkscope %v: %v\n%s", args, err, out)
		}
		return out
	}
	if out := mustRun("create", base+"/a/b", "hello", "--parents"); out != base+"/a/b\n" {
		t.Errorf("create printed %q", out)
	}
	if out := mustRun("create", base+"/a/job-", "--mode", "sequential"); out != base+"/a/job-0000000001\n" {
		t.Errorf("sequential create printed %q", out)
	}
	mustRun("set", base+"/a/b", "world")
	if out := mustRun("get", base+"/a/b", "-o", "json"); !strings.Contains(out, `"data": "world"`) || !strings.Contains(out, `"version": 1`) {
		t.Errorf("get -o json:\n%s", out)
	}
	if out := mustRun("get", base+"/a/b", "-o", "yaml"); !strings.Contains(out, "data: world") || !strings.Contains(out, "version: 1") {
		t.Errorf("get -o yaml:\n%s", out)
	}
	if out := mustRun("tree", base, "-o", "json"); !strings.Contains(out, `"path": "`+base+`/a/job-0000000001"`) {
		t.Errorf("tree -o json:\n%s", out)
	}
	mustRun("setacl", base+"/a/b", "world:anyone:cdr")
	if out := mustRun("getacl", base+"/a/b"); out != "world:anyone:cdr\n" {
		t.Errorf("getacl printed %q", out)
	}
	if out := mustRun("delete", base, "--recursive", "--yes"); !strings.Contains(out, "4 nodes") {
		t.Errorf("delete --recursive printed %q", out)
	}
	if ok, _, _ := c.Exists(base); ok {
		t.Error("delete --recursive left the tree")
	}
	log, err := os.ReadFile(filepath.Join(state, "zkscope", "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{lockops.OpCreate, lockops.OpSet, lockops.OpSetACL, lockops.OpDelete} {
		if !strings.Contains(string(log), `"operation":"`+op+`"`) {
			t.Errorf("no %s in the audit log:\n%s", op, log)
		}
	}
}

// TestGetRawAndTerminalSafe: --raw writes the exact bytes; text for a
// terminal has its control characters escaped.
func TestGetRawAndTerminalSafe(t *testing.T) {
	srv := zktest.Shared(t)
	c := dial(t, srv.ConnectString())
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll))
	p := zktest.Path(t)
	data := "a\x1b]0;pwned\x07b\u009b2J\n"
	if _, err := c.Create(p, []byte(data), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "-s", srv.ConnectString(), "get", p, "--raw"); err != nil || out != data {
		t.Errorf("--raw: %q, %v", out, err)
	}
	if got := printable.Text(data); got != `a\x1b]0;pwned\x07b\u009b2J`+"\n" {
		t.Errorf("printable.Text = %q", got)
	}
}

// TestConfigContexts: get-contexts marks the current one, use-context
// rewrites only current_context, current-context prints it.
func TestConfigContexts(t *testing.T) {
	t.Setenv("ZKSCOPE_CONTEXT", "")
	cfg := filepath.Join(t.TempDir(), "config.toml")
	body := "# my contexts\ncurrent_context = \"local\"\n\n[contexts.local]\nservers = \"127.0.0.1:2181\"\n\n[contexts.prod]\nservers = \"zk1:2181\" # prod\nread_only = true\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "--config", cfg, "config", "get-contexts")
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) < 3 || strings.Join(strings.Fields(lines[1]), " ") != "* local 127.0.0.1:2181" || strings.Join(strings.Fields(lines[2]), " ") != "prod zk1:2181 yes" {
		t.Errorf("get-contexts: %v\n%s", err, out)
	}
	if out, err := run(t, "--config", cfg, "config", "use-context", "prod"); err != nil {
		t.Fatalf("use-context: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(cfg)
	if want := strings.Replace(body, `current_context = "local"`, `current_context = "prod"`, 1); string(b) != want {
		t.Errorf("use-context changed more than current_context:\n%s", b)
	}
	if out, err := run(t, "--config", cfg, "config", "current-context"); err != nil || out != "prod\n" {
		t.Errorf("current-context: %q, %v", out, err)
	}
	if st, _ := os.Stat(cfg); st.Mode().Perm() != 0o600 {
		t.Errorf("use-context changed the file's mode to %v", st.Mode().Perm())
	}
}

// TestCompletion: znode paths come from the server, flag values and
// context names from their lists; an unreachable server completes nothing
// within the completion timeout.
func TestCompletion(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	out, err := run(t, "-s", s, "__complete", "get", "/zoo")
	if err != nil || !strings.Contains(out, "/zookeeper\n") {
		t.Errorf("path completion: %v\n%s", err, out)
	}
	out, _ = run(t, "__complete", "lock", "/x", "--mode", "")
	if !strings.Contains(out, "exclusive\nread\nwrite\n") {
		t.Errorf("--mode completion:\n%s", out)
	}
	out, _ = run(t, "__complete", "create", "/x", "--mode", "")
	if !strings.Contains(out, "container\n") {
		t.Errorf("create --mode completion:\n%s", out)
	}
	for _, args := range [][]string{{"get", "/", "-o", ""}, {"tree", "--output", ""}} {
		if out, _ := run(t, append([]string{"__complete"}, args...)...); !strings.Contains(out, "json\nyaml\n") {
			t.Errorf("%v completion:\n%s", args, out)
		}
	}
	if out, _ := run(t, "__complete", "--theme", ""); !strings.Contains(out, "high-contrast\n") {
		t.Errorf("--theme completion:\n%s", out)
	}
	if out, _ := run(t, "__complete", "lock", "/x", "--recipe", ""); !strings.Contains(out, "curator\nkazoo\ngo-zk\n") {
		t.Errorf("--recipe completion:\n%s", out)
	}
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[contexts.alpha]\nservers = \"a:2181\"\n[contexts.beta]\nservers = \"b:2181\"\n"), 0o600)
	if out, _ := run(t, "--config", cfg, "__complete", "config", "use-context", ""); !strings.Contains(out, "alpha\nbeta\n") {
		t.Errorf("use-context completion:\n%s", out)
	}
	if out, _ := run(t, "--config", cfg, "__complete", "--context", ""); !strings.Contains(out, "alpha\nbeta\n") {
		t.Errorf("--context completion:\n%s", out)
	}
	// A server that never answers: completion gives up by its own bound
	// (completionTimeout), not the session timeout's minutes.
	silent := newSilentServer(t)
	out, err = run(t, "-s", silent.Addr(), "--session-timeout", "5m", "__complete", "get", "/")
	if err != nil || strings.Contains(out, "/zookeeper") || !strings.Contains(out, ":") {
		t.Errorf("completion against a server that never answers: %v\n%s", err, out)
	}
}

// TestManAndVersion: the hidden man command writes a page per command;
// version names the Go version.
func TestManAndVersion(t *testing.T) {
	dir := t.TempDir()
	if out, err := run(t, "man", dir); err != nil {
		t.Fatalf("man: %v\n%s", err, out)
	}
	for _, page := range []string{"zkscope.1", "zkscope-locks.1", "zkscope-create.1", "zkscope-config-use-context.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil || !strings.Contains(string(b), ".TH") {
			t.Errorf("man page %s: %v", page, err)
		}
	}
	out, err := run(t, "version")
	if err != nil || !strings.HasPrefix(out, "zkscope ") || !strings.Contains(out, "go: go1.") {
		t.Errorf("version: %v\n%s", err, out)
	}
	if out, err := run(t, "version", "-o", "json"); err != nil || !strings.Contains(out, `"go":"go1.`) {
		t.Errorf("version -o json: %v\n%s", err, out)
	}
}
