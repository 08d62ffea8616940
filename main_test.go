package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// run executes the zkscope command line in-process and returns its stdout.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := root.ExecuteContext(ctx)
	return out.String(), err
}

func dial(t *testing.T, addr string) *zk.Conn {
	t.Helper()
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestTreeAndGet(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	c := dial(t, srv.Addrs()[0])
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll)) // may exist already
	for _, p := range []string{base, base + "/a", base + "/a/deep", base + "/b"} {
		if _, err := c.Create(p, []byte("hello "+p), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Create(base+"/bin", []byte{0, 1, 2, 0xff}, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(base+"/b/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	out, err := run(t, "-s", srv.ConnectString(), "tree", base)
	if err != nil {
		t.Fatal(err, out)
	}
	want := []string{"  a (1)", "    deep", "  b (1)", "    eph [E 0x", "  bin"}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("tree output lacks %q:\n%s", w, out)
		}
	}
	if strings.Index(out, "deep") > strings.Index(out, "  b (1)") {
		t.Errorf("tree not depth-first in name order:\n%s", out)
	}

	out, err = run(t, "-s", srv.ConnectString(), "tree", base, "--depth", "1")
	if err != nil || strings.Contains(out, "deep") || !strings.Contains(out, "  a (1)") {
		t.Errorf("--depth 1: err=%v\n%s", err, out)
	}

	out, err = run(t, "-s", srv.ConnectString(), "get", base+"/a", "--stat")
	if err != nil || !strings.HasPrefix(out, "hello "+base+"/a\n") || !strings.Contains(out, "dataVersion = 0") {
		t.Errorf("get --stat: err=%v\n%s", err, out)
	}
	out, err = run(t, "-s", srv.ConnectString(), "get", base+"/bin")
	if err != nil || !strings.Contains(out, "00 01 02 ff") {
		t.Errorf("get of binary data is not a hex dump: err=%v\n%s", err, out)
	}

	_, err = run(t, "-s", srv.ConnectString(), "get", base+"/missing")
	if err == nil || !strings.Contains(err.Error(), "node does not exist") || strings.Contains(err.Error(), "\n") {
		t.Errorf("get of a missing node: want a one-line 'does not exist' error, got %v", err)
	}
}

// TestLocksWatchRedraws: `locks --watch` redraws when a contender arrives
// and stops cleanly when its context ends.
func TestLocksWatchRedraws(t *testing.T) {
	srv := zktest.Shared(t)
	c := dial(t, srv.Addrs()[0])
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll)) // may exist already
	p := zktest.Path(t)
	if _, err := c.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	mk := func(uuid string) {
		t.Helper()
		if _, err := c.Create(p+"/_c_"+uuid+"-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	mk("11111111-0000-4000-8000-000000000001")

	root := newRoot()
	var out syncBuffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"-s", srv.ConnectString(), "locks", p, "--watch", "--interval", "1m", "--no-verify"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("--watch ended with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("--watch did not stop when its context ended")
		}
	}()
	waitOutput := func(what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(out.String(), what) {
			if time.Now().After(deadline) {
				t.Fatalf("--watch never showed %q:\n%s", what, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitOutput("1 holding, 0 waiting")
	// The redraw comes from the children watch (the interval is a minute).
	mk("22222222-0000-4000-8000-000000000002")
	waitOutput("1 holding, 1 waiting")
}

// TestLocksWatchIntervalFloor: an --interval below the floor is raised to
// it, and said so once.
func TestLocksWatchIntervalFloor(t *testing.T) {
	srv := zktest.Shared(t)
	root := newRoot()
	var out syncBuffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"-s", srv.ConnectString(), "locks", "/zookeeper", "--watch", "--interval", "1ms", "--no-verify"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "0 lock") && !strings.Contains(out.String(), "no locks") {
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Count(got, "--interval 1ms raised to 1s") != 1 {
		t.Errorf("no single note of the raised interval:\n%s", got)
	}
}
