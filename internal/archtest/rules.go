// Package archtest holds zkscope's architecture rules as data and the
// check that reads the module's packages against them. Its test runs the
// check on the module (`go list`), and on a graph with each rule broken on
// purpose, to show every rule can fail. Nothing imports it; it imports
// nothing of zkscope.
package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Package is what the rules read of one package of the module: its import
// path relative to the module ("." for the root), its non-test files
// (absolute paths) and the module packages its non-test files import.
type Package struct {
	Path    string
	Files   []string
	Imports []string
}

// Limits are the size limits of the rules.
type Limits struct {
	RootFiles       int // non-test files of the root package
	PackageFiles    int // non-test files of any package
	PackageLines    int // lines of a package's non-test files
	FileLines       int // lines of a non-test file
	FunctionLines   int // lines of a function (or function literal), first to last
	TestOnlySuffix  string
	TestOnlyInNames []string
}

// DefaultLimits are zkscope's limits.
var DefaultLimits = Limits{RootFiles: 2, PackageFiles: 25, PackageLines: 5000, FileLines: 500, FunctionLines: 80,
	TestOnlySuffix: "test", TestOnlyInNames: []string{"internal/locktest", "internal/contracttest", "internal/clitest"}}

// A Violation is one broken rule.
type Violation struct {
	Rule, Detail string
}

func (v Violation) String() string { return v.Rule + ": " + v.Detail }

// Check applies every rule to pkgs; binaryDeps are the module packages the
// shipped binary links (`go list -deps .`), external ones included by
// their full path ("testing").
func Check(pkgs []Package, binaryDeps []string, l Limits) []Violation {
	var out []Violation
	out = append(out, checkSizes(pkgs, l)...)
	out = append(out, checkBinary(binaryDeps, l)...)
	for _, p := range pkgs {
		if IsTestOnly(p.Path, l) {
			continue // a test helper may import what its tests need
		}
		for _, imp := range p.Imports {
			if why := forbidden(p.Path, imp, l); why != "" {
				out = append(out, Violation{"layering", fmt.Sprintf("%s imports %s: %s", p.Path, imp, why)})
			}
		}
	}
	return out
}

// IsTestOnly reports whether the package at path is a test helper: only
// tests may import it and the binary must not link it.
func IsTestOnly(path string, l Limits) bool {
	base := path[strings.LastIndex(path, "/")+1:]
	return strings.HasSuffix(base, l.TestOnlySuffix) && base != "archtest" || slices.Contains(l.TestOnlyInNames, path)
}

func checkBinary(deps []string, l Limits) []Violation {
	var out []Violation
	for _, d := range deps {
		if d == "testing" || strings.HasPrefix(d, "testing/") || IsTestOnly(d, l) {
			out = append(out, Violation{"binary", "the shipped binary links " + d})
		}
	}
	return out
}

func checkSizes(pkgs []Package, l Limits) []Violation {
	var out []Violation
	for _, p := range pkgs {
		if IsTestOnly(p.Path, l) || p.Path == "internal/archtest" {
			continue // test helpers are held to the test files' standard
		}
		if p.Path == "." && len(p.Files) > l.RootFiles {
			out = append(out, Violation{"root", fmt.Sprintf("the root package has %d non-test files (at most %d): commands live in cmd/", len(p.Files), l.RootFiles)})
		}
		if len(p.Files) > l.PackageFiles {
			out = append(out, Violation{"size", fmt.Sprintf("%s has %d non-test files (at most %d)", p.Path, len(p.Files), l.PackageFiles)})
		}
		total := 0
		for _, f := range p.Files {
			n, long, err := fileShape(f, l.FunctionLines)
			if err != nil {
				out = append(out, Violation{"size", err.Error()})
				continue
			}
			total += n
			if n > l.FileLines {
				out = append(out, Violation{"size", fmt.Sprintf("%s has %d lines (at most %d)", rel(f), n, l.FileLines)})
			}
			for _, fn := range long {
				out = append(out, Violation{"size", fmt.Sprintf("%s: %s (at most %d lines)", rel(f), fn, l.FunctionLines)})
			}
		}
		if total > l.PackageLines {
			out = append(out, Violation{"size", fmt.Sprintf("%s has %d lines (at most %d)", p.Path, total, l.PackageLines)})
		}
	}
	return out
}

// fileShape is f's line count and its functions longer than max lines.
func fileShape(f string, max int) (int, []string, error) {
	src, err := os.ReadFile(f)
	if err != nil {
		return 0, nil, err
	}
	fs := token.NewFileSet()
	af, err := parser.ParseFile(fs, f, src, parser.SkipObjectResolution)
	if err != nil {
		return 0, nil, err
	}
	var long []string
	ast.Inspect(af, func(n ast.Node) bool {
		var body *ast.BlockStmt
		name := "a function literal"
		switch x := n.(type) {
		case *ast.FuncDecl:
			body, name = x.Body, x.Name.Name
		case *ast.FuncLit:
			body = x.Body
		}
		if body != nil {
			if lines := fs.Position(body.End()).Line - fs.Position(n.Pos()).Line + 1; lines > max {
				long = append(long, fmt.Sprintf("%s at line %d is %d lines", name, fs.Position(n.Pos()).Line, lines))
			}
		}
		return true
	})
	return strings.Count(string(src), "\n"), long, nil
}

func rel(f string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(filepath.Join(wd, "..", ".."), f); err == nil {
			return r
		}
	}
	return f
}
