package exporter_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/redisview/redistest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// persistentLock makes a Curator mutex of two persistent nodes below a
// fresh path (a holder and a waiter that outlive every session); it
// returns the base path and the lock's.
func persistentLock(t *testing.T, connect string) (base, lock string) {
	t.Helper()
	c := cmdtest.Dial(t, connect)
	base = zktest.Path(t)
	lock = base + "/locks/orders"
	zktest.MakePath(t, c, lock)
	for _, uuid := range []string{"11111111-0000-4000-8000-000000000001", "22222222-0000-4000-8000-000000000002"} {
		if _, err := c.Create(lock+"/_c_"+uuid+"-lock-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	return base, lock
}

func get(url string) (int, string) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitLong polls cond for up to 3 minutes (a loaded machine), failing
// with the exporter's stderr and what last tells.
func waitLong(t *testing.T, what string, stderr *cmdtest.SyncBuffer, cond func() bool, last func() string) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 3 minutes; the exporter's stderr:\n%s\nlast seen:\n%s", what, stderr.String(), last())
		}
	}
}

// zkscopeLines are the zkscope_ series of an exposition.
func zkscopeLines(exposition string) string {
	var out []string
	for _, l := range strings.Split(exposition, "\n") {
		if strings.HasPrefix(l, "zkscope_") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestExporterTwoContexts: the binary follows a ZooKeeper context and a
// Redis context at once, each labelled with its name, served and written
// to --textfile every second; /healthz says both are up; an interrupt
// ends it with status 0.
func TestExporterTwoContexts(t *testing.T) {
	bin := cmdtest.Binary(t) // built first: on a loaded machine a build takes minutes
	srv := zktest.Shared(t)
	base, lock := persistentLock(t, srv.ConnectString())
	rs, _, rdb := redistest.Clients(t)
	// The lock's expiry outlasts any wait below (with a minute, a slow
	// start left nothing to read: the key had expired).
	if err := rdb.Set(t.Context(), "billing:lock", "tok-1", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.toml")
	toml := fmt.Sprintf("[contexts.zk]\nservers = %q\n\n[contexts.cache]\nservers = %q\n", srv.ConnectString(), rs.URL())
	if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	port, err := zktest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	textfile := filepath.Join(t.TempDir(), "zkscope.prom")
	cmd := exec.Command(bin, "--config", cfg, "exporter", "--context", "zk", "--context", "cache",
		"--listen", addr, "--poll-interval", "500ms", "--interval", "2s", "--textfile", textfile, "--textfile-interval", "1s", base)
	var stderr cmdtest.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	want := []string{
		`zkscope_lock_holders{cluster="zk",path="` + lock + `",recipe="curator.mutex"} 1`,
		`zkscope_lock_waiters{cluster="zk",path="` + lock + `",recipe="curator.mutex"} 1`,
		`zkscope_lock_holders{cluster="cache",path="billing:lock",recipe="redis.setnx"} 1`,
		`zkscope_cluster_following{cluster="cache",live="false",mode="polling"} 1`,
	}
	var body string
	waitLong(t, "both clusters' locks served", &stderr, func() bool {
		_, body = get("http://" + addr + "/metrics")
		for _, w := range want {
			if !strings.Contains(body, w) {
				return false
			}
		}
		return true
	}, func() string { return zkscopeLines(body) })
	var text []byte
	waitLong(t, "the textfile written with both clusters", &stderr, func() bool {
		text, _ = os.ReadFile(textfile)
		return strings.Contains(string(text), want[0]) && strings.Contains(string(text), want[2])
	}, func() string { return zkscopeLines(string(text)) })
	code, health := get("http://" + addr + "/healthz")
	if code != 200 || !strings.Contains(health, "zk: up (persistent-watches)") || !strings.Contains(health, "cache: up (polling)") {
		t.Errorf("/healthz %d:\n%s", code, health)
	}
	if !strings.Contains(stderr.String(), "serving http://"+addr+"/metrics for zk, cache") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("exit after an interrupt: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the exporter did not end after an interrupt")
	}
}

// TestExporterOnceTextfile: --once --textfile reads once, writes the
// file (the lock metrics, no process metrics) and exits 0.
func TestExporterOnceTextfile(t *testing.T) {
	srv := zktest.Shared(t)
	base, lock := persistentLock(t, srv.ConnectString())
	file := filepath.Join(t.TempDir(), "zkscope.prom")
	code, _, stderr := cmdtest.RunBinary(t, nil, "-s", srv.ConnectString(), "exporter", "--once", "--textfile", file, base)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.Contains(text, `zkscope_lock_holders{cluster="`+srv.ConnectString()+`",path="`+lock+`",recipe="curator.mutex"} 1`) ||
		strings.Contains(text, "go_goroutines") {
		t.Errorf("textfile:\n%s", text)
	}
	if matches, _ := filepath.Glob(file + ".*"); len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
	// A path that does not exist: the file is written (the cluster down)
	// and the status is 1, the reason on one line.
	code, _, stderr = cmdtest.RunBinary(t, nil, "-s", srv.ConnectString(), "exporter", "--once", "--textfile", file, base+"/missing")
	if b, _ = os.ReadFile(file); code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "down") ||
		!strings.Contains(string(b), `zkscope_cluster_up{cluster="`+srv.ConnectString()+`"} 0`) {
		t.Errorf("a missing path: exit %d, stderr %q, textfile:\n%s", code, stderr, b)
	}
}

// TestExporterUsage: flags that cannot work are refused with status 2
// before anything is read.
func TestExporterUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"exporter", "--once"}, "--once writes the metrics to --textfile once"},
		{[]string{"-s", "127.0.0.1:1", "exporter", "--context", "x"}, "give one or the other"},
		{[]string{"-s", "127.0.0.1:1", "exporter", "--include", "[", "/"}, "--include/--exclude"},
		{[]string{"-s", "127.0.0.1:1", "exporter", "relative"}, "PATH \"relative\""},
		{[]string{"-s", "127.0.0.1:1", "exporter", "--max-locks", "-1"}, "--max-locks"},
		{[]string{"-s", "127.0.0.1:1", "exporter", "--pattern", "lock:*"}, "every cluster here is ZooKeeper's"},
		{[]string{"-s", "redis://127.0.0.1:1", "exporter", "/app"}, "every cluster here is Redis's"},
	} {
		code, _, stderr := cmdtest.RunBinary(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q in one line", tc.args, code, stderr, tc.want)
		}
	}
}
