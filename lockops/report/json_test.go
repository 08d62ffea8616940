package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/internal/contracttest"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/locks-json")

// jsonCases are reports covering the contract: several recipes, verified
// and unverified participants, binary data, children/data/exists waits,
// problems of a node and of a whole lock, a mixed directory's other
// views, and the empty report.
func jsonCases() map[string]struct {
	servers []string
	queues  []lockops.Queue
} {
	yes, no := true, false
	at := func(d lockops.Dir, ms int64) lockops.Dir {
		for i := range d.Children {
			d.Children[i].Ctime = ms + int64(i)*1001
		}
		return d
	}

	// Curator read/write lock, verified: the holder's client known, a
	// waiter's watch confirmed, another's not, binary data, a persistent
	// node.
	w0, r1, r2 := locktest.CuratorName(locktest.UUIDA, "__WRIT__", "0000000000"), locktest.CuratorName(locktest.UUIDB, "__READ__", "0000000001"), locktest.CuratorName(locktest.UUIDC, "__WRIT__", "0000000002")
	rw := at(dir("/app/locks/orders", kid(r2, 0x100000872e90006), kid(w0, 0x100000872e90004), kid(r1, 0x100000872e90005)), 1_700_000_000_345)
	rw.Children[1].Data = []byte("10.1.2.3")
	rw.Children[2].Data = []byte("host \"b\"\n<&>")
	rw.Children[0].Data = []byte{0xca, 0xfe, 0x00, 0xff}
	rwq := lockops.Decode(rw, lockops.DecodeOptions{})
	rwq.Participants[0].Client = "10.1.2.3:53412"
	rwq.Participants[0].WatchObserved = nil
	rwq.Participants[1].WatchObserved = &yes
	rwq.Participants[1].ObservedWatches = []string{rwq.Participants[0].Node}
	rwq.Participants[2].WatchObserved = &no
	// The holder seen beginning to hold 1h10m before the report (its node
	// is 2h old): held-too-long by what was seen, not by its age.
	rwq.Participants[0].HeldSince, rwq.Participants[0].HeldSource = time.UnixMilli(1_700_000_000_000+2*3600_000-70*60_000), lockops.HeldSeen
	persist := at(dir("/app/locks/stale", kid(locktest.HexA+"__lock__0000000001", 0), kid(locktest.HexB+"__lock__0000000002", 7)), 1_600_000_000_000)

	// A Curator semaphore (children waits, max_leases), a kazoo
	// semaphore, ZooKeeper's own lock (exists waits), go-zookeeper.
	l0, l1, l2 := locktest.CuratorName(locktest.UUIDA, "lease-", "0000000000"), locktest.CuratorName(locktest.UUIDB, "lease-", "0000000001"), locktest.CuratorName(locktest.UUIDC, "lease-", "0000000002")
	k0 := locktest.CuratorName(locktest.UUIDD, "lock-", "0000000003")
	locks := at(dir("/sem/locks", kid(k0, 4)), 1_700_000_100_000)
	sem := at(dir("/sem/leases", kid(l0, 1), kid(l1, 2), kid(l2, 3)), 1_700_000_100_000)
	sem.Aux = &locks
	ksem := at(dir("/ksem", kid(locktest.HexA, 1)), 1_700_000_200_000)
	ksem.Data = []byte("1")
	kq := at(dir("/ksem-__lock__", kid(locktest.HexC+"__lock__0000000000", 3)), 1_700_000_200_500)
	ksem.Aux = &kq
	zkl := at(dir("/zk", kid("x-72057594037927937-0000000000", 0x100000000000001), kid("x-72057594037927938-0000000001", 0x100000000000002)), 1_700_000_300_000)
	gozk := at(dir("/gozk", kid("_c_"+locktest.HexA+"-lock-0000000000", 11), kid("_c_"+locktest.HexB+"-lock-0000000001", 12)), 1_700_000_400_000)

	// Curator and kazoo nodes in one directory: other views, and a
	// problem of the whole lock.
	mixed := at(dir("/mixed", kid(locktest.CuratorName(locktest.UUIDA, "lock-", "0000000000"), 21), kid(locktest.HexB+"__lock__0000000001", 22)), 1_700_000_500_000)

	now := time.UnixMilli(1_700_000_000_000 + 2*3600_000)
	diagnosed := func(qs ...lockops.Queue) []lockops.Queue {
		for i := range qs {
			qs[i].ReadAt = now // node ages (age_ms) are counted to the read
		}
		diagnose.Diagnose(qs, diagnose.Options{HeldLongerThan: time.Hour, Now: now})
		return qs
	}
	return map[string]struct {
		servers []string
		queues  []lockops.Queue
	}{
		"curator-rwlock": {[]string{"127.0.0.1:2181"}, diagnosed(rwq, lockops.Decode(persist, lockops.DecodeOptions{}))},
		"recipes": {[]string{"zk1:2181", "zk2:2181"}, diagnosed(lockops.Decode(sem, lockops.DecodeOptions{MaxLeases: 2}),
			lockops.Decode(ksem, lockops.DecodeOptions{}), lockops.Decode(zkl, lockops.DecodeOptions{}), lockops.Decode(gozk, lockops.DecodeOptions{Kind: lockops.KindGoZK}))},
		"mixed-libraries": {[]string{"127.0.0.1:2181"}, diagnosed(lockops.Decode(mixed, lockops.DecodeOptions{}))},
		"empty":           {nil, nil},
		"elections":       {[]string{"zk1:2181"}, readAt(electionQueues(), now)},
	}
}

// TestWriteJSONGolden: the report of each case is byte for byte its
// golden file (go test ./lockops -run WriteJSONGolden -update rewrites
// them; read the diff).
func TestWriteJSONGolden(t *testing.T) {
	for name, c := range jsonCases() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteJSON(&buf, c.servers, c.queues); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "locks-json", name+".json")
			if *updateGolden {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s differs:\n got %s\nwant %s", golden, buf.Bytes(), want)
			}
		})
	}
}

// TestWriteJSONContract: each report decodes with encoding/json, holds
// every field of the contract with its type, and reads back as the
// queues it was written from.
func TestWriteJSONContract(t *testing.T) {
	for name, c := range jsonCases() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteJSON(&buf, c.servers, c.queues); err != nil {
				t.Fatal(err)
			}
			doc, err := contracttest.DecodeReport(buf.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.Bytes())
			}
			contracttest.Check(t, doc)
			if got, want := strings.Join(doc.Strs("servers"), ","), strings.Join(c.servers, ","); got != want {
				t.Errorf("servers %s, want %s", got, want)
			}
			locks := doc.Objs("locks")
			if len(locks) != len(c.queues) {
				t.Fatalf("%d locks, want %d", len(locks), len(c.queues))
			}
			for i, q := range c.queues {
				checkReadBack(t, locks[i], q)
			}
		})
	}
}

// checkReadBack compares a decoded lock with the queue it was written
// from.
func checkReadBack(t *testing.T, l contracttest.Obj, q lockops.Queue) {
	t.Helper()
	if l.Str("path") != q.Path || l.Str("recipe") != string(q.Kind) || l.Num("max_leases") != q.MaxLeases {
		t.Errorf("lock %s %s max %d, want %s %s max %d", l.Str("path"), l.Str("recipe"), l.Num("max_leases"), q.Path, q.Kind, q.MaxLeases)
	}
	ps, prs := l.Objs("participants"), l.Objs("problems")
	if len(ps) != len(q.Participants) || len(prs) != len(q.Problems) || len(l.Objs("other_views")) != len(q.Others) {
		t.Fatalf("%s: %d participants, %d problems, %d other views; want %d, %d, %d", q.Path,
			len(ps), len(prs), len(l.Objs("other_views")), len(q.Participants), len(q.Problems), len(q.Others))
	}
	for i, p := range q.Participants {
		got := ps[i]
		data := got.Str("data")
		if got.Str("data_encoding") == "base64" {
			data = string(mustBase64(t, data))
		}
		if got.Str("node") != p.Node || got.Str("state") != string(p.State) || got.Str("mode") != string(p.Mode) ||
			got.Num("position") != p.Position || got.Str("session") != lockops.FormatSession(p.Session) ||
			got.Str("client") != p.Client || data != string(p.Data) || got.Str("watches") != p.Watches ||
			!got.IsNull("watch_observed") != (p.WatchObserved != nil) ||
			strings.Join(got.Strs("observed_watches"), ",") != strings.Join(p.ObservedWatches, ",") ||
			got.Str("ctime") != p.Ctime.UTC().Format("2006-01-02T15:04:05.000Z") {
			t.Errorf("%s: participant %d reads back as %v\nfrom %+v", q.Path, i, got, p)
		}
	}
	for i, pr := range q.Problems {
		got := prs[i]
		wantNode := pr.Node
		if wantNode == "" {
			wantNode = q.Path // a problem of the whole lock names the lock
		}
		if got.Str("kind") != string(pr.Kind) || got.Str("node") != wantNode || got.Str("detail") != pr.Detail || got.Str("severity") != pr.Severity().String() {
			t.Errorf("%s: problem %d reads back as %v, from %+v", q.Path, i, got, pr)
		}
	}
	for i, o := range q.Others {
		checkReadBack(t, l.Objs("other_views")[i], o)
	}
}

func mustBase64(t *testing.T, s string) []byte {
	t.Helper()
	var b []byte
	if err := json.Unmarshal([]byte(`"`+s+`"`), &b); err != nil { // []byte reads base64
		t.Fatal(err)
	}
	return b
}

// The cases cover what the contract and its extra fields can hold.
func TestJSONCasesCoverTheContract(t *testing.T) {
	var buf bytes.Buffer
	for _, c := range jsonCases() {
		WriteJSON(&buf, c.servers, c.queues)
	}
	for _, field := range []string{`"severity":"error"`, `"severity":"warning"`, `"other_views":[`, `"observed_watches":[`,
		`"data_encoding":"base64"`, `"max_leases":2`, `"watch_kind":"children"`, `"watch_kind":"data"`, `"watch_kind":"exists"`,
		`"watch_observed":true`, `"watch_observed":false`, `"client":"`, `"ephemeral":false`, `"kind":"mixed-libraries"`,
		`"kind":"persistent-lock-node"`, `"locks":[]`, `"servers":[]`, `"recipe":"kazoo.semaphore"`, `"recipe":"go-zk.lock"`,
		`"recipe":"kafka.controller"`, `"recipe":"hadoop.ha"`, `"recipe":"hbase.master"`, `"recipe":"solr.overseer"`,
		`"recipe":"zookeeper.ephemeral-lock"`, `"own_node":false`, `"payload":{`, `"context":{`, `"kind":"failover-unfinished"`} {
		if !bytes.Contains(buf.Bytes(), []byte(field)) {
			t.Errorf("no case writes %s", field)
		}
	}
}

// encodingJSONString is how encoding/json quotes s with HTML escaping off:
// the reference for appendJSONString.
func encodingJSONString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

func TestJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "/l/n", "/l/\"quote\\ \u2028 \u2029 <&>", "tab\t nl\n cr\r bs\b ff\f nul\x00 esc\x1b del\x7f é 漢", "bad\xffutf8\xc3\x28"} {
		if got, want := string(appendJSONString(nil, s)), encodingJSONString(s); got != want {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}

// FuzzJSONString: any text is quoted exactly as encoding/json quotes it.
func FuzzJSONString(f *testing.F) {
	f.Add("/l/a\"b\\c\u2028\x01")
	f.Add("/l/\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendJSONString(nil, s)), encodingJSONString(s); got != want {
			t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	})
}

// FuzzParticipantJSON: for any node, data and client text a participant's
// JSON is valid, keeps the contract, and reads back.
func FuzzParticipantJSON(f *testing.F) {
	f.Add("/l/a\"b\\c", []byte("data\u2028\x01"), "10.0.0.1:1", int64(-5), int64(42))
	f.Add("/l/\xff\xfe", []byte{0xc3, 0x28}, "", int64(0), int64(0))
	f.Fuzz(func(t *testing.T, node string, data []byte, client string, seq, session int64) {
		node = "/" + node
		p := lockops.Participant{Node: node, Seq: seq, HasSeq: seq >= 0, Mode: lockops.ModeWrite, State: lockops.StateWaiting,
			Session: session, Ephemeral: session != 0, Client: client, Data: data,
			Ctime: time.UnixMilli(seq % (1 << 40)), Watches: strings.ToUpper(node), WatchKind: lockops.WatchExists}
		b := appendParticipantJSON(nil, &p, &ctimes{}, false, time.UnixMilli(1<<41))
		var got contracttest.Obj
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		if bad := contracttest.CheckParticipant("participant", got, false); len(bad) > 0 {
			t.Fatalf("%s: %s", b, strings.Join(bad, "; "))
		}
		if got.Str("node") != readBack(node) || got.Str("client") != readBack(client) || got.IsNull("client") != (client == "") {
			t.Fatalf("node/client read back as %q/%v from %q/%q", got.Str("node"), got["client"], node, client)
		}
	})
}

// readBack is s as a reader of its JSON gets it (invalid UTF-8 replaced).
func readBack(s string) string {
	var back string
	json.Unmarshal([]byte(encodingJSONString(s)), &back)
	return back
}

// FuzzCtimes: times formatted one after the other through one cache read
// as the layout writes each.
func FuzzCtimes(f *testing.F) {
	f.Add(int64(1_700_000_000_123), int64(1_700_000_000_999), int64(1_700_000_001_000))
	f.Add(int64(-1), int64(-1000), int64(-1001))
	f.Add(int64(-62135596800000), int64(0), int64(253402300799999))
	f.Fuzz(func(t *testing.T, a, b, c int64) {
		var times ctimes
		for _, ms := range []int64{a, b, a, c} {
			ms %= 1 << 50 // within the years time.Time formats
			tm := time.UnixMilli(ms)
			got := string(times.append(nil, tm))
			if want := tm.UTC().Format("2006-01-02T15:04:05.000Z"); got != want {
				t.Fatalf("ctime %d: got %s, want %s", ms, got, want)
			}
		}
	})
}

// FuzzPlainPrefix: the word-at-a-time scan stops where the byte-at-a-time
// one does.
func FuzzPlainPrefix(f *testing.F) {
	f.Add("/zkscope-bench/hold/00000000000000000000000000000001__lock__0000000001")
	f.Add("abcdefg\"")
	f.Add("abcdefgh\x1fijk")
	f.Add("0123456789abcdef\x80")
	f.Fuzz(func(t *testing.T, s string) {
		want := 0
		for want < len(s) && s[want] >= 0x20 && s[want] < 0x80 && s[want] != '"' && s[want] != '\\' {
			want++
		}
		if got := plainPrefix(s); got != want {
			t.Fatalf("plainPrefix(%q) = %d, want %d", s, got, want)
		}
	})
}

// readAt sets when qs were read (their nodes' age_ms count to it).
func readAt(qs []lockops.Queue, at time.Time) []lockops.Queue {
	for i := range qs {
		qs[i].ReadAt = at
	}
	return qs
}

// TestTableAgeAndHeld: the table's AGE is the node's age; HELD (with
// --watch, or where a holder's start is known) says how long a holder
// has held and how that is known, "unknown" where it is not.
func TestTableAgeAndHeld(t *testing.T) {
	now := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	q := lockops.Decode(dir("/l", kid(locktest.CuratorName(locktest.UUIDA, "lock-", "0000000001"), 0x11), kid(locktest.CuratorName(locktest.UUIDB, "lock-", "0000000002"), 0x22)), lockops.DecodeOptions{})
	q.Participants[0].Ctime, q.Participants[1].Ctime = now.Add(-83*time.Second), now.Add(-20*time.Second)
	var b bytes.Buffer
	if err := WriteTableWith(&b, []lockops.Queue{q}, now, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, " AGE ") || strings.Contains(s, "HELD") || strings.Contains(s, " FOR ") || !strings.Contains(s, "1m23s") {
		t.Errorf("one read: %s", s)
	}
	b.Reset()
	WriteTableWith(&b, []lockops.Queue{q}, now, TableOptions{Held: true})
	if s := b.String(); !strings.Contains(s, " HELD ") || !strings.Contains(s, "unknown") {
		t.Errorf("--watch, the holder there at the first read: %s", s)
	}
	q.Participants[0].HeldSince, q.Participants[0].HeldSource = now.Add(-14*time.Second), lockops.HeldSeen
	b.Reset()
	WriteTableWith(&b, []lockops.Queue{q}, now, TableOptions{})
	if s := b.String(); !strings.Contains(s, "1m23s") || !strings.Contains(s, "14s (seen)") {
		t.Errorf("a holder seen beginning: %s", s)
	}
}

// TestProblemJSONSeverity: a problem's JSON carries its severity.
func TestProblemJSONSeverity(t *testing.T) {
	b := AppendProblemJSON(nil, &lockops.Problem{Kind: lockops.ProblemOrphan, Detail: "x"}, "/l")
	if !strings.Contains(string(b), `"severity":"error"`) {
		t.Errorf("problem JSON without its severity: %s", b)
	}
}
