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

// heldDoc is the part of a `locks --json` document TestHeldIsNotNodeAge
// reads.
type heldDoc struct {
	Locks []struct {
		Participants []struct {
			Node, State, Ctime string
			AgeMs              *int64  `json:"age_ms"`
			HeldSince          *string `json:"held_since"`
			HeldSinceSource    *string `json:"held_since_source"`
		}
		Problems []struct{ Kind, Node, Detail string }
	}
}

// TestHeldIsNotNodeAge: a real kazoo waiter waits behind a holder for a
// few seconds, then acquires. Its node's age is not how long it has held:
// `doctor --held-longer-than` judges it by node age and says so ("node
// age … when it began to hold is not known"), never "held for";
// `locks` shows the age under AGE and `locks --json` as age_ms with
// held_since null; `locks --watch --json`, which saw it begin, gives
// held_since (source "seen") later than its creation by the wait.
func TestHeldIsNotNodeAge(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	base := zktest.Path(t)
	lock := base + "/job"
	kz := zktest.StartKazoo(t, s)
	kz.Acquire(t, "first", "lock", lock)
	kz.Await(t, "first", "acquired")
	kz.Acquire(t, "second", "lock", lock)
	kz.Await(t, "second", "started")

	watch := exec.Command(cmdtest.Binary(t), "-s", s, "locks", base, "--watch", "--json", "--interval", "1s", "--no-verify")
	var frames cmdtest.SyncBuffer
	watch.Stdout = &frames
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { watch.Process.Signal(os.Interrupt); watch.Wait() }()
	lastFrame := func() (doc heldDoc) {
		lines := strings.Split(strings.TrimSpace(frames.String()), "\n")
		json.Unmarshal([]byte(lines[len(lines)-1]), &doc)
		return doc
	}
	cmdtest.WaitUntil(t, "a frame with the waiter", func() bool {
		d := lastFrame()
		return len(d.Locks) == 1 && len(d.Locks[0].Participants) == 2
	})
	// The second waits a few seconds: its node is that much older than
	// its hold will be (a wait, not a synchronisation).
	time.Sleep(3 * time.Second)
	kz.Release(t, "first")
	kz.Await(t, "second", "acquired")

	env := []string{"XDG_STATE_HOME=" + t.TempDir()}
	code, out, stderr := cmdtest.RunBinary(t, env, "-s", s, "doctor", base, "--held-longer-than", "2s")
	if code != 1 || !strings.Contains(out, "held-too-long") {
		t.Fatalf("doctor exit %d, want 1 with held-too-long (node older than 2s); stdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	if strings.Contains(out, "held for") || !strings.Contains(out, "node age ") || !strings.Contains(out, "when it began to hold is not known") {
		t.Errorf("doctor reports the node's age as the hold:\n%s", out)
	}

	code, out, stderr = cmdtest.RunBinary(t, env, "-s", s, "locks", lock)
	if code != 0 || !strings.Contains(out, "AGE") || strings.Contains(out, "FOR") {
		t.Errorf("locks: exit %d, want an AGE column and no FOR:\n%s%s", code, out, stderr)
	}
	code, out, _ = cmdtest.RunBinary(t, env, "-s", s, "locks", lock, "--json")
	var doc heldDoc
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Locks) != 1 || len(doc.Locks[0].Participants) != 1 {
		t.Fatalf("locks --json: exit %d, %v:\n%s", code, err, out)
	}
	h := doc.Locks[0].Participants[0]
	if h.AgeMs == nil || *h.AgeMs < 3000 || h.HeldSince != nil || h.HeldSinceSource != nil {
		t.Errorf("locks --json holder: age_ms %v, held_since %v (%v); want its node's age and no held_since:\n%s", h.AgeMs, h.HeldSince, h.HeldSinceSource, out)
	}

	var seen struct{ since, ctime time.Time }
	cmdtest.WaitUntil(t, "a --watch frame with the second holding since seen", func() bool {
		d := lastFrame()
		if len(d.Locks) != 1 || len(d.Locks[0].Participants) != 1 {
			return false
		}
		p := d.Locks[0].Participants[0]
		if p.HeldSince == nil || p.HeldSinceSource == nil || *p.HeldSinceSource != "seen" {
			return false
		}
		seen.since, _ = time.Parse(time.RFC3339Nano, *p.HeldSince)
		seen.ctime, _ = time.Parse(time.RFC3339Nano, p.Ctime)
		return true
	})
	if seen.since.Sub(seen.ctime) < 3*time.Second {
		t.Errorf("--watch: held since %s, node created %s: the hold began after the wait", seen.since, seen.ctime)
	}
}
