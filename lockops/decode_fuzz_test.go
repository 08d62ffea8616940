package lockops

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
)

func FuzzParseSeq(f *testing.F) {
	for _, s := range []string{"0000000000", "-000000001", "-2147483648", "2147483647", "2147483648", "", "-", "00000000a0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseSeq(s)
		if !ok {
			return
		}
		if back := fmt.Sprintf("%010d", v); back != s {
			t.Fatalf("ParseSeq(%q) = %d, which the server writes as %q", s, v, back)
		}
	})
}

// FuzzDecode: any children (names one per line, owners from the bytes)
// decode without panicking, in every recipe, into a well-formed queue.
func FuzzDecode(f *testing.F) {
	f.Add("_c_ffffffff-0000-4000-8000-000000000001-lock-0000000001\n000\nconfig", []byte{1, 2, 0}, int32(5))
	f.Add(locktest.HexA+"__lock__-000000001\n"+locktest.HexB+"__rlock__0000000002\n"+locktest.HexC+"__lock__2147483647", []byte{1, 1, 2}, int32(2147483640))
	f.Add("_c_"+locktest.HexA+"-lock--000000001\n_c_"+locktest.HexB+"-lock-0000000002\nx-1-0000000003\nread-0000000004\nwrite-0000000005", []byte{3}, int32(0))
	f.Add(locktest.CuratorName(locktest.UUIDA, "__WRIT__", "0000000003")+"\n"+locktest.CuratorName(locktest.UUIDB, "__READ__", "0000000003")+"\n"+locktest.CuratorName(locktest.UUIDC, "lease-", "0000000001"), []byte{7, 7, 9}, int32(9))
	f.Fuzz(func(t *testing.T, names string, owners []byte, cversion int32) {
		var kids []Child
		seen := map[string]bool{} // a directory's names are unique
		for i, n := range strings.Split(names, "\n") {
			if n == "" || strings.Contains(n, "/") || seen[n] {
				continue
			}
			seen[n] = true
			var owner int64
			if len(owners) > 0 {
				owner = int64(owners[i%len(owners)])
			}
			kids = append(kids, Child{Name: n, Owner: owner})
		}
		d := Dir{Path: "/f", Stat: zk.Stat{Cversion: cversion}, Children: kids}
		aux := Dir{Path: "/f-__lock__", Children: kids}
		for _, k := range []Kind{"", KindCuratorMutex, KindCuratorRW, KindCuratorLeaderLatch, KindCuratorSemaphoreV2,
			KindKazooLock, KindKazooRW, KindKazooSemaphore, KindGoZK, KindZooKeeperLock, KindZooKeeperDocsRW, KindUnknown} {
			dd := d
			if k == KindCuratorSemaphoreV2 || k == KindKazooSemaphore {
				dd.Aux = &aux
			}
			checkWellFormed(t, Decode(dd, DecodeOptions{Kind: k, MaxLeases: int(cversion & 3)}))
		}
	})
}

// checkWellFormed: positions 0..n-1, every state known, holders without a
// watch, data and exists watches point at a participant of the queue and
// children watches at a directory.
func checkWellFormed(t *testing.T, q Queue) {
	t.Helper()
	nodes := map[string]bool{}
	for _, p := range q.Participants {
		nodes[p.Node] = true
	}
	for i, p := range q.Participants {
		if p.Position != i {
			t.Fatalf("%s: position %d at index %d", q.Kind, p.Position, i)
		}
		switch p.State {
		case StateHolding:
			if p.Watches != "" {
				t.Fatalf("%s: holder %s watches %s", q.Kind, p.Name, p.Watches)
			}
		case StateWaiting:
		default:
			t.Fatalf("%s: state %q", q.Kind, p.State)
		}
		switch p.WatchKind {
		case WatchData, WatchExists:
			if !nodes[p.Watches] || p.Watches == p.Node {
				t.Fatalf("%s: %s watches %q, not another participant", q.Kind, p.Name, p.Watches)
			}
		case WatchChildren:
			if nodes[p.Watches] || !path.IsAbs(p.Watches) {
				t.Fatalf("%s: children watch on %q", q.Kind, p.Watches)
			}
		case WatchNone:
			if p.Watches != "" {
				t.Fatalf("%s: watch target without kind", q.Kind)
			}
		}
	}
	for _, o := range q.Others {
		checkWellFormed(t, o)
	}
}

// FuzzKeyOrder: keyOrder sorts exactly as comparing the strings does,
// whether its keys take the numeric path or not. Keys are the input's
// lines; names are made unique; ranks come from the bytes.
func FuzzKeyOrder(f *testing.F) {
	f.Add("0000000002\n0000000001\n0000000001\n0000000010", []byte{1, 0})
	f.Add("0000000002\n-000000001\n0000000001", []byte{})
	f.Add("12\n9\n10\n0099", []byte{0, 1, 1})
	f.Add("18446744073709551615\n18446744073709551614", []byte{})
	f.Add("9999999999999999999\n0000000000000000000\n", []byte{1})
	f.Add("999999999999\n000000000001\n999999999999", []byte{2, 1})
	f.Fuzz(func(t *testing.T, lines string, ranks []byte) {
		keys := strings.Split(lines, "\n")
		names := make([]string, len(keys))
		var rank []uint8
		if len(ranks) > 0 {
			rank = make([]uint8, len(keys))
		}
		for i := range keys {
			names[i] = fmt.Sprintf("n%05d", (i*7919)%len(keys)+i*len(keys))
			if rank != nil {
				rank[i] = ranks[i%len(ranks)] % 3
			}
		}
		got := keyOrder(keys, rank, func(i int) string { return names[i] })
		want := make([]int32, len(keys))
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortFunc(want, func(a, b int32) int {
			c := strings.Compare(keys[a], keys[b])
			if c == 0 && rank != nil {
				c = cmp.Compare(rank[a], rank[b])
			}
			return cmp.Or(c, strings.Compare(names[a], names[b]))
		})
		if !slices.Equal(got, want) {
			t.Fatalf("keyOrder(%q) = %v, string order %v", keys, got, want)
		}
	})
}
