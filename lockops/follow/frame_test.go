package follow

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// TestSweepEqualsWholeJudgement: after each new answer of the servers, a
// Follow's sweep diagnoses again only the locks whose facts from the
// servers changed (viewSame); what it then shows equals diagnosing every
// lock again with the same samples. Plain values: Curator mutexes of
// ephemeral nodes (and one persistent), and answers of two members that
// list some of the sessions, clients and watches, changing a little or a
// lot from one answer to the next, with lost sessions and missing watches.
func TestSweepEqualsWholeJudgement(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		raw := sweepLocks(r, 60)
		w := sweepWatch(raw)
		t0 := time.Unix(1_800_000_000, 0)
		var facts sweepFacts
		for round := range 8 {
			at := t0.Add(time.Duration(round) * 3 * time.Second)
			facts.flip(r, raw, []int{0, 1, 3, 40}[r.IntN(4)])
			w.takeVerified(sweepAnswer(&facts, raw, at))
			if round == 3 { // the locks read again since: their reads are newer than the answers
				for p, q := range w.raw {
					q.ReadAt = at.Add(2 * time.Second)
					w.raw[p] = q
				}
			}
			for first := true; first || len(w.sweep) > 0; first = false {
				if _, _, whole := w.frame(); whole && round > 0 {
					t.Fatalf("seed %d round %d: a whole snapshot", seed, round)
				}
			}
			for p, q := range w.diag {
				if w.viewOf[p] != w.view {
					t.Fatalf("seed %d round %d: %s not looked at again", seed, round, q.Path)
				}
			}
			fresh := sweepWatch(w.raw)
			fresh.samples = w.samples
			fresh.ens = w.ens
			fresh.frame()
			if !reflect.DeepEqual(w.diag, fresh.diag) {
				for p, q := range fresh.diag {
					if !reflect.DeepEqual(w.diag[p], q) {
						t.Fatalf("seed %d round %d: %s swept:\n%+v\nwhole:\n%+v", seed, round, p, w.diag[p], q)
					}
				}
				t.Fatalf("seed %d round %d: the swept locks differ from a whole judgement", seed, round)
			}
		}
	}
}

// sweepWatch is a Follow's state over raw, before its first snapshot.
func sweepWatch(raw map[string]lockops.Queue) *lockWatch {
	w := &lockWatch{raw: map[string]lockops.Queue{},
		frameState: frameState{diag: map[string]lockops.Queue{}, dirty: map[string]bool{}, all: true, whole: true}}
	for p, q := range raw {
		w.raw[p] = q
	}
	return w
}

// sweepLocks are n Curator mutexes of 1 to 6 nodes, read a while ago.
func sweepLocks(r *rand.Rand, n int) map[string]lockops.Queue {
	out := map[string]lockops.Queue{}
	czxid := int64(100)
	for i := range n {
		dir := fmt.Sprintf("/locks/l%03d", i)
		var kids []lockops.Child
		for j := range 1 + r.IntN(6) {
			czxid++
			owner := 1000 + int64(r.IntN(40))
			if r.IntN(50) == 0 {
				owner = 0 // persistent
			}
			kids = append(kids, lockops.Child{Name: fmt.Sprintf("_c_%08x-0000-4000-8000-000000000000-lock-%010d", czxid, j),
				Owner: owner, Czxid: czxid, Ctime: 1_700_000_000_000})
		}
		q := lockops.Decode(lockops.Dir{Path: dir, Children: kids}, lockops.DecodeOptions{})
		q.ReadAt = time.Unix(1_799_999_990, 0)
		for k := range q.Participants {
			if p := &q.Participants[k]; p.State == lockops.StateWaiting {
				p.WaitSeen = q.ReadAt
			}
		}
		out[dir] = q
	}
	return out
}

// sweepFacts are what the servers' answers say, kept from one answer to
// the next: dead sessions, sessions with no connection, waits not
// watched, holders with a herd.
type sweepFacts struct {
	dead, unconnected, unwatched, herd map[string]bool
}

// flip changes n facts at random (a session's, "s<id>", or a node's).
func (f *sweepFacts) flip(r *rand.Rand, raw map[string]lockops.Queue, n int) {
	if f.dead == nil {
		f.dead, f.unconnected, f.unwatched, f.herd = map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	}
	var nodes []string
	for _, q := range raw {
		for _, p := range q.Participants {
			nodes = append(nodes, p.Node)
		}
	}
	for range n {
		s := fmt.Sprintf("s%d", 1000+r.IntN(40))
		node := nodes[r.IntN(len(nodes))]
		switch r.IntN(4) {
		case 0:
			f.dead[s] = !f.dead[s]
		case 1:
			f.unconnected[s] = !f.unconnected[s]
		case 2:
			f.unwatched[node] = !f.unwatched[node]
		default:
			f.herd[node] = !f.herd[node]
		}
	}
}

// sweepAnswer is two members' answer at at, as f says.
func sweepAnswer(f *sweepFacts, raw map[string]lockops.Queue, at time.Time) *zkview.Ensemble {
	e := &zkview.Ensemble{At: at, End: at.Add(100 * time.Millisecond)}
	for m := range 2 {
		e.Members = append(e.Members, zkview.Member{Addr: fmt.Sprintf("m%d", m), Clients: map[int64]string{}, Watches: map[string][]int64{},
			ConnsKnown: true, WatchesKnown: true, SessionsKnown: true, WatchZxid: 1 << 40})
	}
	for s := int64(1000); s < 1040; s++ {
		m, key := &e.Members[s%2], fmt.Sprintf("s%d", s)
		if !f.dead[key] {
			m.Sessions = append(m.Sessions, s)
			if !f.unconnected[key] {
				m.Clients[s] = fmt.Sprintf("10.0.0.%d:%d", s%7, 4000+s%3)
			}
		}
	}
	for _, q := range raw {
		for _, p := range q.Participants {
			if p.Watches != "" && !f.unwatched[p.Node] {
				m := &e.Members[p.Session%2]
				m.Watches[p.Watches] = append(m.Watches[p.Watches], p.Session)
			}
			if f.herd[p.Node] {
				for s := int64(1000); s < 1006; s++ {
					e.Members[0].Watches[p.Node] = append(e.Members[0].Watches[p.Node], s)
				}
			}
		}
	}
	return e
}
