package take

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/lockops"
)

const (
	cA = "_c_11111111-1111-4111-8111-111111111111-"
	cB = "_c_22222222-2222-4222-8222-222222222222-"
	cC = "_c_33333333-3333-4333-8333-333333333333-"
	cD = "_c_44444444-4444-4444-8444-444444444444-"
	kA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	kB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	kC = "cccccccccccccccccccccccccccccccc"
	kD = "dddddddddddddddddddddddddddddddd"
)

// noOwners is ourPlace's owner lookup when no other node's owner matters.
func noOwners(string) (int64, error) { return 0, nil }

// TestPlaceRules: where Take stands in a queue, by each library's rule.
func TestPlaceRules(t *testing.T) {
	for _, tc := range []struct {
		name     string
		k        lockops.Kind
		children []string
		own      string
		wait     string // "" = holds
		position int
	}{
		{"curator mutex head holds", lockops.KindCuratorMutex,
			[]string{cB + "lock-0000000002", cA + "lock-0000000001"}, cA + "lock-0000000001", "", 0},
		{"curator mutex watches previous, not by full name", lockops.KindCuratorMutex,
			[]string{cA + "lock-0000000003", cB + "lock-0000000001", cC + "lock-0000000002"}, cA + "lock-0000000003", cC + "lock-0000000002", 2},
		{"curator mutex: negative (overflowed) sequence sorts first", lockops.KindCuratorMutex,
			[]string{cA + "lock-2147483647", cB + "lock--2147483648"}, cA + "lock-2147483647", cB + "lock--2147483648", 1},
		{"curator mutex: a stray child sorts by its whole name", lockops.KindCuratorMutex,
			[]string{"0-stray", cA + "lock-0000000000"}, cA + "lock-0000000000", "0-stray", 1},
		{"curator writer watches previous of any type", lockops.KindCuratorRW,
			[]string{cA + "__READ__0000000000", cB + "__READ__0000000001", cC + "__WRIT__0000000002"}, cC + "__WRIT__0000000002", cB + "__READ__0000000001", 2},
		{"curator readers share", lockops.KindCuratorRW,
			[]string{cA + "__READ__0000000000", cB + "__READ__0000000001"}, cB + "__READ__0000000001", "", 1},
		{"curator reader watches the FIRST writer", lockops.KindCuratorRW,
			[]string{cA + "__WRIT__0000000000", cB + "__WRIT__0000000001", cC + "__READ__0000000002"}, cC + "__READ__0000000002", cA + "__WRIT__0000000000", 2},
		{"curator reader ahead of a writer holds", lockops.KindCuratorRW,
			[]string{cA + "__READ__0000000000", cB + "__WRIT__0000000001"}, cA + "__READ__0000000000", "", 0},
		{"kazoo lock ignores readers", lockops.KindKazooLock,
			[]string{kA + "__rlock__0000000000", kB + "__lock__0000000001"}, kB + "__lock__0000000001", "", 0},
		{"kazoo writer watches the nearest lower node of either kind", lockops.KindKazooRW,
			[]string{kA + "__lock__0000000000", kB + "__rlock__0000000001", kC + "__lock__0000000002"}, kC + "__lock__0000000002", kB + "__rlock__0000000001", 2},
		{"kazoo reader watches the nearest lower writer", lockops.KindKazooRW,
			[]string{kA + "__lock__0000000000", kB + "__lock__0000000001", kC + "__rlock__0000000002", kD + "__lock__0000000003"}, kC + "__rlock__0000000002", kB + "__lock__0000000001", 2},
		{"kazoo ignores other formats", lockops.KindKazooLock,
			[]string{cA + "lock-0000000000", kB + "__lock__0000000001"}, kB + "__lock__0000000001", "", 0},
		{"go-zk numeric order", lockops.KindGoZK,
			[]string{"_c_" + kA + "-lock-0000000010", "_c_" + kB + "-lock-0000000009"}, "_c_" + kA + "-lock-0000000010", "_c_" + kB + "-lock-0000000009", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, found, err := ourPlace(tc.k, "/l", tc.children, tc.own, 7, noOwners)
			wait := ""
			if p.Watches != "" {
				wait = path.Base(p.Watches)
			}
			if err != nil || !found || wait != tc.wait || p.Position != tc.position || (wait == "") != (p.State == lockops.StateHolding) {
				t.Fatalf("place = %+v (found %v, %v), want wait %q at %d", p, found, err, tc.wait, tc.position)
			}
		})
	}
	if _, _, found, _ := ourPlace(lockops.KindCuratorMutex, "/l", []string{cA + "lock-0000000000"}, cB+"lock-0000000001", 7, noOwners); found {
		t.Fatal("a missing own node must not be found")
	}
}

// TestPlaceDowngrade: a Curator read node of the session that holds the
// write lock holds (a downgrade), as Decode says; its owner is read.
func TestPlaceDowngrade(t *testing.T) {
	kids := []string{cA + "__WRIT__0000000000", cB + "__READ__0000000001"}
	asked := ""
	p, _, _, err := ourPlace(lockops.KindCuratorRW, "/l", kids, kids[1], 7, func(n string) (int64, error) { asked = n; return 7, nil })
	if err != nil || p.State != lockops.StateHolding || asked != kids[0] {
		t.Fatalf("downgrade: %+v %v (asked %q)", p, err, asked)
	}
	p, _, _, _ = ourPlace(lockops.KindCuratorRW, "/l", kids, kids[1], 7, func(string) (int64, error) { return 8, nil })
	if p.State != lockops.StateWaiting || p.Watches != "/l/"+kids[0] {
		t.Fatalf("another session's writer: %+v", p)
	}
}

// neighbours is a look-around that returns n, or fails the test when the
// plan must not need it.
func neighbours(t *testing.T, n *neighbourhood) func() (neighbourhood, error) {
	return func() (neighbourhood, error) {
		if n == nil {
			t.Fatal("looked at the locks next to it without need")
		}
		return *n, nil
	}
}

func TestPlanTake(t *testing.T) {
	kazooNext := &neighbourhood{libs: []*lockops.Library{lockops.Kazoo}, dirs: 3}
	disagree := &neighbourhood{libs: []*lockops.Library{lockops.Curator, lockops.Kazoo}, dirs: 2}
	nothing := &neighbourhood{}
	for _, tc := range []struct {
		name     string
		o        Options
		children []string
		around   *neighbourhood
		def      string
		got      string // recipe, or "refused: <substring>"
		why      string // substring of Why
	}{
		{"empty, nothing tells: refused", Options{}, nil, nothing, "", "refused: pass --recipe curator, --recipe kazoo or --recipe go-zk", ""},
		{"empty, the locks next to it use kazoo", Options{}, nil, kazooNext, "", "kazoo.lock", "the 3 locks next to it use kazoo: taking in kazoo's format"},
		{"empty, neighbours disagree: the context's default", Options{}, nil, disagree, "kazoo", "kazoo.lock", "default_recipe"},
		{"empty, neighbours disagree, no default: refused", Options{}, nil, disagree, "", "refused: do not agree (Curator, kazoo)", ""},
		{"empty, bad default: refused", Options{}, nil, nothing, "etcd", "refused: unknown lock library", ""},
		{"empty, neighbours use ZooKeeper's recipe", Options{}, nil, &neighbourhood{libs: []*lockops.Library{lockops.ZooKeeper}, dirs: 1}, "", "refused: which zkscope does not take", ""},
		{"empty, --recipe decides without looking", Options{Library: lockops.Curator}, nil, nil, "", "curator.mutex", ""},
		{"empty, write", Options{Library: lockops.Curator, Mode: lockops.ModeWrite}, nil, nil, "", "curator.rwlock", ""},
		{"only strays: as empty", Options{}, []string{"config", "0-x"}, kazooNext, "", "kazoo.lock", "kazoo"},
		{"detects kazoo", Options{}, []string{kA + "__lock__0000000000"}, nil, "", "kazoo.lock", ""},
		{"kazoo readers there: exclusive is a WriteLock node", Options{}, []string{kA + "__rlock__0000000000"}, nil, "", "kazoo.lock", ""},
		{"detects go-zk", Options{}, []string{"_c_" + kA + "-lock-0000000000"}, nil, "", "go-zk.lock", ""},
		{"go-zk has no read mode", Options{Library: lockops.GoZK, Mode: lockops.ModeRead}, nil, nil, "", "refused: exclusive only", ""},
		{"exclusive on a Curator rwlock", Options{}, []string{cA + "__WRIT__0000000000"}, nil, "", "refused: --mode read or --mode write", ""},
		{"read on a Curator mutex", Options{Mode: lockops.ModeRead}, []string{cA + "lock-0000000000"}, nil, "", "refused: --mode exclusive", ""},
		{"read on kazoo __lock__ nodes: a WriteLock's, or a Lock's", Options{Mode: lockops.ModeRead}, []string{kA + "__lock__0000000000"}, nil, "", "kazoo.rwlock", "a kazoo Lock ignores readers"},
		{"write on a kazoo Lock", Options{Mode: lockops.ModeWrite}, []string{kA + "__lock__0000000000"}, nil, "", "kazoo.rwlock", ""},
		{"mixed libraries", Options{}, []string{cA + "lock-0000000000", kA + "__lock__0000000001"}, nil, "", "refused: pass --recipe to choose", ""},
		{"--recipe against the contenders there", Options{Library: lockops.Curator}, []string{kA + "__lock__0000000000"}, nil, "", "refused: pass --recipe kazoo, or --force-recipe", ""},
		{"--force-recipe", Options{Library: lockops.Curator, ForceRecipe: true}, []string{kA + "__lock__0000000000"}, nil, "", "curator.mutex", ""},
		{"--mode against the contenders there, forced", Options{Library: lockops.Curator, ForceRecipe: true}, []string{cA + "__WRIT__0000000000"}, nil, "", "curator.mutex", ""},
		{"ZooKeeper's own recipe", Options{}, []string{"x-72057594037927936-0000000000"}, nil, "", "refused: reads but does not take", ""},
		{"a Curator semaphore", Options{}, []string{"locks", "leases"}, nil, "", "refused: Curator semaphore", ""},
		{"a kazoo semaphore", Options{}, []string{kA}, &neighbourhood{semaphore: string(lockops.KindKazooSemaphore)}, "", "refused: kazoo.semaphore", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := planTake("/app/locks/x", tc.o, tc.children, neighbours(t, tc.around), tc.def)
			if sub, isRefusal := strings.CutPrefix(tc.got, "refused: "); isRefusal {
				var r *lockops.Refusal
				if !errors.As(err, &r) || !strings.Contains(err.Error(), sub) {
					t.Fatalf("got %+v / %v, want a refusal with %q", plan, err, sub)
				}
				if strings.Contains(r.Reason, "\n") {
					t.Fatalf("a refusal is one line: %q", r.Reason)
				}
				return
			}
			if err != nil || string(plan.Kind) != tc.got || !strings.Contains(plan.Why, tc.why) {
				t.Fatalf("got %+v / %v, want %s (why %q)", plan, err, tc.got, tc.why)
			}
		})
	}
}

// TestNewNameFormats: each name zkscope writes is read back as its own
// library and recipe.
func TestNewNameFormats(t *testing.T) {
	for _, l := range lockops.TakeLibraries() {
		for mode, kind := range l.Format.Kinds {
			name := l.Format.NewPrefix(l.Format.Marker(mode)) + "0000000042"
			if !NameFormats[l.Name+"/"+string(mode)].MatchString(name) {
				t.Errorf("%s/%s: %q does not match %s", l.Name, mode, name, NameFormats[l.Name+"/"+string(mode)])
			}
			if lib := lockops.LibraryOf(name); lib != l {
				t.Errorf("%s/%s: %q read as %v", l.Name, mode, name, lib)
			}
			cen := lockops.CensusOfNames([]string{name})
			if got := cen.KindOf(l); got != kind && !(l == lockops.Kazoo && mode == lockops.ModeWrite) {
				t.Errorf("%s/%s: %q decodes as %s, want %s", l.Name, mode, name, got, kind)
			}
		}
	}
}

// A generated lock directory for the property that Take waits exactly
// where Decode says it waits.
type genQueue struct {
	lib   *lockops.Library
	mode  lockops.Mode
	own   string
	kids  []lockops.Child
	names []string
}

const ourSession = 0x7001

// genSeq is a sequence text: small numbers (with ties), the edges of
// int32, and overflowed negatives (some of which kazoo cannot see).
func genSeq(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return fmt.Sprintf("-%09d", 1+r.IntN(999999999))
	case 1:
		return [...]string{"-2147483648", "2147483647", "-000000001", "-1000000000", "0000000000"}[r.IntN(5)]
	}
	return fmt.Sprintf("%010d", r.IntN(12))
}

func genHex(r *rand.Rand, n int) string {
	const hex = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = hex[r.IntN(16)]
	}
	return string(b)
}

func genUUID(r *rand.Rand) string {
	h := genHex(r, 32)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// genName is a child of any library, or a stray.
func genName(r *rand.Rand, lib *lockops.Library) string {
	switch lib {
	case lockops.Curator:
		return "_c_" + genUUID(r) + "-" + [...]string{lockops.CuratorLockMarker, lockops.CuratorReadMarker, lockops.CuratorWriteMarker, lockops.CuratorLockMarker, lockops.CuratorLatchMarker}[r.IntN(5)] + genSeq(r)
	case lockops.Kazoo:
		return genHex(r, 32) + [...]string{lockops.KazooLockMarker, lockops.KazooReadMarker}[r.IntN(2)] + genSeq(r)
	case lockops.GoZK:
		return "_c_" + genHex(r, 32) + "-lock-" + genSeq(r)
	case lockops.ZooKeeper:
		return fmt.Sprintf("x-%d-%s", r.Int64N(1<<40), genSeq(r))
	}
	return [...]string{"0-stray", "zzz", "-1", "lock-", "_c_x", "config", "lock-0000000003", "__lock__", "~"}[r.IntN(9)]
}

func genDir(r *rand.Rand) genQueue {
	libs := lockops.TakeLibraries()
	g := genQueue{lib: libs[r.IntN(len(libs))]}
	modes := make([]lockops.Mode, 0, 3)
	for _, m := range []lockops.Mode{lockops.ModeExclusive, lockops.ModeRead, lockops.ModeWrite} {
		if _, ok := g.lib.Format.Kinds[m]; ok {
			modes = append(modes, m)
		}
	}
	g.mode = modes[r.IntN(len(modes))]
	g.own = g.lib.Format.NewPrefix(g.lib.Format.Marker(g.mode)) + genSeq(r)
	sessions := []int64{0, 0x7002, 0x7003, ourSession}
	n := r.IntN(14)
	for i := 0; i <= n; i++ {
		name := g.own
		if i < n {
			lib := g.lib
			switch r.IntN(6) {
			case 0:
				lib = nil
			case 1:
				lib = lockops.Libraries[r.IntN(len(lockops.Libraries))]
			}
			name = genName(r, lib)
		}
		if i < n && (name == g.own || containsName(g.kids, name)) {
			continue
		}
		owner := sessions[r.IntN(len(sessions))]
		if name == g.own {
			owner = ourSession
		}
		g.kids = append(g.kids, lockops.Child{Name: name, Path: "/q/" + name, Owner: owner})
		g.names = append(g.names, name)
	}
	r.Shuffle(len(g.names), func(i, j int) { g.names[i], g.names[j] = g.names[j], g.names[i] })
	return g
}

func containsName(kids []lockops.Child, name string) bool {
	for _, k := range kids {
		if k.Name == name {
			return true
		}
	}
	return false
}

// checkTakeAgreesWithDecode: the node Take waits on, and whether it holds,
// are exactly what Decode reports for our node. It returns false when the
// directory is one Take joins only when forced (another recipe of our
// library is there), where Decode's view is not ours by design.
func checkTakeAgreesWithDecode(t *testing.T, g genQueue) bool {
	t.Helper()
	plan := Plan{Path: "/q", Library: g.lib, Mode: g.mode, Kind: g.lib.Format.Kinds[g.mode]}
	k := plan.takeKind(g.names)
	q := lockops.Decode(lockops.Dir{Path: "/q", Children: g.kids}, lockops.DecodeOptions{})
	view := &q
	for i := range q.Others {
		if q.Others[i].Kind.Library() == g.lib {
			view = &q.Others[i]
		}
	}
	if view.Kind != k {
		return false
	}
	owners := map[string]int64{}
	for _, c := range g.kids {
		owners[c.Name] = c.Owner
	}
	me, qlen, found, err := ourPlace(k, "/q", g.names, g.own, ourSession, func(n string) (int64, error) { return owners[n], nil })
	want := findParticipant(*view, g.own)
	if err != nil || !found || want < 0 {
		t.Fatalf("%s/%s in %q: found %v (Decode %d), %v", g.lib.Name, g.mode, g.names, found, want, err)
	}
	w := view.Participants[want]
	if me.State != w.State || me.Watches != w.Watches || me.WatchKind != w.WatchKind || me.Position != w.Position || qlen != len(view.Participants) {
		t.Fatalf("%s/%s as %s in %q:\nTake:   %s %q (%s) at %d of %d\nDecode: %s %q (%s) at %d of %d",
			g.lib.Name, g.mode, k, g.names, me.State, me.Watches, me.WatchKind, me.Position, qlen, w.State, w.Watches, w.WatchKind, w.Position, len(view.Participants))
	}
	if me.Watches == "/q/"+g.own {
		t.Fatalf("waits on itself in %q", g.names)
	}
	return true
}

// TestTakeAgreesWithDecode runs the property over generated queues of
// every library and mode zkscope takes: stray children, other libraries,
// negative and equal sequences, owners of several sessions.
func TestTakeAgreesWithDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	checked := 0
	for i := 0; i < 20000; i++ {
		if checkTakeAgreesWithDecode(t, genDir(r)) {
			checked++
		}
	}
	if checked < 15000 {
		t.Fatalf("only %d of 20000 generated queues were checked", checked)
	}
}

// FuzzTakeAgreesWithDecode is the same property over queues generated from
// the fuzzer's seeds.
func FuzzTakeAgreesWithDecode(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(0xdead), uint64(0xbeef))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		checkTakeAgreesWithDecode(t, genDir(rand.New(rand.NewPCG(a, b))))
	})
}

// FuzzPlanTake: any listing gives a plan or an error, never a panic, and a
// plan's node is read back as its library.
func FuzzPlanTake(f *testing.F) {
	f.Add(cA+"lock-0000000001", cB+"__WRIT__0000000000", kA+"__lock__-000000001")
	f.Add("_c_x", "lock-", "__")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, o := range []Options{{}, {Library: lockops.Kazoo, Mode: lockops.ModeRead}, {Library: lockops.GoZK, ForceRecipe: true}} {
			around := func() (neighbourhood, error) {
				return neighbourhood{libs: []*lockops.Library{lockops.Curator}, dirs: 1}, nil
			}
			plan, err := planTake("/l", o, []string{a, b, c}, around, "")
			if err != nil {
				continue
			}
			own := plan.Library.Format.NewPrefix(plan.Library.Format.Marker(plan.Mode)) + "0000000005"
			names := []string{a, b, c, own}
			p, _, found, err := ourPlace(plan.takeKind(names), "/l", names, own, 1, noOwners)
			if err != nil || !found {
				t.Fatalf("%+v: own node not found in %q", plan, names)
			}
			if p.Watches == "/l/"+own {
				t.Fatalf("%+v: waits on itself in %q", plan, names)
			}
		}
	})
}

// NameFormats are the node names zkscope writes, by library and mode
// (exported for the package's external tests).
var NameFormats = map[string]*regexp.Regexp{
	"curator/exclusive": regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-\d{10}$`),
	"curator/read":      regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-__READ__\d{10}$`),
	"curator/write":     regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-__WRIT__\d{10}$`),
	"kazoo/exclusive":   regexp.MustCompile(`^[0-9a-f]{32}__lock__\d{10}$`),
	"kazoo/read":        regexp.MustCompile(`^[0-9a-f]{32}__rlock__\d{10}$`),
	"kazoo/write":       regexp.MustCompile(`^[0-9a-f]{32}__lock__\d{10}$`),
	"go-zk/exclusive":   regexp.MustCompile(`^_c_[0-9a-f]{32}-lock-\d{10}$`),
}
