package locks_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// locksDoc is the part of a `locks --json` document the churn test reads.
type locksDoc struct {
	Locks []struct {
		Path         string
		Participants []struct {
			Node, State   string
			WatchObserved *bool `json:"watch_observed"`
		}
		Problems []struct{ Kind, Node string }
	}
}

// TestWatchMissingUnderChurn: three real kazoo workers loop on one lock
// (each holds it 0.3 s, then queues again) while `locks --watch --json`
// draws every change and `doctor` runs again and again: no waiter of the
// churning lock is ever reported watch-missing (the servers' watch lists
// are samples: a waiter that arrived or moved after one began, or sets
// its watch a moment later, is unknown, not missing). Meanwhile, in
// another lock held by a real kazoo holder, a real kazoo client's node
// waits and never set a watch: it is reported watch-missing by doctor
// every time and by --watch.
func TestWatchMissingUnderChurn(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	base := zktest.Path(t)
	churn, stuck := base+"/churn", base+"/stuck"
	workers := []*zktest.KazooProc{
		zktest.KazooLoop(t, s, churn, "w1", 300*time.Millisecond),
		zktest.KazooLoop(t, s, churn, "w2", 300*time.Millisecond),
		zktest.KazooLoop(t, s, churn, "w3", 300*time.Millisecond),
	}
	zktest.KazooHolder(t, s, stuck, "holder", 30*time.Second)
	_, stuckNode := zktest.KazooNodeWithoutWatch(t, s, stuck)
	names := []string{"w1", "w2", "w3"}
	for i, w := range workers {
		w.Await(t, names[i]+" acquired")
	}

	cmd := exec.Command(cmdtest.Binary(t), "-s", s, "locks", base, "--watch", "--json", "--interval", "1s")
	var out, errOut cmdtest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopWatch := func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }
	defer stopWatch()

	env := []string{"XDG_STATE_HOME=" + t.TempDir()}
	doctorRuns := 0
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) || doctorRuns < 2; {
		code, lines, stderr := cmdtest.RunBinary(t, env, "-s", s, "doctor", base)
		if strings.Contains(lines+stderr, ") unknown") {
			// A member did not answer in time (a loaded machine): doctor
			// rightly says the watches are unknown instead of judging them.
			if time.Since(end) > time.Minute {
				t.Fatalf("no doctor run in 80 s had every member answer; the last:\n%s\n%s", lines, stderr)
			}
			continue
		}
		doctorRuns++
		if code != 1 {
			t.Fatalf("doctor exit %d, want 1 (the stuck waiter); stdout:\n%s\nstderr:\n%s", code, lines, stderr)
		}
		found := false
		for _, l := range strings.Split(lines, "\n") {
			f := strings.SplitN(l, "\t", 3)
			if len(f) < 2 || f[0] != "watch-missing" {
				continue
			}
			if f[1] != stuckNode {
				t.Errorf("doctor run %d: watch-missing on %s, a waiter of the churning lock:\n%s", doctorRuns, f[1], lines)
			}
			found = true
		}
		if !found {
			t.Errorf("doctor run %d did not report the waiter that never watched (%s):\n%s", doctorRuns, stuckNode, lines)
		}
	}
	// The workers took turns all along (the lock churned).
	for i, w := range workers {
		if n := w.Count(names[i] + " acquired"); n < 3 {
			t.Errorf("worker %s acquired only %d times", names[i], n)
		}
	}
	stopWatch()

	frames, churnWaiters, stuckReported := 0, 0, 0
	for _, line := range strings.Split(out.String(), "\n") {
		var doc locksDoc
		if json.Unmarshal([]byte(line), &doc) != nil {
			continue
		}
		frames++
		for _, l := range doc.Locks {
			for _, pr := range l.Problems {
				if pr.Kind != "watch-missing" {
					continue
				}
				if pr.Node != stuckNode {
					t.Errorf("locks --watch frame %d: watch-missing on %s of %s", frames, pr.Node, l.Path)
				} else {
					stuckReported++
				}
			}
			for _, p := range l.Participants {
				if l.Path == churn && p.State == "waiting" {
					churnWaiters++
					if p.WatchObserved != nil && !*p.WatchObserved {
						t.Errorf("locks --watch frame %d: %s shown ✗", frames, p.Node)
					}
				}
			}
		}
	}
	if frames < 10 || churnWaiters == 0 {
		t.Fatalf("locks --watch drew %d frames with %d waiter rows of the churning lock; stderr:\n%s", frames, churnWaiters, errOut.String())
	}
	if stuckReported == 0 {
		t.Errorf("locks --watch never reported the waiter that never watched (%d frames)", frames)
	}
}
