package history_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/dbview/dbtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// historyDoc is the part of `history --json` the tests read.
type historyDoc struct {
	Schema int `json:"schema"`
	Locks  []struct {
		Path    string `json:"path"`
		Recipe  string `json:"recipe"`
		Tenures []struct {
			Node    string `json:"node"`
			Session string `json:"session"`
			Data    string `json:"data"`
			Payload string `json:"payload"`
			Held    *struct {
				Zxid string `json:"zxid"`
			} `json:"held"`
			End              string  `json:"end"`
			By               *string `json:"by"`
			WaitedMs         int64   `json:"waited_ms"`
			HeldMs           *int64  `json:"held_ms"`
			SessionTimeoutMs *int64  `json:"session_timeout_ms"`
			Behind           []struct {
				Node     string `json:"node"`
				Session  string `json:"session"`
				WaitedMs int64  `json:"waited_ms"`
			} `json:"behind"`
		} `json:"tenures"`
		Problems []struct {
			Kind string `json:"kind"`
			Node string `json:"node"`
		} `json:"problems"`
	} `json:"locks"`
}

// historyJSON runs `history ARGS --json` and decodes its document; it
// returns the raw output too, for failure messages.
func historyJSON(t *testing.T, args ...string) (historyDoc, string) {
	t.Helper()
	code, out, stderr := cmdtest.RunBinary(t, nil, append(append([]string{"history"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("history %v: exit %d: %s", args, code, stderr)
	}
	var doc historyDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("history %v: %v\n%s", args, err, out)
	}
	return doc, out
}

// TestHistoryRealContention: three real kazoo clients (each its own
// process) contend on one lock and the holder's process is killed
// (SIGKILL) so its session expires; then a holder's node is force-deleted
// by another session, a holder closes its session without releasing,
// and two real Curator clients contend on a second lock. `history --txnlog` on a copy of the server's data directory lists
// the holders in order with their waits and says how each tenure ended;
// `--at` reproduces what `locks --json` printed while the first queue
// stood; the same run recorded live by `locks --watch --record` gives the
// same holders through `history --recording`.
func TestHistoryRealContention(t *testing.T) {
	srv := zktest.StartStandalone(t, zktest.Options{MaxSessionTimeout: 4000}) // kazoo asks 30 s: 4 s
	connect := srv.ConnectString()
	c := cmdtest.Dial(t, connect)
	base := "/history"
	if _, err := c.Create(base, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	recording := filepath.Join(t.TempDir(), "locks.jsonl")
	stopRecorder := startRecorder(t, connect, base, recording)

	lock := base + "/deploy"
	kz := map[string]*zktest.Peers{}
	for _, id := range []string{"a", "b", "c"} {
		kz[id] = zktest.StartKazoo(t, connect)
	}
	kz["a"].Acquire(t, "a", "lock", lock)
	kz["a"].Await(t, "a", "acquired")
	awaitRecorded(t, recording, `"op":"create"`, 1)
	kz["b"].Acquire(t, "b", "lock", lock)
	kz["c"].Acquire(t, "c", "lock", lock)
	awaitChildren(t, c, lock, 3)

	// The queue stands (a holds, b and c wait): what locks --json prints now
	// is what --at must give for this moment.
	code, locksNow, stderr := cmdtest.RunBinary(t, nil, "-s", connect, "locks", base, "--json")
	if code != 0 {
		t.Fatalf("locks --json: exit %d: %s", code, stderr)
	}
	at := time.Now().UTC()

	// Each step waits until the recorder saw the last: a recording reads
	// the queue after each change, and a node that comes and goes between
	// two reads is not in it.
	kz["a"].Kill() // mid-hold: its session expires after 4 s
	kz["b"].Await(t, "b", "acquired")
	awaitRecorded(t, recording, `"op":"gone"`, 1)
	kz["b"].Release(t, "b")
	kz["c"].Await(t, "c", "acquired")
	awaitRecorded(t, recording, `"op":"gone"`, 2)
	kz["c"].Release(t, "c")
	awaitRecorded(t, recording, `"op":"gone"`, 3)

	// A force-delete: d holds, another session deletes its node.
	kz["d"] = zktest.StartKazoo(t, connect)
	kz["d"].Acquire(t, "d", "lock", lock)
	kz["d"].Await(t, "d", "acquired")
	awaitRecorded(t, recording, `"op":"create"`, 4)
	kids, _, err := c.Children(lock)
	if err != nil || len(kids) != 1 {
		t.Fatalf("children of %s: %v %v", lock, kids, err)
	}
	if err := c.Delete(lock+"/"+kids[0], -1); err != nil {
		t.Fatal(err)
	}

	// A Curator contention on a second lock.
	cur := zktest.StartCurator(t, connect)
	cur.Acquire(t, "c1", "mutex", base+"/curator")
	cur.Await(t, "c1", "acquired")
	cur.Acquire(t, "c2", "mutex", base+"/curator")
	awaitChildren(t, c, base+"/curator", 2)
	awaitRecorded(t, recording, `"op":"create"`, 6)
	cur.Release(t, "c1")
	cur.Await(t, "c2", "acquired")
	awaitRecorded(t, recording, `"op":"gone"`, 5)
	cur.Release(t, "c2")
	awaitRecorded(t, recording, `"op":"gone"`, 6) // a, b, c, d, c1, c2

	// A client that closes its session while holding (go-zookeeper's
	// Close): the close is its own request, not an expiry.
	e, _, err := zk.Connect([]string{connect}, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(lock+"/0123456789abcdef0123456789abcdef__lock__", []byte("e"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	awaitRecorded(t, recording, `"op":"create"`, 7)
	e.Close()
	awaitRecorded(t, recording, `"op":"gone"`, 7)
	stopRecorder()

	data := copyDataDir(t, filepath.Join(srv.Servers[0].Dir, "data"))
	checkTxnlogHistory(t, data, base, lock)
	checkHistoryAt(t, data, base, at, locksNow)
	checkRecordedHistory(t, recording, base, lock)
}

// checkTxnlogHistory: the holders of lock in order a, b, c, d with how
// each ended, the waits behind a, and the Curator lock's two holders.
func checkTxnlogHistory(t *testing.T, data, base, lock string) {
	t.Helper()
	doc, out := historyJSON(t, base, "--txnlog", data)
	if len(doc.Locks) != 2 || doc.Locks[0].Path != base+"/curator" || doc.Locks[1].Path != lock {
		t.Fatalf("locks: %s", out)
	}
	dep := doc.Locks[1]
	var order, ends []string
	for _, tn := range dep.Tenures {
		if tn.Held == nil || tn.HeldMs == nil || *tn.HeldMs <= 0 {
			t.Fatalf("tenure %s never held or held no time: %s", tn.Data, out)
		}
		order, ends = append(order, tn.Data), append(ends, tn.End)
	}
	if want := []string{"a", "b", "c", "d", "e"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("holders %v, want %v\n%s", order, want, out)
	}
	if want := []string{"session-expired", "released", "released", "force-deleted", "session-closed"}; !reflect.DeepEqual(ends, want) {
		t.Fatalf("ends %v, want %v\n%s", ends, want, out)
	}
	a := dep.Tenures[0]
	if a.SessionTimeoutMs == nil || *a.SessionTimeoutMs != 4000 || len(a.Behind) != 2 {
		t.Fatalf("a's session timeout or the waits behind it: %s", out)
	}
	if b := dep.Tenures[1]; b.WaitedMs <= 0 || a.Behind[0].Node != b.Node || a.Behind[0].WaitedMs <= 0 {
		t.Fatalf("b's wait behind a: %s", out)
	}
	if d := dep.Tenures[3]; d.By == nil || *d.By == d.Session {
		t.Fatalf("d's force-delete names no other session: %s", out)
	}
	kinds := map[string]bool{}
	for _, p := range dep.Problems {
		kinds[p.Kind] = true
	}
	if !kinds["holder-session-expired"] || !kinds["force-deleted"] {
		t.Fatalf("problems %v: %s", kinds, out)
	}
	cu := doc.Locks[0]
	if cu.Recipe != "curator.mutex" || len(cu.Tenures) != 2 || cu.Tenures[0].End != "released" || cu.Tenures[1].End != "released" || cu.Tenures[1].WaitedMs <= 0 {
		t.Fatalf("Curator lock: %s", out)
	}
	code, table, stderr := cmdtest.RunBinary(t, nil, "history", base, "--txnlog", data)
	if code != 0 || !strings.Contains(table, "session expired at") || !strings.Contains(table, "timeout 4s") || !strings.Contains(table, "behind #1: #2 waited") {
		t.Fatalf("history table: exit %d\n%s\n%s", code, table, stderr)
	}
	t.Logf("history table:\n%s", table)
}

// checkHistoryAt: --at the moment locks --json printed gives its locks,
// but for what only live servers know (clients, confirmed watches).
func checkHistoryAt(t *testing.T, data, base string, at time.Time, locksNow string) {
	t.Helper()
	code, out, stderr := cmdtest.RunBinary(t, nil, "history", base, "--txnlog", data, "--at", at.Format(time.RFC3339Nano), "--json")
	if code != 0 {
		t.Fatalf("history --at --json: exit %d: %s", code, stderr)
	}
	want, got := liveFieldsOut(t, locksNow), liveFieldsOut(t, out)
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("history --at %s:\n%s\nlocks --json then:\n%s", at.Format(time.RFC3339Nano), out, locksNow)
	}
	if n := len(want.([]any)); n != 1 {
		t.Fatalf("%d locks at %s, want 1", n, at)
	}
}

// serverProblems are the problem kinds only live servers can tell (a
// watch a waiter set a moment ago may not be listed yet).
var serverProblems = map[string]bool{"watch-missing": true, "dead-owner": true, "owner-disconnected": true, "deadlock": true, "session-hung": true}

// liveFieldsOut is a locks --json document's locks without what only
// live servers tell (clients, observed watches and the problems found
// from them) and what depends on when and from what it was read (a
// node's age counts to the read; a history knows when a holder began,
// one read does not).
func liveFieldsOut(t *testing.T, doc string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	locks := m["locks"].([]any)
	for _, l := range locks {
		lm := l.(map[string]any)
		var probs []any
		for _, pr := range lm["problems"].([]any) {
			if !serverProblems[pr.(map[string]any)["kind"].(string)] {
				probs = append(probs, pr)
			}
		}
		lm["problems"] = probs
		for _, p := range lm["participants"].([]any) {
			pm := p.(map[string]any)
			delete(pm, "client")
			delete(pm, "watch_observed")
			delete(pm, "observed_watches")
			delete(pm, "age_ms")
			delete(pm, "held_since")
			delete(pm, "held_since_source")
		}
	}
	return locks
}

// checkRecordedHistory: the live recording gives the same holders in the
// same order (without knowing why each left).
func checkRecordedHistory(t *testing.T, recording, base, lock string) {
	t.Helper()
	doc, out := historyJSON(t, base, "--recording", recording)
	var order []string
	for _, l := range doc.Locks {
		if l.Path != lock {
			continue
		}
		for _, tn := range l.Tenures {
			if tn.Held != nil {
				order = append(order, tn.Data)
			}
			if tn.End != "gone" {
				t.Errorf("recorded tenure %s ended %q, want gone", tn.Data, tn.End)
			}
		}
	}
	if want := []string{"a", "b", "c", "d", "e"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("recorded holders %v, want %v\n%s", order, want, out)
	}
}

// startRecorder runs `locks PATH --watch --record FILE` until the
// returned func stops it (SIGINT) and waits for its header.
func startRecorder(t *testing.T, connect, p, file string) func() {
	t.Helper()
	cmd := exec.Command(cmdtest.Binary(t), "-s", connect, "locks", p, "--watch", "--json", "--interval", "1s", "--no-verify", "--record", file)
	var errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop := func() {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("the recorder did not stop on SIGINT; stderr:\n%s", errOut.String())
		}
	}
	t.Cleanup(stop)
	awaitRecorded(t, file, `"zkscope_recording":1`, 1)
	return stop
}

// awaitRecorded waits until file holds at least n lines containing s.
func awaitRecorded(t *testing.T, file, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(file)
		if bytes.Count(b, []byte(s)) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the recording never held %d lines with %s:\n%s", n, s, b)
		}
		time.Sleep(50 * time.Millisecond) // polling a file: nothing to wait on
	}
}

// awaitChildren waits until dir has at least n children.
func awaitChildren(t *testing.T, c *zk.Conn, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		kids, _, ch, err := c.ChildrenW(dir)
		if err == nil && len(kids) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never had %d children (%v, %v)", dir, n, kids, err)
		}
		if err != nil {
			_, _, ch, err = c.ExistsW(dir)
			if err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-ch:
		case <-time.After(time.Until(deadline)):
		}
	}
}

// copyDataDir copies a server's data directory (its version-2 logs and
// snapshots) as an operator would take it from a production server.
func copyDataDir(t *testing.T, data string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "zk-copy")
	if err := os.CopyFS(dst, os.DirFS(data)); err != nil {
		t.Fatalf("copy %s: %v", data, err)
	}
	return dst
}

// TestHistoryRefusals: history without a source, with two, or --at with
// --since, says what to give in one line.
func TestHistoryRefusals(t *testing.T) {
	for _, args := range [][]string{
		{"history", "/app"},
		{"history", "/app", "--txnlog", "d", "--recording", "f"},
		{"history", "/app", "--txnlog", "d", "--at", "now", "--since", "1h"},
		{"history", "/app", "--txnlog", "d", "--at", "yesterday"},
		{"history", "/app", "--txnlog", t.TempDir()},
		{"history", "/app", "--recording", filepath.Join(t.TempDir(), "none.jsonl")},
	} {
		code, out, stderr := cmdtest.RunBinary(t, nil, args...)
		if code == 0 || out != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stderr == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
	// A recording is never written over, and records what --watch sees.
	existing := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	connect := zktest.Shared(t).ConnectString()
	for _, args := range [][]string{
		{"-s", connect, "locks", "/", "--watch", "--record", existing},
		{"-s", connect, "locks", "/", "--record", filepath.Join(t.TempDir(), "new.jsonl")},
	} {
		code, _, stderr := cmdtest.RunBinary(t, nil, args...)
		if code == 0 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep" {
		t.Errorf("--record wrote over an existing file: %q", b)
	}
}

func TestMain(m *testing.M) { zktest.Main(dbtest.Wrap(m)) }
