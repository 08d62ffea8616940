package demo_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
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

// TestDemoHerdTUI runs `zkscope demo --herd` in a terminal (tmux): both
// queues drawn as the lock pane draws them, the naive one flagged herd,
// under each the last release's counts from both sources (N-1
// notifications against 1 for N contenders); space pauses, q quits.
func TestDemoHerdTUI(t *testing.T) {
	zktest.Require(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		zktest.Unavailable(t, "tmux is not installed")
	}
	s := cmdtest.StartTmux(t, "herd", 130, 40, "demo --herd --contenders 5 --interval 100ms")
	// The server's start takes seconds on a loaded machine: wait longer
	// than WaitFor does.
	deadline := time.Now().Add(2 * time.Minute)
	var scr string
	for {
		scr = s.Capture()
		if strings.Count(scr, "after 3 releases") == 2 || strings.Count(scr, "after 4 releases") == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no third release on both locks within 2m:\n%s", scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, want := range []string{"zookeeper.ephemeral-lock", "curator.mutex", " herd ", "4 waiting",
		"notified (servers' wchc)", "the servers' view and the contenders' agree", "4 on 1 node", "4 on 4 nodes"} {
		if !strings.Contains(scr, want) {
			t.Errorf("no %q on the screen:\n%s", want, scr)
		}
	}
	if got := lastCounts(scr, "notifications (contenders)"); got != [2]string{"4", "1"} {
		t.Errorf("last release's notifications %v, want naive 4 and chain 1:\n%s", got, scr)
	}
	s.Keys("Space")
	s.WaitFor("paused", cmdtest.Has("· paused"))
	s.Keys("q")
	s.WaitFor("the demo to quit", func(scr string) bool { return !strings.Contains(scr, "zkscope demo --herd") })
}

// lastCounts are the "last" column of the row named what under each of
// the two queues.
func lastCounts(scr, what string) [2]string {
	var out [2]string
	for _, line := range strings.Split(scr, "\n") {
		for i, part := range strings.Split(line, "││") {
			if i < 2 && strings.Contains(part, what) {
				f := strings.Fields(strings.SplitN(part, what, 2)[1])
				if len(f) > 0 {
					out[i] = f[0]
				}
			}
		}
	}
	return out
}
