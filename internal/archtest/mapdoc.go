package archtest

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxOwnsCell is the longest an ARCHITECTURE.md table cell saying what a
// package owns may be.
const MaxOwnsCell = 200

var tableRow = regexp.MustCompile("^\\| (`[^|]+) \\| (.*) \\|$")
var codeSpan = regexp.MustCompile("`([^`]+)`")

// CheckMap checks ARCHITECTURE.md (md) against the module's packages
// (their paths relative to the module, "." for the root): every package is
// named in the first cell of a table row (as `path/` or, for the root,
// `main.go`), and no row's second cell is over MaxOwnsCell characters.
func CheckMap(md string, pkgs []string) []Violation {
	named := map[string]bool{}
	var out []Violation
	for _, line := range strings.Split(md, "\n") {
		m := tableRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, c := range codeSpan.FindAllStringSubmatch(m[1], -1) {
			p := strings.TrimSuffix(c[1], "/")
			if p == "main.go" {
				p = "."
			}
			named[p] = true
		}
		if n := len([]rune(m[2])); n > MaxOwnsCell {
			out = append(out, Violation{"map", fmt.Sprintf("the row of %s says %d characters (at most %d)", m[1], n, MaxOwnsCell)})
		}
	}
	for _, p := range pkgs {
		if !named[p] {
			out = append(out, Violation{"map", fmt.Sprintf("ARCHITECTURE.md names no package %s (a row of its own: what it owns)", p)})
		}
	}
	return out
}
