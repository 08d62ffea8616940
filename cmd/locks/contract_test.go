package locks_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// The `locks --json` contract (shared/locks-json.md), checked field by
// field: names, types, nullability and value sets.
var (
	contractRecipes = map[string]bool{"curator.mutex": true, "curator.rwlock": true, "curator.semaphore-v2": true,
		"curator.leader-latch": true, "kazoo.lock": true, "kazoo.rwlock": true, "kazoo.semaphore": true,
		"go-zk.lock": true, "zookeeper.lock": true, "zookeeper.docs-rwlock": true, "unknown": true,
		"kafka.controller": true, "hadoop.ha": true, "hbase.master": true, "solr.overseer": true, "zookeeper.ephemeral-lock": true}
	contractSession = regexp.MustCompile(`^0x[0-9a-f]+$`)
	contractCtime   = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
)

// checkContract validates one `locks --json` document.
func checkContract(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var r map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	fail := func(format string, args ...any) { t.Helper(); t.Errorf("contract: "+format, args...) }
	if r["schema"] != json.Number("1") {
		fail("schema %v, want 1", r["schema"])
	}
	if _, ok := r["servers"].([]any); !ok {
		fail("servers is not a list: %v", r["servers"])
	}
	locks, ok := r["locks"].([]any)
	if !ok {
		fail("locks is not a list")
	}
	var checkLock func(l map[string]any)
	checkLock = func(l map[string]any) {
		path, _ := l["path"].(string)
		if !strings.HasPrefix(path, "/") {
			fail("lock path %q", l["path"])
		}
		if !contractRecipes[fmt.Sprint(l["recipe"])] {
			fail("%s: recipe %v", path, l["recipe"])
		}
		parts, ok := l["participants"].([]any)
		if !ok {
			fail("%s: participants is not a list", path)
		}
		for _, pa := range parts {
			p := pa.(map[string]any)
			for _, k := range []string{"node", "seq", "mode", "state", "position", "session", "ephemeral", "client", "data", "ctime", "watches", "watch_kind", "watch_observed",
				"age_ms", "held_since", "held_since_source"} {
				if _, ok := p[k]; !ok {
					fail("%s: participant lacks %q: %v", path, k, p)
				}
			}
			// (A plain ephemeral lock is its own node: node is the path.)
			if n, _ := p["node"].(string); !strings.HasPrefix(n, path+"/") && !strings.HasPrefix(n, path+"-__lock__/") &&
				!(n == path && l["recipe"] == "zookeeper.ephemeral-lock") {
				fail("%s: node %v is not an absolute path below the lock", path, p["node"])
			}
			if s := p["state"]; s != "holding" && s != "waiting" {
				fail("%s: state %v", path, s)
			}
			if !contractSession.MatchString(fmt.Sprint(p["session"])) {
				fail("%s: session %v", path, p["session"])
			}
			if eph, ok := p["ephemeral"].(bool); !ok || (!eph && p["session"] != "0x0") {
				fail("%s: ephemeral %v with session %v", path, p["ephemeral"], p["session"])
			}
			if !contractCtime.MatchString(fmt.Sprint(p["ctime"])) {
				fail("%s: ctime %v", path, p["ctime"])
			}
			if _, ok := p["position"].(json.Number); !ok {
				fail("%s: position %v", path, p["position"])
			}
			// The node's age in ms (null when its creation time is
			// unknown), and when a holder began to hold with how that is
			// known (both null when unknown; never on a waiter).
			if a, ok := p["age_ms"].(json.Number); p["age_ms"] != nil && (!ok || strings.HasPrefix(string(a), "-")) {
				fail("%s: age_ms %v", path, p["age_ms"])
			}
			switch since, src := p["held_since"], p["held_since_source"]; {
			case (since == nil) != (src == nil):
				fail("%s: held_since %v with held_since_source %v", path, since, src)
			case since != nil && (!contractCtime.MatchString(fmt.Sprint(since)) || p["state"] != "holding"):
				fail("%s: held_since %v (state %v)", path, since, p["state"])
			case src != nil && src != "seen" && src != "txnlog" && src != "recording":
				fail("%s: held_since_source %v", path, src)
			}
			if c := p["client"]; c != nil {
				if _, ok := c.(string); !ok {
					fail("%s: client %v", path, c)
				}
			}
			switch w := p["watches"].(type) {
			case nil:
				if p["watch_kind"] != nil || p["watch_observed"] != nil {
					fail("%s: watch_kind/watch_observed without watches: %v", path, p)
				}
			case string:
				k := p["watch_kind"]
				if !strings.HasPrefix(w, "/") || (k != "data" && k != "exists" && k != "children") {
					fail("%s: watches %q watch_kind %v", path, w, k)
				}
				if k == "children" && p["watch_observed"] != nil {
					fail("%s: a children watch cannot be observed: %v", path, p["watch_observed"])
				}
			default:
				fail("%s: watches %v", path, w)
			}
		}
		probs, ok := l["problems"].([]any)
		if !ok {
			fail("%s: problems is not a list", path)
		}
		for _, pr := range probs {
			p := pr.(map[string]any)
			node, _ := p["node"].(string)
			if _, ok := p["kind"].(string); !ok || !strings.HasPrefix(node, "/") || p["detail"] == nil {
				fail("%s: problem without kind, absolute node or detail: %v", path, p)
			}
			if s := p["severity"]; s != "error" && s != "warning" && s != "info" {
				fail("%s: severity %v", path, s)
			}
		}
		if others, ok := l["other_views"].([]any); ok {
			for _, o := range others {
				checkLock(o.(map[string]any))
			}
		}
	}
	for _, la := range locks {
		checkLock(la.(map[string]any))
	}
	return r
}

// problemKinds reads every ProblemKind value from lockops/problems.go, so
// a new kind cannot escape the contract test.
func problemKinds(t *testing.T) []string {
	src, err := os.ReadFile("../../lockops/problems.go")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, m := range regexp.MustCompile(`ProblemKind = "([a-z0-9-]+)"`).FindAllStringSubmatch(string(src), -1) {
		kinds = append(kinds, m[1])
	}
	if len(kinds) < 20 {
		t.Fatalf("found only %d problem kinds in lockops/problems.go", len(kinds))
	}
	return kinds
}

// TestLocksJSONContractEveryProblemKind: the report of a lock with each
// problem kind, with and without a node of its own, keeps the contract.
func TestLocksJSONContractEveryProblemKind(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 1, 2, 345e6, time.UTC)
	holder := lockops.Participant{Name: "_c_a-lock-0000000000", Node: "/app/locks/o/_c_a-lock-0000000000", Seq: 0, HasSeq: true,
		Mode: "exclusive", State: lockops.StateHolding, Session: 0x100000872e90004, Ephemeral: true, Ctime: now, Data: []byte{0xff, 0}}
	waiter := lockops.Participant{Name: "_c_b-lock-0000000001", Node: "/app/locks/o/_c_b-lock-0000000001", Seq: 1, HasSeq: true, Position: 1,
		Mode: "exclusive", State: lockops.StateWaiting, Ctime: now, Watches: holder.Node, WatchKind: lockops.WatchData}
	var queues []lockops.Queue
	for i, k := range problemKinds(t) {
		q := lockops.Queue{Path: fmt.Sprintf("/app/locks/l%d", i), Kind: lockops.KindCuratorMutex,
			Participants: []lockops.Participant{holder, waiter}}
		q.Problems = []lockops.Problem{{Kind: lockops.ProblemKind(k), Detail: "whole lock"}, {Kind: lockops.ProblemKind(k), Node: holder.Node, Detail: "one node"}}
		for j := range q.Participants {
			q.Participants[j].Node = q.Path + "/" + q.Participants[j].Name
		}
		q.Participants[1].Watches = q.Participants[0].Node
		if k == string(lockops.ProblemMixedLibraries) {
			q.Others = []lockops.Queue{{Path: q.Path, Kind: lockops.KindKazooLock, Participants: q.Participants[:1]}}
		}
		queues = append(queues, q)
	}
	var out bytes.Buffer
	v := diagnose.Verified(nil, 0)
	if err := report.WriteJSONWith(&out, []string{"127.0.0.1:2181"}, queues, &v); err != nil {
		t.Fatal(err)
	}
	r := checkContract(t, out.Bytes())
	if got := len(r["locks"].([]any)); got != len(queues) {
		t.Errorf("%d locks in the report, want %d", got, len(queues))
	}
}

// TestLocksJSONContractLive: `zkscope locks --json` (the real binary) on
// real locks with problems (mixed libraries, a persistent holder, a stray
// child, a sequence tie) keeps the contract; on a server with the default
// whitelist the "verification" note says why clients and watches are
// unknown and which line to add, and the table has the same footnote.
func TestLocksJSONContractLive(t *testing.T) {
	srv := zktest.StartStandalone(t, zktest.Options{NoWhitelist: true})
	s := srv.ConnectString()
	c := cmdtest.Dial(t, s)
	acl := zk.WorldACL(zk.PermAll)
	for _, p := range []string{"/app", "/app/locks", "/app/locks/mixed", "/app/locks/stale"} {
		if _, err := c.Create(p, nil, 0, acl); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(p string, flags int32) {
		t.Helper()
		if _, err := c.Create(p, []byte("10.1.2.3"), flags, acl); err != nil {
			t.Fatal(err)
		}
	}
	mk("/app/locks/mixed/_c_5b0e61c1-0000-4000-8000-000000000001-lock-", zk.FlagEphemeral|zk.FlagSequence)
	mk("/app/locks/mixed/0123456789abcdef0123456789abcdef__lock__", zk.FlagEphemeral|zk.FlagSequence)
	mk("/app/locks/mixed/_c_5b0e61c1-0000-4000-8000-000000000002-lock-", zk.FlagEphemeral|zk.FlagSequence)
	mk("/app/locks/stale/_c_77aa9f02-0000-4000-8000-000000000003-lock-", zk.FlagSequence)
	mk("/app/locks/stale/_c_77aa9f02-0000-4000-8000-000000000004-lock-", zk.FlagEphemeral|zk.FlagSequence)
	mk("/app/locks/stale/zz-config", 0)

	env := []string{"XDG_STATE_HOME=" + t.TempDir()}
	code, out, stderr := cmdtest.RunBinary(t, env, "-s", s, "locks", "/app", "--json")
	if code != 0 {
		t.Fatalf("locks --json: exit %d\n%s", code, stderr)
	}
	r := checkContract(t, []byte(out))
	kinds := map[string]bool{}
	for _, l := range r["locks"].([]any) {
		for _, p := range l.(map[string]any)["problems"].([]any) {
			kinds[p.(map[string]any)["kind"].(string)] = true
		}
	}
	for _, k := range []string{"mixed-libraries", "persistent-lock-node"} {
		if !kinds[k] {
			t.Errorf("no %s problem in the report: %v", k, kinds)
		}
	}
	ver, _ := r["verification"].(map[string]any)
	note, _ := ver["note"].(string)
	if ver == nil || ver["clients_known"] != false || !strings.Contains(note, diagnose.WhitelistLine) || !strings.Contains(note, "admin_port") {
		t.Errorf("verification %v: want clients unknown and the whitelist line and admin_port in the note", ver)
	}

	// The table: full node names into a pipe, the other library's view of
	// the mixed lock, and the footnote once.
	code, out, stderr = cmdtest.RunBinary(t, env, "-s", s, "locks", "/app")
	if code != 0 {
		t.Fatalf("locks: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"_c_5b0e61c1-0000-4000-8000-000000000001-lock-0000000000", "as kazoo.lock sees it: /app/locks/mixed", "note: clients (-) and watches (?) unknown", diagnose.WhitelistLine} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "…") || strings.Count(out, "note:") != 1 {
		t.Errorf("the table into a pipe shortens names or repeats its note:\n%s", out)
	}
	// doctor says it once on stderr.
	_, _, stderr = cmdtest.RunBinary(t, env, "-s", s, "doctor", "/app")
	if strings.Count(stderr, diagnose.WhitelistLine) != 1 {
		t.Errorf("doctor does not say once why watches are unknown:\n%s", stderr)
	}
}

// TestLocksWatchJSONIsNDJSON: `locks --watch --json` writes one JSON
// document per line and nothing else (no screen codes, no header), so jq
// reads the stream; a redraw follows a change.
func TestLocksWatchJSONIsNDJSON(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		zktest.Unavailable(t, "jq is not installed")
	}
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	c := cmdtest.Dial(t, s)
	c.Create("/zkscope-test", nil, 0, zk.WorldACL(zk.PermAll))
	p := zktest.Path(t)
	if _, err := c.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	mk := func(uuid string) {
		if _, err := c.Create(p+"/_c_"+uuid+"-lock-", []byte("line1\nline2"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	mk("11111111-0000-4000-8000-000000000001")

	cmd := exec.Command(cmdtest.Binary(t), "-s", s, "locks", p, "--watch", "--json", "--interval", "5s")
	var out cmdtest.SyncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitLines := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); strings.Count(out.String(), "\n") < n; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("fewer than %d frames:\n%s", n, out.String())
			}
		}
	}
	waitLines(1)
	mk("22222222-0000-4000-8000-000000000002") // a redraw from the children watch
	// A frame may come between (the servers' answers, an interval): wait
	// for the one that shows the second contender.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var last struct {
			Locks []struct{ Participants []json.RawMessage }
		}
		if len(lines) >= 2 && json.Unmarshal([]byte(lines[len(lines)-1]), &last) == nil &&
			len(last.Locks) == 1 && len(last.Locks[0].Participants) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no frame with both contenders:\n%s", out.String())
		}
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()

	stream := out.String()
	if strings.Contains(stream, "\x1b") || strings.Contains(stream, "zkscope locks") {
		t.Fatalf("--watch --json wrote screen codes or a header:\n%q", stream)
	}
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(nil, 16<<20)
	frames := 0
	for sc.Scan() {
		checkContract(t, sc.Bytes())
		frames++
	}
	jqCmd := exec.Command(jq, "-c", ".locks[0].participants | length")
	jqCmd.Stdin = strings.NewReader(stream)
	got, err := jqCmd.Output()
	if err != nil {
		t.Fatalf("jq -c rejects the stream: %v\n%s", err, stream)
	}
	counts := strings.Fields(string(got))
	if len(counts) != frames || counts[0] != "1" || counts[len(counts)-1] != "2" {
		t.Errorf("jq saw %v over %d frames, want 1 participant first and 2 last", counts, frames)
	}
}
