package herd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/demo/herd"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// startHerd starts a herd of n contenders per lock below a fresh path of
// the package's shared server.
func startHerd(t *testing.T, n int) (*herd.Herd, []string, string) {
	t.Helper()
	servers := zktest.Shared(t).Addrs()
	root := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h, err := herd.Start(ctx, herd.Options{Servers: servers, Root: root, Contenders: n})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h, servers, root
}

// TestHerdTotals: for N contenders and N releases, the naive lock's
// notifications are N(N-1) (every waiter woken by every release) and the
// chain's N (one each), and the servers' watch lists agree with the
// contenders' own counters.
func TestHerdTotals(t *testing.T) {
	for _, n := range []int{5, 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			h, _, _ := startHerd(t, n)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rep, err := herd.Run(ctx, h, n)
			if err != nil {
				t.Fatal(err)
			}
			want := map[herd.Style]herd.Counts{
				// Each of the N-1 woken waiters re-reads the directory and
				// tries to create; the N-2 who lose set a new watch.
				herd.Naive: {Notifications: n * (n - 1), ServerNotifications: n * (n - 1), Requests: n * (3*n - 4), Reads: n * (2*n - 3)},
				// The one successor woken reads the directory and holds.
				herd.Chain: {Notifications: n, ServerNotifications: n, Requests: n, Reads: n},
			}
			for _, l := range rep.Locks {
				got := l.Total
				got.Handover = 0
				if got != want[l.Lock] {
					t.Errorf("%s lock, %d contenders, %d releases: got %+v, want %+v", l.Lock, n, n, got, want[l.Lock])
				}
				if len(l.Releases) != n {
					t.Errorf("%s lock: %d releases reported, want %d", l.Lock, len(l.Releases), n)
				}
				for _, r := range l.Releases {
					if r.Notifications != r.ServerNotifications {
						t.Errorf("%s release %d: contenders counted %d notifications, servers listed %d watchers", l.Lock, r.N, r.Notifications, r.ServerNotifications)
					}
					nodes := n - 1 // the chain: one watch on each node but the last waiter's
					if l.Lock == herd.Naive {
						nodes = 1 // every waiter on the one lock node
					}
					if r.WatchesBefore != n-1 || r.WatchedNodes != nodes {
						t.Errorf("%s release %d: the servers listed %d watches on %d nodes before it, want %d on %d", l.Lock, r.N, r.WatchesBefore, r.WatchedNodes, n-1, nodes)
					}
					if r.Holder == "" || r.HeldBy == r.ReleasedBy {
						t.Errorf("%s release %d: next holder %q (%s) after %q (%s)", l.Lock, r.N, r.Holder, r.HeldBy, r.Released, r.ReleasedBy)
					}
				}
			}
			var table, js bytes.Buffer
			if err := herd.WriteTable(&table, rep); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(table.String(), fmt.Sprintf("naive  %s", herd.Naive.Recipe())) || !strings.Contains(table.String(), "wchc") {
				t.Errorf("table:\n%s", table.String())
			}
			if err := herd.WriteJSON(&js, rep); err != nil {
				t.Fatal(err)
			}
			var back herd.Report
			if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Locks) != 2 || back.Locks[0].Total.Notifications != n*(n-1) {
				t.Errorf("JSON %v:\n%s", err, js.String())
			}
			t.Logf("\n%s", table.String())
		})
	}
}

// TestHerdDecoded: the normal scan, decoders and diagnosis read both
// locks: the naive one as a plain ephemeral lock flagged as a herd, the
// chain as a Curator mutex with one holder and no herd.
func TestHerdDecoded(t *testing.T) {
	const n = 5
	h, servers, root := startHerd(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := zkview.Connect(ctx, zkview.Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	queues, err := h.Queues(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := follow.Read(ctx, c, root, follow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]lockops.Queue{}
	for _, q := range snap.Queues {
		byPath[q.Path] = q
	}
	for _, s := range herd.Styles {
		if q := queues[s]; q.Path != h.Path(s) || q.Kind != byPath[h.Path(s)].Kind {
			t.Errorf("Queues: %s lock read as %s %s", s, q.Path, q.Kind)
		}
	}
	naive, ok := byPath[h.Path(herd.Naive)]
	if !ok || naive.Kind != lockops.KindEphemeralLock || len(naive.Holders()) != 1 || len(naive.Waiters()) != n-1 || !hasProblem(naive, lockops.ProblemHerd) {
		t.Errorf("naive lock %s read as %+v (all: %v)", h.Path(herd.Naive), naive, paths(snap.Queues))
	}
	chain, ok := byPath[h.Path(herd.Chain)]
	if !ok || chain.Kind != lockops.KindCuratorMutex || len(chain.Holders()) != 1 || len(chain.Waiters()) != n-1 || hasProblem(chain, lockops.ProblemHerd) {
		t.Errorf("chain lock %s read as %+v (all: %v)", h.Path(herd.Chain), chain, paths(snap.Queues))
	}
}

func hasProblem(q lockops.Queue, k lockops.ProblemKind) bool {
	for _, p := range q.Problems {
		if p.Kind == k {
			return true
		}
	}
	return false
}

func paths(qs []lockops.Queue) []string {
	var out []string
	for _, q := range qs {
		out = append(out, q.Path+" "+string(q.Kind))
	}
	return out
}

// TestHerdIgnoresOtherWatchers: a session watching the demo (zkscope's
// TUI or `locks --watch` from another terminal) is named apart, not
// counted as a contender nor taken for a disagreement.
func TestHerdIgnoresOtherWatchers(t *testing.T) {
	const n = 3
	h, servers, _ := startHerd(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := zkview.Connect(ctx, zkview.Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, _, err := c.Conn().ExistsW(h.Path(herd.Naive)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.Conn().ChildrenW(h.Path(herd.Chain)); err != nil {
		t.Fatal(err)
	}
	rs, err := h.Round(ctx)
	if err != nil {
		t.Fatal(err)
	}
	naive, chain := rs[0], rs[1]
	if naive.OtherWatchers != 1 || naive.Notifications != n-1 || naive.ServerNotifications != n-1 || naive.WatchesBefore != n-1 {
		t.Errorf("naive release with an observer: %+v", naive)
	}
	if chain.OtherWatchers != 0 || chain.Notifications != 1 || chain.ServerNotifications != 1 || chain.WatchesBefore != n-1 || chain.WatchedNodes != n-1 {
		t.Errorf("chain release with an observer of its directory: %+v", chain)
	}
}
