package redislock

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/contracttest"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/redisview"
)

var redisNow = time.UnixMilli(1_800_000_000_000)

func str(name, token string, ttl time.Duration) redisview.Key {
	return redisview.Key{Name: name, Type: "string", Value: []byte(token), TTL: ttl}
}

// brief is a queue in one line per participant: state node data ttl.
func brief(q lockops.Queue) []string {
	var out []string
	for _, p := range q.Participants {
		ttl := "-"
		if p.HasTTL {
			ttl = p.TTL.String()
		}
		out = append(out, strings.Join([]string{string(p.State), p.Node, string(p.Data), ttl}, " "))
	}
	return out
}

func kinds(ps []lockops.Problem) []lockops.ProblemKind {
	var out []lockops.ProblemKind
	for _, p := range ps {
		out = append(out, p.Kind)
	}
	return out
}

func TestDecodeRedisSingle(t *testing.T) {
	read := redisview.Read{Addr: "r1:6379", Keys: []redisview.Key{
		str("lock:a", "0123456789abcdef0123456789abcdef", 9*time.Second),
		str("lock:b", "forever", lockops.NoExpiry),
		{Name: "lock:c", Type: "hash", TTL: 30 * time.Second, Fields: map[string]string{"6f1c-uuid:57": "2"}},
		{Name: "lock:d", Type: "hash", TTL: time.Second, Fields: map[string]string{"not a lock": "x"}},
		{Name: "lock:e", Type: "list"},
	}}
	qs := Decode([]redisview.Read{read}, redisNow)
	if len(qs) != 3 {
		t.Fatalf("got %d queues, want 3 (a hash of other fields and a list are no locks): %+v", len(qs), qs)
	}
	want := []struct {
		kind     lockops.Kind
		brief    []string
		problems []lockops.ProblemKind
	}{
		{lockops.KindRedisSetNX, []string{"holding lock:a 0123456789abcdef0123456789abcdef 9s"}, nil},
		{lockops.KindRedisSetNX, []string{"holding lock:b forever -1ns"}, []lockops.ProblemKind{lockops.ProblemRedisNoExpiry}},
		{lockops.KindRedissonLock, []string{"holding lock:c 6f1c-uuid:57 30s"}, nil},
	}
	for i, w := range want {
		if qs[i].Kind != w.kind || !slices.Equal(brief(qs[i]), w.brief) || !slices.Equal(kinds(qs[i].Problems), w.problems) {
			t.Errorf("queue %d: %s %q %v, want %s %q %v", i, qs[i].Kind, brief(qs[i]), kinds(qs[i].Problems), w.kind, w.brief, w.problems)
		}
	}
	if qs[2].Participants[0].Holds != 2 {
		t.Errorf("re-entries %d, want 2", qs[2].Participants[0].Holds)
	}
}

// TestDecodeRedissonFair: the layout Redisson's fair lock scripts build
// (no Redisson client here): the hash, the queue in order, the deadlines.
func TestDecodeRedissonFair(t *testing.T) {
	k := redisview.Key{Name: "orders", Type: "hash", TTL: 25 * time.Second,
		Fields: map[string]string{"u0:1": "1"},
		Queue:  []string{"u1:7", "u2:9", "u3:4"},
		Deadlines: map[string]int64{
			"u1:7": redisNow.Add(-2 * time.Second).UnixMilli(), // passed, still queued
			"u2:9": redisNow.Add(5 * time.Minute).UnixMilli(),
			"u3:4": redisNow.Add(10 * time.Minute).UnixMilli(),
		}}
	qs := Decode([]redisview.Read{{Addr: "r:1", Keys: []redisview.Key{k}}}, redisNow)
	if len(qs) != 1 || qs[0].Kind != lockops.KindRedissonFairLock {
		t.Fatalf("got %+v", qs)
	}
	want := []string{
		"holding orders u0:1 25s",
		"waiting redisson_lock_queue:{orders} u1:7 -2s",
		"waiting redisson_lock_queue:{orders} u2:9 5m0s",
		"waiting redisson_lock_queue:{orders} u3:4 10m0s",
	}
	if got := brief(qs[0]); !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	for i, p := range qs[0].Participants {
		if p.Position != i {
			t.Errorf("participant %d at position %d", i, p.Position)
		}
	}
	if got := kinds(qs[0].Problems); !slices.Equal(got, []lockops.ProblemKind{lockops.ProblemFairWaiterExpired}) {
		t.Errorf("problems %v", got)
	}
}

func TestDecodeRedlock(t *testing.T) {
	masters := func(keys ...*redisview.Key) []redisview.Read {
		out := make([]redisview.Read, len(keys))
		for i, k := range keys {
			out[i] = redisview.Read{Addr: "m" + string(rune('1'+i)) + ":6379"}
			if k != nil {
				out[i].Keys = []redisview.Key{*k}
			}
		}
		return out
	}
	k := func(token string, ttl time.Duration) *redisview.Key { x := str("res", token, ttl); return &x }
	cases := []struct {
		name     string
		reads    []redisview.Read
		brief    []string
		problems []lockops.ProblemKind
		validity time.Duration // -1: none
		minority string        // what redlock-minority says
	}{
		{"all three", masters(k("T", 8*time.Second), k("T", 7*time.Second), k("T", 8*time.Second)),
			[]string{"holding res@m1:6379 T 8s", "holding res@m2:6379 T 7s", "holding res@m3:6379 T 8s"},
			nil, 7*time.Second - 82*time.Millisecond, ""},
		{"majority, one master without", masters(k("T", 10*time.Second), nil, k("T", 10*time.Second)),
			[]string{"holding res@m1:6379 T 10s", "holding res@m3:6379 T 10s"}, nil, 10*time.Second - 102*time.Millisecond, ""},
		{"minority", masters(k("T", time.Second), nil, nil),
			[]string{"waiting res@m1:6379 T 1s"}, []lockops.ProblemKind{lockops.ProblemRedlockMinority}, -1, "on 1 of 3 masters, below the quorum of 2"},
		{"split, one majority", masters(k("A", 5*time.Second), k("B", 5*time.Second), k("A", 5*time.Second)),
			[]string{"holding res@m1:6379 A 5s", "holding res@m3:6379 A 5s", "waiting res@m2:6379 B 5s"},
			[]lockops.ProblemKind{lockops.ProblemRedlockSplit}, 5*time.Second - 52*time.Millisecond, ""},
		{"split, no majority", masters(k("A", 5*time.Second), k("B", 5*time.Second), k("C", 5*time.Second)),
			[]string{"waiting res@m1:6379 A 5s", "waiting res@m2:6379 B 5s", "waiting res@m3:6379 C 5s"},
			[]lockops.ProblemKind{lockops.ProblemRedlockMinority, lockops.ProblemRedlockSplit}, -1, "3 tokens, none on a quorum of 2 masters (the most: 1 of 3)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			qs := Decode(c.reads, redisNow)
			if len(qs) != 1 || qs[0].Kind != lockops.KindRedlock || qs[0].Path != "res" {
				t.Fatalf("got %+v", qs)
			}
			q := qs[0]
			if got := brief(q); !slices.Equal(got, c.brief) {
				t.Errorf("got %q, want %q", got, c.brief)
			}
			if got := kinds(q.Problems); !slices.Equal(got, c.problems) {
				t.Errorf("problems %v, want %v", got, c.problems)
			}
			for _, p := range q.Problems {
				if p.Kind == lockops.ProblemRedlockMinority && !strings.Contains(p.Detail, c.minority) {
					t.Errorf("minority says %q, want %q", p.Detail, c.minority)
				}
			}
			if got := q.Validity; (c.validity < 0) == q.HasValidity || (q.HasValidity && got != c.validity) {
				t.Errorf("validity %v (%v), want %v", got, q.HasValidity, c.validity)
			}
		})
	}
}

func TestRedlockUnreachableMaster(t *testing.T) {
	reads := []redisview.Read{
		{Addr: "m1:1", Keys: []redisview.Key{str("res", "T", 4*time.Second)}},
		{Addr: "m2:1", Err: errTest},
		{Addr: "m3:1", Keys: []redisview.Key{str("res", "T", 4*time.Second)}},
	}
	q := Decode(reads, redisNow)[0]
	if len(q.Holders()) != 2 || !q.HasValidity {
		t.Errorf("a majority of two of three masters should hold: %q", brief(q))
	}
	if got := kinds(q.Problems); !slices.Equal(got, []lockops.ProblemKind{lockops.ProblemRedisUnreachable}) {
		t.Errorf("problems %v", got)
	}
}

type testErr string

func (e testErr) Error() string { return string(e) }

const errTest = testErr("connection refused")

func TestDiagnoseRedis(t *testing.T) {
	var keys []redisview.Key
	for _, n := range []string{"a", "b", "c", "d"} {
		keys = append(keys, str("lock:"+n, "t", 10*time.Second))
	}
	keys = append(keys, str("lock:long", "t", 24*time.Hour), str("lock:soon", "t", 300*time.Millisecond))
	qs := Decode([]redisview.Read{{Addr: "r:1", Keys: keys}}, redisNow)
	Diagnose(qs, DiagnoseOptions{})
	got := map[string][]lockops.ProblemKind{}
	for _, q := range qs {
		if len(q.Problems) > 0 {
			got[q.Path] = kinds(q.Problems)
		}
	}
	if len(got) != 2 || !slices.Equal(got["lock:long"], []lockops.ProblemKind{lockops.ProblemRedisTTLOutlier}) ||
		!slices.Equal(got["lock:soon"], []lockops.ProblemKind{lockops.ProblemRedisExpiring}) {
		t.Errorf("problems %v", got)
	}
}

// TestRedisJSONContract: Redis queues follow the locks --json contract,
// with session and ctime null (Redis has neither), ttl_ms (null when the
// key never expires), holds and validity_ms.
func TestRedisJSONContract(t *testing.T) {
	reads := []redisview.Read{
		{Addr: "m1:1", Keys: []redisview.Key{str("res", "T", 4*time.Second), str("forever", "x", lockops.NoExpiry),
			{Name: "h", Type: "hash", TTL: time.Second, Fields: map[string]string{"u:1": "3"}, Queue: []string{"w:2"}}}},
		{Addr: "m2:1", Keys: []redisview.Key{str("res", "T", 4*time.Second)}},
		{Addr: "m3:1"},
	}
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, []string{"m1:1", "m2:1", "m3:1"}, Decode(reads, redisNow)); err != nil {
		t.Fatal(err)
	}
	doc, err := contracttest.DecodeReport(buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	contracttest.Check(t, doc)
	if strings.Contains(buf.String(), `"0x0"`) || strings.Contains(buf.String(), "0001-01-01") {
		t.Errorf("a Redis participant has a session or a creation time:\n%s", buf.Bytes())
	}
	for _, want := range []string{`"validity_ms":3958`, `"ttl_ms":4000`, `"ttl_ms":null`, `"holds":3`, `"recipe":"redisson.fairlock"`, `"node":"res@m2:1"`,
		`"session":null,"ephemeral":false`, `"ctime":null`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %s:\n%s", want, buf.Bytes())
		}
	}
}

// FuzzDecodeRedis: any keys decode without panicking, with positions in
// order and a report that keeps the contract.
func FuzzDecodeRedis(f *testing.F) {
	f.Add("lock:a", "string", []byte("tok"), int64(5000), "u:1", "2", "w:1", int64(0), 1)
	f.Add("res", "string", []byte("T"), int64(-1), "", "", "", int64(0), 3)
	f.Add("h", "hash", []byte(nil), int64(100), "uuid:99", "1", "x:1", int64(-3000), 2)
	f.Fuzz(func(t *testing.T, name, typ string, value []byte, ttl int64, field, count, waiter string, deadline int64, masters int) {
		masters = 1 + (masters&7)%5
		k := redisview.Key{Name: name, Type: typ, Value: value, TTL: time.Duration(ttl) * time.Millisecond}
		if ttl < 0 {
			k.TTL = lockops.NoExpiry
		}
		if field != "" {
			k.Fields = map[string]string{field: count}
		}
		if waiter != "" {
			k.Queue = []string{waiter}
			k.Deadlines = map[string]int64{waiter: redisNow.UnixMilli() + deadline}
		}
		reads := make([]redisview.Read, masters)
		for i := range reads {
			reads[i] = redisview.Read{Addr: "m" + string(rune('0'+i)) + ":1"}
			if i%2 == 0 {
				reads[i].Keys = []redisview.Key{k}
			}
		}
		qs := Decode(reads, redisNow)
		Diagnose(qs, DiagnoseOptions{})
		for _, q := range qs {
			if !q.Kind.IsRedis() {
				t.Fatalf("kind %q", q.Kind)
			}
			for i, p := range q.Participants {
				if p.Position != i && q.Kind != lockops.KindRedissonLock && q.Kind != lockops.KindRedisSetNX {
					t.Fatalf("participant %d at %d", i, p.Position)
				}
			}
		}
		var buf bytes.Buffer
		if err := report.WriteJSON(&buf, nil, qs); err != nil {
			t.Fatal(err)
		}
		doc, err := contracttest.DecodeReport(buf.Bytes())
		if err != nil {
			t.Fatalf("%v\n%s", err, buf.Bytes())
		}
		contracttest.Check(t, doc)
	})
}

// TestNoExpiryIsTheReads: a participant's TTL of a key that never expires
// is the TTL the reads give it.
func TestNoExpiryIsTheReads(t *testing.T) {
	if lockops.NoExpiry != redisview.NoExpiry {
		t.Fatalf("NoExpiry %v, the reads' %v", lockops.NoExpiry, redisview.NoExpiry)
	}
}
