package demo_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	cmddemo "github.com/zkscope/zkscope/cmd/demo"
	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/demo"
	"github.com/zkscope/zkscope/demo/herd"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestDemoHerdReport runs `zkscope demo --herd --report --json` in
// process: stdout is the JSON report alone (progress goes to stderr),
// with N(N-1) notifications for the naive lock and N for the chain, the
// servers' view agreeing; the server and its directory are gone after.
func TestDemoHerdReport(t *testing.T) {
	zktest.Require(t)
	const n = 4
	var out, progress cmdtest.SyncBuffer
	var env demo.Env
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err := cmddemo.Run(ctx, cmddemo.Options{NoTUI: true, Out: &out, Err: &progress, Ready: func(e demo.Env) { env = e },
		Herd: cmddemo.HerdOptions{On: true, Contenders: n, Releases: n, Report: true, JSON: true}})
	if err != nil {
		t.Fatalf("demo --herd --report: %v\n%s", err, progress.String())
	}
	var rep herd.Report
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, out.String())
	}
	if len(rep.Locks) != 2 || rep.Locks[0].Lock != herd.Naive || rep.Locks[1].Lock != herd.Chain {
		t.Fatalf("report: %+v", rep)
	}
	for _, l := range rep.Locks {
		want := n
		if l.Lock == herd.Naive {
			want = n * (n - 1)
		}
		if l.Total.Notifications != want || l.Total.ServerNotifications != want {
			t.Errorf("%s: %d notifications, servers' view %d; want %d", l.Lock, l.Total.Notifications, l.Total.ServerNotifications, want)
		}
	}
	if !strings.Contains(progress.String(), "Starting a local ZooKeeper") {
		t.Errorf("progress on stderr: %q", progress.String())
	}
	if _, err := os.Stat(env.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the demo left %s behind (%v)", env.Dir, err)
	}
	if _, err := zktest.FourLetterWord(env.Servers[0], "ruok", time.Second); err == nil {
		t.Errorf("the demo server still answers on %s", env.Servers[0])
	}
}

// TestDemoHerdFlags: the --herd flags without --herd, or out of range,
// are usage errors (exit status 2) before anything starts.
func TestDemoHerdFlags(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "--contenders", "5"},
		{"demo", "--report"},
		{"demo", "--herd", "--contenders", "1"},
		{"demo", "--herd", "--json"},
		{"demo", "--herd", "--releases", "0", "--report"},
	} {
		_, err := cmdtest.Run(t, args...)
		if !cmdutil.IsUsage(err) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
