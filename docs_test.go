package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The README is the front door and docs/ holds one page per topic: these
// tests keep the README short, every link between the pages pointing at a
// file and heading that exist, and the performance table readable.

// readmeMaxLines is how long the README may grow.
const readmeMaxLines = 300

// perfCellMax is the longest cell docs/performance.md's table may hold.
const perfCellMax = 200

// TestREADMEFrontDoor: the README stays a front door.
func TestREADMEFrontDoor(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail to a page of docs/", n, readmeMaxLines)
	}
}

// TestDocsLinks: every relative link of the README, ARCHITECTURE.md and
// docs/*.md names a file that exists and, with a #fragment, a heading of
// that file.
func TestDocsLinks(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	pages = append(pages, "README.md", "ARCHITECTURE.md")
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range markdownLinks(string(b)) {
			if err := checkLink(page, link); err != nil {
				t.Errorf("%s: link %q: %v", page, link, err)
			}
		}
	}
}

// TestPerformanceTable: docs/performance.md is one table of benchmarks
// whose cells stay short, each row dated.
func TestPerformanceTable(t *testing.T) {
	b, err := os.ReadFile("docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	var rows int
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := tableCells(line)
		if len(cells) != 6 {
			t.Errorf("a row of %d cells, want 6 (what, command, zkscope, peer, ratio, date): %s", len(cells), line)
			continue
		}
		for _, c := range cells {
			if n := utf8.RuneCountInString(c); n > perfCellMax {
				t.Errorf("a cell of %d characters (at most %d; notes go below the table): %s", n, perfCellMax, c)
			}
		}
		if rows++; rows > 2 && !date.MatchString(cells[5]) {
			t.Errorf("row %q: date %q is not YYYY-MM-DD", cells[0], cells[5])
		}
	}
	if rows < 3 {
		t.Errorf("docs/performance.md has no benchmark table")
	}
}

// tableCells splits a Markdown table row into its trimmed cells (an
// escaped \| stays inside its cell).
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

var (
	linkRE       = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpanRE   = regexp.MustCompile("`[^`]*`")
	headingRE    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	headingLinkR = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// markdownLinks returns the link targets of md outside fenced code blocks
// and code spans.
func markdownLinks(md string) []string {
	var links []string
	for _, line := range proseLines(md) {
		line = codeSpanRE.ReplaceAllString(line, "")
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			links = append(links, m[1])
		}
	}
	return links
}

// proseLines returns md's lines outside fenced code blocks.
func proseLines(md string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// checkLink checks a link of page: a web address is not checked; a
// relative one must name an existing file, and its fragment a heading.
func checkLink(page, link string) error {
	if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
		return nil
	}
	target, fragment, _ := strings.Cut(link, "#")
	file := page
	if target != "" {
		file = filepath.Join(filepath.Dir(page), target)
		if _, err := os.Stat(file); err != nil {
			return err
		}
	}
	if fragment == "" || !strings.HasSuffix(file, ".md") {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	for _, a := range headingAnchors(string(b)) {
		if a == fragment {
			return nil
		}
	}
	return fmt.Errorf("%s has no heading #%s", file, fragment)
}

// headingAnchors returns the anchors GitHub gives md's headings.
func headingAnchors(md string) []string {
	seen := map[string]int{}
	var out []string
	for _, line := range proseLines(md) {
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// slug is a heading's anchor as GitHub makes it: link text kept, lower
// case, spaces to hyphens, punctuation and symbols dropped.
func slug(heading string) string {
	heading = headingLinkR.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
