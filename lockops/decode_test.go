package lockops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
)

// kid is a child owned by session (0: persistent).
func kid(name string, session int64) Child {
	return Child{Name: name, Owner: session, Ctime: 1_700_000_000_000}
}

func dir(p string, kids ...Child) Dir { return Dir{Path: p, Children: kids} }

// want is one participant's expected place: name, state, watched name
// ("" for none) and watch kind.
type want struct {
	name, state, watches string
	kind                 WatchKind
}

func hold(name string) want { return want{name: name, state: "holding"} }
func wait(name, on string, kind WatchKind) want {
	return want{name: name, state: "waiting", watches: on, kind: kind}
}

func checkQueue(t *testing.T, q Queue, kind Kind, ws ...want) {
	t.Helper()
	if q.Kind != kind {
		t.Errorf("kind %s, want %s", q.Kind, kind)
	}
	var got []string
	for _, p := range q.Participants {
		w := ""
		if p.Watches != "" {
			w = " -> " + p.Watches[strings.LastIndexByte(p.Watches, '/')+1:] + " (" + string(p.WatchKind) + ")"
			if p.WatchKind == WatchChildren {
				w = " -> children of " + p.Watches
			}
		}
		got = append(got, fmt.Sprintf("%d %s %s%s", p.Position, p.Name, p.State, w))
	}
	var exp []string
	for i, x := range ws {
		w := ""
		if x.watches != "" {
			w = " -> " + x.watches + " (" + string(x.kind) + ")"
			if x.kind == WatchChildren {
				w = " -> children of " + x.watches
			}
		}
		exp = append(exp, fmt.Sprintf("%d %s %s%s", i, x.name, x.state, w))
	}
	if strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Errorf("queue:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(exp, "\n"))
	}
}

func problemKinds(q Queue) string {
	var ks []string
	for _, p := range q.Problems {
		ks = append(ks, string(p.Kind))
	}
	return strings.Join(ks, ",")
}

func TestDecodeCuratorMutex(t *testing.T) {
	a, b, c := locktest.CuratorName(locktest.UUIDA, "lock-", "0000000000"), locktest.CuratorName(locktest.UUIDB, "lock-", "0000000001"), locktest.CuratorName(locktest.UUIDC, "lock-", "0000000007")
	q := Decode(dir("/l", kid(b, 2), kid(c, 3), kid(a, 1)), DecodeOptions{})
	checkQueue(t, q, KindCuratorMutex, hold(a), wait(b, a, WatchData), wait(c, b, WatchData))
	if p := q.Participants[0]; p.Session != 1 || !p.Ephemeral || p.Seq != 0 || !p.HasSeq || p.Node != "/l/"+a || p.Mode != ModeExclusive {
		t.Errorf("holder fields: %+v", p)
	}
	if q.Problems != nil {
		t.Errorf("problems: %v", q.Problems)
	}
}

func TestDecodeCuratorStrayAndOverflow(t *testing.T) {
	// "000" sorts before every ten-digit sequence: Curator's holder is a
	// stray and the real first contender waits on it forever.
	a := locktest.CuratorName(locktest.UUIDA, "lock-", "0000000004")
	q := Decode(dir("/l", kid(a, 1), kid("000", 0), kid("zz-config", 0)), DecodeOptions{})
	checkQueue(t, q, KindCuratorMutex, hold("000"), wait(a, "000", WatchData), wait("zz-config", "", ""))
	if got := problemKinds(q); got != "stray-child" {
		t.Errorf("problems %q, want stray-child", got)
	}

	// After overflow: string order puts negatives first, reversed.
	p1, n1, n2 := locktest.CuratorName(locktest.UUIDA, "lock-", "2147483647"), locktest.CuratorName(locktest.UUIDB, "lock-", "-2147483648"), locktest.CuratorName(locktest.UUIDC, "lock-", "-000000001")
	q = Decode(dir("/l", kid(p1, 1), kid(n1, 2), kid(n2, 3)), DecodeOptions{})
	checkQueue(t, q, KindCuratorMutex, hold(n2), wait(n1, n2, WatchData), wait(p1, n1, WatchData))
	if q.Participants[0].Seq != -1 || q.Participants[1].Seq != -2147483648 {
		t.Errorf("negative sequences parsed as %d, %d", q.Participants[0].Seq, q.Participants[1].Seq)
	}
	if got := problemKinds(q); got != "sequence-overflow" {
		t.Errorf("problems %q", got)
	}
}

func TestDecodeCuratorRW(t *testing.T) {
	w0, r1, w2, r3 := locktest.CuratorName(locktest.UUIDA, "__WRIT__", "0000000000"), locktest.CuratorName(locktest.UUIDB, "__READ__", "0000000001"), locktest.CuratorName(locktest.UUIDC, "__WRIT__", "0000000002"), locktest.CuratorName(locktest.UUIDD, "__READ__", "0000000003")
	q := Decode(dir("/rw", kid(r3, 4), kid(w2, 3), kid(r1, 2), kid(w0, 1)), DecodeOptions{})
	// Writers watch the node before them of any kind; readers the FIRST writer.
	checkQueue(t, q, KindCuratorRW, hold(w0), wait(r1, w0, WatchData), wait(w2, r1, WatchData), wait(r3, w0, WatchData))

	r0, r1b, w2b, r3b := locktest.CuratorName(locktest.UUIDA, "__READ__", "0000000000"), locktest.CuratorName(locktest.UUIDB, "__READ__", "0000000001"), locktest.CuratorName(locktest.UUIDC, "__WRIT__", "0000000002"), locktest.CuratorName(locktest.UUIDD, "__READ__", "0000000003")
	q = Decode(dir("/rw", kid(r0, 1), kid(r1b, 2), kid(w2b, 3), kid(r3b, 4)), DecodeOptions{})
	checkQueue(t, q, KindCuratorRW, hold(r0), hold(r1b), wait(w2b, r1b, WatchData), wait(r3b, w2b, WatchData))
	if q.Participants[2].Mode != ModeWrite || q.Participants[0].Mode != ModeRead {
		t.Errorf("modes: %s %s", q.Participants[2].Mode, q.Participants[0].Mode)
	}
}

func TestDecodeCuratorDowngrade(t *testing.T) {
	// ≤5.4: the read node is a later sequential node of the writer's session.
	w, r, other := locktest.CuratorName(locktest.UUIDA, "__WRIT__", "0000000003"), locktest.CuratorName(locktest.UUIDB, "__READ__", "0000000004"), locktest.CuratorName(locktest.UUIDC, "__READ__", "0000000005")
	q := Decode(dir("/rw", kid(other, 9), kid(r, 7), kid(w, 7)), DecodeOptions{})
	checkQueue(t, q, KindCuratorRW, hold(w), hold(r), wait(other, w, WatchData))

	// 5.5+: a non-sequential read node with the writer's sequence (a tie),
	// whose UUID sorts before the writer's.
	w5, r5 := locktest.CuratorName(locktest.UUIDA, "__WRIT__", "0000000003"), locktest.CuratorName(locktest.UUIDB, "__READ__", "0000000003")
	q = Decode(dir("/rw", kid(r5, 7), kid(w5, 7), kid(other, 9)), DecodeOptions{})
	checkQueue(t, q, KindCuratorRW, hold(w5), hold(r5), wait(other, w5, WatchData))
	if q.Problems != nil {
		t.Errorf("a downgrade tie is not a problem: %v", q.Problems)
	}

	// The same tie by another session is one.
	q = Decode(dir("/rw", kid(r5, 8), kid(w5, 7)), DecodeOptions{})
	if got := problemKinds(q); got != "sequence-tie" {
		t.Errorf("problems %q, want sequence-tie", got)
	}
}

func TestDecodeCuratorSemaphoreV2(t *testing.T) {
	l0, l1, l2 := locktest.CuratorName(locktest.UUIDA, "lease-", "0000000000"), locktest.CuratorName(locktest.UUIDB, "lease-", "0000000001"), locktest.CuratorName(locktest.UUIDC, "lease-", "0000000002")
	k0, k1 := locktest.CuratorName(locktest.UUIDC, "lock-", "0000000004"), locktest.CuratorName(locktest.UUIDD, "lock-", "0000000005")
	locks := dir("/sem/locks", kid(k1, 4), kid(k0, 3))
	d := dir("/sem/leases", kid(l0, 1), kid(l1, 2), kid(l2, 3))
	d.Aux = &locks
	q := Decode(d, DecodeOptions{MaxLeases: 2})
	if q.Path != "/sem" || q.MaxLeases != 2 {
		t.Errorf("path %s max %d", q.Path, q.MaxLeases)
	}
	checkQueue(t, q, KindCuratorSemaphoreV2, hold(l0), hold(l1),
		wait(l2, "/sem/leases", WatchChildren), wait(k0, "/sem/leases", WatchChildren), wait(k1, k0, WatchData))

	q = Decode(d, DecodeOptions{})
	if q.MaxLeases != 2 || !strings.Contains(problemKinds(q), "max-leases-inferred") {
		t.Errorf("inferred max %d, problems %q", q.MaxLeases, problemKinds(q))
	}

	// Room for everyone: every lease holds, nobody waits.
	empty := dir("/sem/locks")
	d.Aux = &empty
	q = Decode(d, DecodeOptions{MaxLeases: 5})
	checkQueue(t, q, KindCuratorSemaphoreV2, hold(l0), hold(l1), hold(l2))
}

func TestDecodeCuratorLeaderLatch(t *testing.T) {
	a, b := locktest.CuratorName(locktest.UUIDA, "latch-", "0000000001"), locktest.CuratorName(locktest.UUIDB, "latch-", "0000000002")
	q := Decode(dir("/leader", kid(b, 2), kid(a, 1)), DecodeOptions{})
	checkQueue(t, q, KindCuratorLeaderLatch, hold(a), wait(b, a, WatchData))
	if q.Participants[0].Mode != ModeLatch {
		t.Errorf("mode %s", q.Participants[0].Mode)
	}
}

func TestDecodeKazoo(t *testing.T) {
	a, b, c := locktest.HexA+"__lock__0000000000", locktest.HexB+"__lock__0000000001", locktest.HexC+"__lock__0000000002"
	q := Decode(dir("/k", kid(c, 3), kid(a, 1), kid(b, 2), kid("unrelated", 0)), DecodeOptions{})
	checkQueue(t, q, KindKazooLock, hold(a), wait(b, a, WatchData), wait(c, b, WatchData))

	// Read/write: a reader waits on the NEAREST writer ahead (Curator: the
	// first); a writer on the nearest node of either kind.
	w0, w1, r2, r3, w4 := locktest.HexA+"__lock__0000000000", locktest.HexB+"__lock__0000000001", locktest.HexC+"__rlock__0000000002", locktest.HexD+"__rlock__0000000003", locktest.HexA[:31]+"5__lock__0000000004"
	q = Decode(dir("/k", kid(r3, 4), kid(w4, 5), kid(w0, 1), kid(w1, 2), kid(r2, 3)), DecodeOptions{})
	checkQueue(t, q, KindKazooRW, hold(w0), wait(w1, w0, WatchData), wait(r2, w1, WatchData), wait(r3, w1, WatchData), wait(w4, r3, WatchData))
	if got := problemKinds(q); got != "kazoo-rw-deadlock-risk,kazoo-rw-deadlock-risk" {
		t.Errorf("problems %q: waiting readers with a writer behind them deadlock kazoo < 2.9", got)
	}

	// Readers share.
	q = Decode(dir("/k", kid(r2, 3), kid(r3, 4)), DecodeOptions{})
	checkQueue(t, q, KindKazooRW, hold(r2), hold(r3))
}

func TestDecodeKazooInvisibleNegative(t *testing.T) {
	// kazoo's `-?\d{10}` misses "-000000001": the others ignore that node,
	// and it judges only by its own sequence: both think they hold.
	neg, pos := locktest.HexA+"__lock__-000000001", locktest.HexB+"__lock__0000000005"
	q := Decode(dir("/k", kid(pos, 2), kid(neg, 1)), DecodeOptions{})
	checkQueue(t, q, KindKazooLock, hold(neg), hold(pos))
	if got := problemKinds(q); got != "invisible-sequence,sequence-overflow" {
		t.Errorf("problems %q", got)
	}
}

func TestDecodeKazooSemaphore(t *testing.T) {
	sem := dir("/sem", kid(locktest.HexA, 1), kid(locktest.HexB, 2))
	sem.Data = []byte("2")
	q1, q2 := locktest.HexC+"__lock__0000000000", locktest.HexD+"__lock__0000000001"
	queue := dir("/sem-__lock__", kid(q2, 4), kid(q1, 3))
	sem.Aux = &queue
	q := Decode(sem, DecodeOptions{})
	if q.MaxLeases != 2 || q.Path != "/sem" {
		t.Errorf("max %d path %s", q.MaxLeases, q.Path)
	}
	checkQueue(t, q, KindKazooSemaphore, hold(locktest.HexB), hold(locktest.HexA), wait(q1, "/sem", WatchChildren), wait(q2, q1, WatchData))

	// A free lease: the queue's head is about to take it.
	sem.Children = sem.Children[:1]
	q = Decode(sem, DecodeOptions{})
	checkQueue(t, q, KindKazooSemaphore, hold(locktest.HexA), hold(q1), wait(q2, q1, WatchData))
}

func TestDecodeGoZK(t *testing.T) {
	a, b, c := "_c_"+locktest.HexA+"-lock-0000000000", "_c_"+locktest.HexB+"-lock-0000000001", "_c_"+locktest.HexC+"-lock-0000000003"
	q := Decode(dir("/g", kid(c, 3), kid(b, 2), kid(a, 1)), DecodeOptions{})
	checkQueue(t, q, KindGoZK, hold(a), wait(b, a, WatchData), wait(c, b, WatchData))

	q = Decode(dir("/g", kid(b, 2), kid(a, 1), kid("config", 0)), DecodeOptions{})
	if got := problemKinds(q); got != "stray-child" {
		t.Errorf("problems %q", got)
	}

	// A negative predecessor is never chosen.
	n := "_c_" + locktest.HexC + "-lock--000000001"
	q = Decode(dir("/g", kid(b, 2), kid(n, 3)), DecodeOptions{})
	checkQueue(t, q, KindGoZK, hold(n), wait(b, "", ""))
	if !strings.Contains(problemKinds(q), "no-predecessor") {
		t.Errorf("problems %q", problemKinds(q))
	}

	// Equal sequences (two parents' counters, a hand-made node): each of a
	// tie watches the nearest lower sequence, a later one the first of the
	// tie in name order.
	t1, t2, d := "_c_"+locktest.HexD+"-lock-0000000001", "_c_"+locktest.HexB+"-lock-0000000001", "_c_"+locktest.HexD+"-lock-0000000002"
	q = Decode(dir("/g", kid(d, 4), kid(t1, 2), kid(a, 1), kid(t2, 3)), DecodeOptions{})
	checkQueue(t, q, KindGoZK, hold(a), wait(t2, a, WatchData), wait(t1, a, WatchData), wait(d, t2, WatchData))
}

func TestDecodeZooKeeperRecipes(t *testing.T) {
	a, b, c := "x-72057594037927936-0000000002", "x-72057594037927937-0000000000", "x-72057594037927938-0000000001"
	q := Decode(dir("/z", kid(a, 1), kid(b, 2), kid(c, 3)), DecodeOptions{})
	checkQueue(t, q, KindZooKeeperLock, hold(b), wait(c, b, WatchExists), wait(a, c, WatchExists))

	h1, h2 := "x-0100000000000001-0000000001", "x-0100000000000002-0000000000"
	q = Decode(dir("/z", kid(h1, 1), kid(h2, 2)), DecodeOptions{})
	checkQueue(t, q, KindZooKeeperLock, hold(h2), wait(h1, h2, WatchExists))

	r0, w1, r2, r3, w4 := "read-0000000000", "write-0000000001", "g1-read-0000000002", "read-0000000003", "write-0000000004"
	q = Decode(dir("/d", kid(w4, 5), kid(r3, 4), kid(r2, 3), kid(w1, 2), kid(r0, 1)), DecodeOptions{})
	checkQueue(t, q, KindZooKeeperDocsRW, hold(r0), wait(w1, r0, WatchExists), wait(r2, w1, WatchExists), wait(r3, w1, WatchExists), wait(w4, r3, WatchExists))
}

func TestDecodeMixedAndUnknown(t *testing.T) {
	c1, c2 := locktest.CuratorName(locktest.UUIDA, "lock-", "0000000001"), locktest.CuratorName(locktest.UUIDB, "lock-", "0000000003")
	k := locktest.HexC + "__lock__0000000002"
	q := Decode(dir("/m", kid(c1, 1), kid(k, 2), kid(c2, 3)), DecodeOptions{})
	// Curator sorts the kazoo node by its whole name ('8' > '0'): last, a stray in its view.
	checkQueue(t, q, KindCuratorMutex, hold(c1), wait(c2, c1, WatchData), wait(k, "", ""))
	if len(q.Others) != 1 || q.Others[0].Kind != KindKazooLock || len(q.Others[0].Participants) != 1 || !strings.Contains(problemKinds(q), "mixed-libraries") {
		t.Errorf("others %+v problems %q", q.Others, problemKinds(q))
	}
	// kazoo alone sees only its node: it holds.
	checkQueue(t, q.Others[0], KindKazooLock, hold(k))

	q = Decode(dir("/u", kid("config", 0), kid("members", 0)), DecodeOptions{})
	if q.Kind != KindUnknown || len(q.Participants) != 0 || q.Problems != nil {
		t.Errorf("unknown: %+v", q)
	}
	if IsLockDir([]string{"config", "members"}) || !IsLockDir([]string{"config", k}) {
		t.Error("IsLockDir")
	}
}

func TestDecodeOverflowRiskAndTies(t *testing.T) {
	a, b := locktest.CuratorName(locktest.UUIDA, "lock-", "0000000001"), locktest.CuratorName(locktest.UUIDB, "lock-", "0000000001")
	d := dir("/l", kid(a, 1), kid(b, 2))
	d.Stat.Cversion = 2147483000
	q := Decode(d, DecodeOptions{})
	if got := problemKinds(q); got != "sequence-tie,sequence-overflow-risk" {
		t.Errorf("problems %q", got)
	}
}

func TestParseSeq(t *testing.T) {
	for s, want := range map[string]int64{"0000000000": 0, "0000000042": 42, "2147483647": 2147483647, "-2147483648": -2147483648, "-000000001": -1} {
		if got, ok := ParseSeq(s); !ok || got != want {
			t.Errorf("ParseSeq(%q) = %d, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "1", "000000000", "00000000000", "2147483648", "-0000000001x", "abcdefghij", "+000000001", "-00000001"} {
		if _, ok := ParseSeq(s); ok {
			t.Errorf("ParseSeq(%q) accepted", s)
		}
	}
}
