package lockops

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/go-zookeeper/zk"
)

// TestSpliceEqualsDecode churns directories of every recipe Splice knows
// (arrivals mostly last, some in the middle, departures anywhere, data
// changes, now and then a node that forbids splicing: a tie, a stray,
// another library's node, an overflowed sequence) and checks after every
// change that the spliced queue is the queue Decode makes of the whole
// directory, field for field.
func TestSpliceEqualsDecode(t *testing.T) {
	names := map[Kind]func(i int64, r *rand.Rand) string{
		KindCuratorMutex: func(i int64, r *rand.Rand) string {
			return fmt.Sprintf("_c_%08x-%04x-4000-8000-%012x-lock-%010d", r.Uint32(), r.IntN(1<<16), r.Int64N(1<<40), i)
		},
		KindCuratorLeaderLatch: func(i int64, r *rand.Rand) string {
			return fmt.Sprintf("_c_%08x-%04x-4000-8000-%012x-latch-%010d", r.Uint32(), r.IntN(1<<16), r.Int64N(1<<40), i)
		},
		KindKazooLock: func(i int64, r *rand.Rand) string { return fmt.Sprintf("%032x__lock__%010d", r.Uint64(), i) },
		KindGoZK: func(i int64, r *rand.Rand) string {
			return fmt.Sprintf("_c_%016x%016x-lock-%010d", r.Uint64(), r.Uint64(), i)
		},
	}
	odd := []func(i int64, r *rand.Rand) string{
		func(int64, *rand.Rand) string { return "config" },
		func(i int64, r *rand.Rand) string { return fmt.Sprintf("%032x__rlock__%010d", r.Uint64(), i) },
		func(i int64, r *rand.Rand) string { return fmt.Sprintf("x-%d-%010d", 72057594037927936+i, i) },
		func(i int64, r *rand.Rand) string { return fmt.Sprintf("%032x__lock__-%09d", r.Uint64(), i) },
	}
	for kind, name := range names {
		t.Run(string(kind), func(t *testing.T) {
			spliced := 0
			for seed := range uint64(40) {
				spliced += churnSplice(t, kind, name, odd, seed)
			}
			t.Logf("%d of %d changes spliced (the others decoded whole)", spliced, 40*60)
			if spliced < 40*60/5 {
				t.Fatalf("only %d of %d changes spliced", spliced, 40*60)
			}
		})
	}
}

// churnSplice runs one seed's churn of a directory of kind; it returns
// how many changes were spliced.
func churnSplice(t *testing.T, kind Kind, name func(int64, *rand.Rand) string, odd []func(int64, *rand.Rand) string, seed uint64) int {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 24))
	const dir = "/splice/lock"
	kids := map[string]Child{}
	used := map[int64]bool{}
	next := int64(r.IntN(5))
	add := func(n string, seq int64) Child {
		used[seq] = true
		c := Child{Name: n, Owner: r.Int64N(4) + 1, Ctime: 1_700_000_000_000 + seq, Czxid: 1000 + seq, Data: []byte(fmt.Sprint(seq))}
		if r.IntN(3) == 0 {
			c.Path = JoinPath(dir, n)
		}
		kids[n] = c
		return c
	}
	for range r.IntN(12) {
		add(name(next, r), next)
		next += 1 + int64(r.IntN(3))
	}
	cversion := int32(next)
	decode := func() Queue {
		d := Dir{Path: dir, Stat: statOf(cversion)}
		for _, c := range kids {
			d.Children = append(d.Children, c)
		}
		r.Shuffle(len(d.Children), func(i, j int) { d.Children[i], d.Children[j] = d.Children[j], d.Children[i] })
		return Decode(d, DecodeOptions{})
	}
	sp := NewSplicer(decode(), DecodeOptions{})
	spliced := 0
	for step := range 60 {
		var gone []string
		var fresh []Child
		before := map[string]bool{}
		for n := range kids {
			before[n] = true
		}
		for range 1 + r.IntN(3) {
			switch k := r.IntN(40); {
			case k < 14 && len(kids) > 0: // a departure, any node
				n := anyName(kids, r)
				gone = append(gone, n)
				delete(kids, n)
			case k < 30: // an arrival, last
				fresh = append(fresh, add(name(next, r), next))
				next += 1 + int64(r.IntN(2))
			case k < 34 && next > 2: // an arrival in a gap (a tie now and then)
				if seq := r.Int64N(next); !used[seq] || r.IntN(4) == 0 {
					fresh = append(fresh, add(name(seq, r), seq))
				}
			case k < 38 && len(kids) > 0: // a data change
				n := anyName(kids, r)
				c := kids[n]
				c.Data, c.Version = append([]byte("x"), c.Data...), c.Version+1
				kids[n] = c
				gone, fresh = append(gone, n), append(fresh, c)
			default: // a node that forbids splicing (or a tie)
				fresh = append(fresh, add(odd[r.IntN(len(odd))](next, r), next))
			}
			cversion++
		}
		gone, fresh = departed(gone, before), dedupe(fresh, kids)
		want := decode()
		if sp != nil {
			got, ok := sp.Splice(Dir{Path: dir, Stat: statOf(cversion)}, gone, fresh)
			if ok {
				spliced++
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d step %d (gone %v, fresh %v):\nspliced %+v\ndecoded %+v", seed, step, gone, names(fresh), got, want)
				}
				seen := true
				for i := range got.Participants { // the servers' view, applied by the caller
					x := &got.Participants[i]
					x.Client, x.WatchObserved, x.ObservedWatches = "10.0.0.1:5000", &seen, []string{x.Node}
				}
				continue
			}
		}
		sp = NewSplicer(want, DecodeOptions{})
	}
	return spliced
}

// statOf is a directory's stat with cversion.
func statOf(cversion int32) (st zk.Stat) {
	st.Cversion = cversion
	return st
}

func anyName(kids map[string]Child, r *rand.Rand) string {
	i := r.IntN(len(kids))
	for n := range kids {
		if i == 0 {
			return n
		}
		i--
	}
	return ""
}

// departed keeps the names of gone that were there before the change.
func departed(gone []string, before map[string]bool) []string {
	var out []string
	for _, n := range gone {
		if before[n] {
			out = append(out, n)
		}
	}
	return out
}

// dedupe keeps the last of each name in fresh, and only those still there.
func dedupe(fresh []Child, kids map[string]Child) []Child {
	seen := map[string]bool{}
	var out []Child
	for i := len(fresh) - 1; i >= 0; i-- {
		c := fresh[i]
		if _, ok := kids[c.Name]; !ok || seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		out = append(out, kids[c.Name])
	}
	return out
}

func names(cs []Child) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}
