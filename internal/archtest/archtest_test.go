package archtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchitecture checks the module against the rules: layering, test
// helpers out of the binary, sizes. ARCHITECTURE.md says the same in words.
func TestArchitecture(t *testing.T) {
	mod, pkgs := modulePackages(t)
	deps := binaryDeps(t, mod)
	if len(pkgs) < 10 || len(deps) < 10 {
		t.Fatalf("read %d packages and %d dependencies: go list said too little", len(pkgs), len(deps))
	}
	for _, v := range Check(pkgs, deps, DefaultLimits) {
		t.Error(v)
	}
}

// TestArchitectureMap: ARCHITECTURE.md names every package, each in a row
// of at most MaxOwnsCell characters.
func TestArchitectureMap(t *testing.T) {
	_, pkgs := modulePackages(t)
	md, err := os.ReadFile(filepath.Join(moduleRoot(t), "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range pkgs {
		paths = append(paths, p.Path)
	}
	for _, v := range CheckMap(string(md), paths) {
		t.Error(v)
	}
}

// TestMapCatchesViolations: a package the map does not name and a row too
// long are reported.
func TestMapCatchesViolations(t *testing.T) {
	md := "| `main.go` | The root. |\n| `zkview/` | " + strings.Repeat("x", MaxOwnsCell+1) + " |\n"
	got := CheckMap(md, []string{".", "zkview", "redisview"})
	var text []string
	for _, v := range got {
		text = append(text, v.String())
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"names no package redisview", "the row of `zkview/` says 201 characters"} {
		if !strings.Contains(all, want) {
			t.Errorf("want %q in:\n%s", want, all)
		}
	}
	if len(got) != 2 {
		t.Errorf("%d violations, want 2:\n%s", len(got), all)
	}
}

// TestRulesCatchViolations breaks each rule once on purpose, on a made-up
// module, and expects each to be reported.
func TestRulesCatchViolations(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.go")
	body := "package x\n\nfunc long() {\n" + strings.Repeat("\t_ = 1\n", 90) + "}\n"
	if err := os.WriteFile(long, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.go")
	if err := os.WriteFile(big, []byte("package x\n"+strings.Repeat("// line\n", 600)), 0o644); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.go")
	if err := os.WriteFile(small, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	many := make([]string, 26)
	for i := range many {
		many[i] = small
	}
	cases := []struct {
		name string
		pkgs []Package
		deps []string
		want string
	}{
		{"root files", []Package{{Path: ".", Files: []string{small, small, small}}}, nil, "root: the root package has 3"},
		{"package files", []Package{{Path: "ui/tree", Files: many}}, nil, "size: ui/tree has 26 non-test files"},
		{"file lines", []Package{{Path: "zkview", Files: []string{big}}}, nil, "has 601 lines"},
		{"function lines", []Package{{Path: "zkview", Files: []string{long}}}, nil, "long at line 3 is 92 lines"},
		{"testing linked", nil, []string{"testing"}, "binary: the shipped binary links testing"},
		{"test server linked", nil, []string{"zkview/zktest"}, "binary: the shipped binary links zkview/zktest"},
		{"recipe model imports", []Package{{Path: "lockops", Imports: []string{"zkview"}}}, nil, "lockops imports zkview: lockops imports nothing"},
		{"data layer imports locks", []Package{{Path: "zkview", Imports: []string{"lockops/scan"}}}, nil, "zkview is a data layer"},
		{"data layer imports config", []Package{{Path: "redisview", Imports: []string{"config"}}}, nil, "redisview is a data layer"},
		{"protocol package imports a client", []Package{{Path: "zkview/wire", Imports: []string{"zkview"}}}, nil, "zkview/wire imports only zkview/jute"},
		{"tree cache imports ui", []Package{{Path: "zkview/treecache", Imports: []string{"zkview", "ui/common"}}}, nil, "zkview/treecache imports only zkview"},
		{"tree cache imports locks", []Package{{Path: "zkview/treecache", Imports: []string{"lockops/scan"}}}, nil, "zkview/treecache imports only zkview"},
		{"codec imports", []Package{{Path: "zkview/jute", Imports: []string{"peer"}}}, nil, "zkview/jute imports nothing"},
		{"data layers mix", []Package{{Path: "redisview", Imports: []string{"zkview"}}}, nil, "data layers do not import each other"},
		{"lock packages upward", []Package{{Path: "lockops/scan", Imports: []string{"lockops/report"}}}, nil, "not one of the lock packages' imports"},
		{"lock package imports ui", []Package{{Path: "lockops/take", Imports: []string{"ui/common"}}}, nil, "lock packages import no ui"},
		{"exporter imports ui", []Package{{Path: "exporter", Imports: []string{"ui/common"}}}, nil, "exporter imports no ui"},
		{"data layer imports exporter", []Package{{Path: "zkview", Imports: []string{"exporter"}}}, nil, "zkview is a data layer"},
		{"ui/common imports ui", []Package{{Path: "ui/common", Imports: []string{"ui/tree"}}}, nil, "ui/common imports no other ui package"},
		{"components mix", []Package{{Path: "ui/tree", Imports: []string{"ui/detail"}}}, nil, "ui components do not import each other"},
		{"ui outside commands", []Package{{Path: "demo", Imports: []string{"ui"}}}, nil, "only the commands import ui"},
		{"demo imports config", []Package{{Path: "demo/herd", Imports: []string{"config"}}}, nil, "the demo packages import only"},
		{"herd imports the demo", []Package{{Path: "demo/herd", Imports: []string{"demo"}}}, nil, "demo/herd imports nothing of demo"},
		{"commands mix", []Package{{Path: "cmd/lock", Imports: []string{"cmd/locks"}}}, nil, "commands do not import each other"},
		{"command tree imported", []Package{{Path: "ui", Imports: []string{"cmd/cmdutil"}}}, nil, "ui imports no command"},
		{"test helper imported", []Package{{Path: "lockops/take", Imports: []string{"lockops/internal/locktest"}}}, nil, "a test helper, for tests only"},
	}
	for _, c := range cases {
		got := Check(c.pkgs, c.deps, DefaultLimits)
		var lines []string
		for _, v := range got {
			lines = append(lines, v.String())
		}
		if !strings.Contains(strings.Join(lines, "\n"), c.want) {
			t.Errorf("%s: want a violation saying %q, got %q", c.name, c.want, lines)
		}
	}
	// And a module that keeps every rule passes.
	good := []Package{{Path: ".", Files: []string{small}, Imports: []string{"cmd/root"}},
		{Path: "cmd/root", Imports: []string{"cmd/lock", "cmd/cmdutil", "ui"}},
		{Path: "cmd/lock", Imports: []string{"cmd/cmdutil", "lockops/take", "zkview"}},
		{Path: "lockops/take", Imports: []string{"lockops", "lockops/scan", "lockops/audit", "zkview"}},
		{Path: "ui/lockpane", Imports: []string{"ui/common", "ui/dialog", "lockops/diagnose"}},
		{Path: "ui", Imports: []string{"ui/tree", "zkview", "zkview/treecache"}},
		{Path: "ui/redistree", Imports: []string{"ui/common", "redisview", "zkview/treecache"}},
		{Path: "zkview/treecache", Imports: []string{"zkview"}}}
	if v := Check(good, []string{"fmt", "zkview"}, DefaultLimits); len(v) != 0 {
		t.Errorf("a module keeping the rules: %v", v)
	}
}

type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	Module     *struct{ Path string }
}

// modulePackages lists the module's packages with `go list -json ./...`.
func modulePackages(t *testing.T) (string, []Package) {
	t.Helper()
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var mod string
	var pkgs []Package
	for dec.More() {
		var l listed
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		if mod == "" && l.Module != nil {
			mod = l.Module.Path
		}
		p := Package{Path: relPath(mod, l.ImportPath)}
		for _, f := range append(l.GoFiles, l.CgoFiles...) {
			p.Files = append(p.Files, filepath.Join(l.Dir, f))
		}
		for _, imp := range l.Imports {
			if imp == mod || strings.HasPrefix(imp, mod+"/") {
				p.Imports = append(p.Imports, relPath(mod, imp))
			}
		}
		pkgs = append(pkgs, p)
	}
	return mod, pkgs
}

// binaryDeps is what the rules read of `go list -deps .`: the module's
// packages the binary links, relative to it, and "testing" if linked.
func binaryDeps(t *testing.T, mod string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Dir = moduleRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var deps []string
	for _, d := range strings.Fields(string(out)) {
		if d == mod || strings.HasPrefix(d, mod+"/") || d == "testing" {
			deps = append(deps, relPath(mod, d))
		}
	}
	return deps
}

func relPath(mod, p string) string {
	switch {
	case p == mod:
		return "."
	case strings.HasPrefix(p, mod+"/"):
		return p[len(mod)+1:]
	}
	return p
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
