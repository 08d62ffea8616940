package lockops

import (
	"strings"
	"syscall"
	"testing"
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

func TestSlotRules(t *testing.T) {
	for _, tc := range []struct {
		name     string
		r        takeRecipe
		children []string
		own      string
		wait     string // "" = holds
		position int
	}{
		{"curator mutex head holds", takeRecipe{RecipeCurator, ModeExclusive},
			[]string{cB + "lock-0000000002", cA + "lock-0000000001"}, cA + "lock-0000000001", "", 0},
		{"curator mutex watches previous, not by full name", takeRecipe{RecipeCurator, ModeExclusive},
			[]string{cA + "lock-0000000003", cB + "lock-0000000001", cC + "lock-0000000002"}, cA + "lock-0000000003", cC + "lock-0000000002", 2},
		{"curator mutex: negative (overflowed) sequence sorts first", takeRecipe{RecipeCurator, ModeExclusive},
			[]string{cA + "lock-2147483647", cB + "lock--2147483648"}, cA + "lock-2147483647", cB + "lock--2147483648", 1},
		{"curator mutex: a stray child sorts by its whole name", takeRecipe{RecipeCurator, ModeExclusive},
			[]string{"0-stray", cA + "lock-0000000000"}, cA + "lock-0000000000", "0-stray", 1},
		{"curator writer watches previous of any type", takeRecipe{RecipeCurator, ModeWrite},
			[]string{cA + "__READ__0000000000", cB + "__READ__0000000001", cC + "__WRIT__0000000002"}, cC + "__WRIT__0000000002", cB + "__READ__0000000001", 2},
		{"curator readers share", takeRecipe{RecipeCurator, ModeRead},
			[]string{cA + "__READ__0000000000", cB + "__READ__0000000001"}, cB + "__READ__0000000001", "", 1},
		{"curator reader watches the FIRST writer", takeRecipe{RecipeCurator, ModeRead},
			[]string{cA + "__WRIT__0000000000", cB + "__WRIT__0000000001", cC + "__READ__0000000002"}, cC + "__READ__0000000002", cA + "__WRIT__0000000000", 2},
		{"curator reader ahead of a writer holds", takeRecipe{RecipeCurator, ModeRead},
			[]string{cA + "__READ__0000000000", cB + "__WRIT__0000000001"}, cA + "__READ__0000000000", "", 0},
		{"kazoo lock ignores readers", takeRecipe{RecipeKazoo, ModeExclusive},
			[]string{kA + "__rlock__0000000000", kB + "__lock__0000000001"}, kB + "__lock__0000000001", "", 1},
		{"kazoo writer watches the nearest lower node of either kind", takeRecipe{RecipeKazoo, ModeWrite},
			[]string{kA + "__lock__0000000000", kB + "__rlock__0000000001", kC + "__lock__0000000002"}, kC + "__lock__0000000002", kB + "__rlock__0000000001", 2},
		{"kazoo reader watches the nearest lower writer", takeRecipe{RecipeKazoo, ModeRead},
			[]string{kA + "__lock__0000000000", kB + "__lock__0000000001", kC + "__rlock__0000000002", kD + "__lock__0000000003"}, kC + "__rlock__0000000002", kB + "__lock__0000000001", 2},
		{"kazoo ignores other formats", takeRecipe{RecipeKazoo, ModeExclusive},
			[]string{cA + "lock-0000000000", kB + "__lock__0000000001"}, kB + "__lock__0000000001", "", 0},
		{"go-zk numeric order", takeRecipe{RecipeGoZK, ModeExclusive},
			[]string{"_c_" + kA + "-lock-0000000010", "_c_" + kB + "-lock-0000000009"}, "_c_" + kA + "-lock-0000000010", "_c_" + kB + "-lock-0000000009", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.r.slot(tc.children, tc.own)
			if !s.found || s.wait != tc.wait || s.position != tc.position {
				t.Fatalf("slot = %+v, want wait %q at %d", s, tc.wait, tc.position)
			}
		})
	}
	if s := (takeRecipe{RecipeCurator, ModeExclusive}).slot([]string{cA + "lock-0000000000"}, cB+"lock-0000000001"); s.found {
		t.Fatal("a missing own node must not be found")
	}
}

func TestResolveRecipe(t *testing.T) {
	for _, tc := range []struct {
		name     string
		want     Recipe
		mode     Mode
		children []string
		got      string // locks-json name, or "error: <substring>"
	}{
		{"new path defaults to Curator", RecipeAuto, ModeExclusive, nil, "curator.mutex"},
		{"new path read/write", RecipeAuto, ModeWrite, nil, "curator.rwlock"},
		{"detects kazoo", RecipeAuto, ModeExclusive, []string{kA + "__lock__0000000000"}, "kazoo.lock"},
		{"kazoo readers present make exclusive a write lock", RecipeAuto, ModeExclusive, []string{kA + "__rlock__0000000000"}, "kazoo.rwlock"},
		{"detects go-zk", RecipeAuto, ModeExclusive, []string{"_c_" + kA + "-lock-0000000000"}, "go-zk.lock"},
		{"go-zk has no read mode", RecipeGoZK, ModeRead, nil, "error: exclusive only"},
		{"exclusive on a Curator rwlock", RecipeAuto, ModeExclusive, []string{cA + "__WRIT__0000000000"}, "error: --mode read or --mode write"},
		{"read on a Curator mutex", RecipeAuto, ModeRead, []string{cA + "lock-0000000000"}, "error: --mode exclusive"},
		{"mixed libraries", RecipeAuto, ModeExclusive, []string{cA + "lock-0000000000", kA + "__lock__0000000001"}, "error: mixes"},
		{"explicit recipe beats detection", RecipeKazoo, ModeExclusive, []string{cA + "lock-0000000000"}, "kazoo.lock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := resolveRecipe(tc.want, tc.mode, tc.children)
			if sub, isErr := strings.CutPrefix(tc.got, "error: "); isErr {
				if err == nil || !strings.Contains(err.Error(), sub) {
					t.Fatalf("got %v / %v, want an error with %q", r, err, sub)
				}
				return
			}
			if err != nil || r.String() != tc.got {
				t.Fatalf("got %v / %v, want %s", r, err, tc.got)
			}
		})
	}
}

func TestNewNamePrefixFormats(t *testing.T) {
	for key, r := range map[string]takeRecipe{
		"curator/exclusive": {RecipeCurator, ModeExclusive}, "curator/read": {RecipeCurator, ModeRead},
		"curator/write": {RecipeCurator, ModeWrite}, "kazoo/exclusive": {RecipeKazoo, ModeExclusive},
		"kazoo/read": {RecipeKazoo, ModeRead}, "go-zk/exclusive": {RecipeGoZK, ModeExclusive},
	} {
		name := r.newNamePrefix() + "0000000042"
		if !nameFormats[key].MatchString(name) {
			t.Errorf("%s: %q does not match %s", key, name, nameFormats[key])
		}
		if d, _, ok, _ := detectRecipe([]string{name}); !ok || d != r.recipe {
			t.Errorf("%s: %q detected as %q", key, name, d)
		}
	}
}

func TestParseFlags(t *testing.T) {
	if r, err := ParseRecipe(""); err != nil || r != RecipeAuto {
		t.Fatal(r, err)
	}
	if _, err := ParseRecipe("zookeeper"); err == nil {
		t.Fatal("unknown recipe accepted")
	}
	if m, err := ParseMode("WRITE"); err != nil || m != ModeWrite {
		t.Fatal(m, err)
	}
	for in, want := range map[string]syscall.Signal{"TERM": syscall.SIGTERM, "sigkill": syscall.SIGKILL, "INT": syscall.SIGINT, "9": syscall.SIGKILL} {
		if got, err := ParseSignal(in); err != nil || got != want {
			t.Errorf("ParseSignal(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseSignal("NOPE"); err == nil {
		t.Fatal("unknown signal accepted")
	}
	if got := (&EvictPreview{Node: "/l/" + cA + "lock-0000000042"}).SequenceSuffix(); got != "0000000042" {
		t.Fatalf("sequence suffix %q", got)
	}
	if got := (&EvictPreview{Node: "/l/" + kA + "__lock__-000000001"}).SequenceSuffix(); got != "-000000001" {
		t.Fatalf("negative sequence suffix %q", got)
	}
}

// FuzzSlot: for any directory listing, every recipe's rule finds our node,
// never waits on itself, and only waits on a sibling that exists.
func FuzzSlot(f *testing.F) {
	f.Add(cA+"lock-0000000001", cB+"__WRIT__0000000000", kA+"__lock__-000000001")
	f.Add("_c_x", "lock-", "__")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, r := range []takeRecipe{
			{RecipeCurator, ModeExclusive}, {RecipeCurator, ModeRead}, {RecipeCurator, ModeWrite},
			{RecipeKazoo, ModeExclusive}, {RecipeKazoo, ModeRead}, {RecipeKazoo, ModeWrite}, {RecipeGoZK, ModeExclusive},
		} {
			own := r.newNamePrefix() + "0000000005"
			kids := []string{a, b, c, own}
			s := r.slot(kids, own)
			if !s.found {
				t.Fatalf("%v: own node not found in %q", r, kids)
			}
			if s.wait == own {
				t.Fatalf("%v: waits on itself in %q", r, kids)
			}
			if s.wait != "" && s.wait != a && s.wait != b && s.wait != c {
				t.Fatalf("%v: waits on %q, not a sibling", r, s.wait)
			}
		}
		resolveRecipe(RecipeAuto, ModeExclusive, []string{a, b, c})
	})
}
