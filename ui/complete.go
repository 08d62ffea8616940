package ui

import (
	"sort"
	"strings"

	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/zkview"
)

// maxSuggestions bounds the completions offered at once (a directory may
// hold 100,000 children).
const maxSuggestions = 100

// commandVerbs are the `:` commands, completed first.
var commandVerbs = []string{"cd ", "ctx ", "locks", "find ", "theme ", "help", "q"}

// commandSuggestions completes the `:` line from what is already known,
// without asking the server: command names, `:cd` paths from the
// directories the tree has loaded, `:ctx` context names and `:theme`
// names. tab accepts the one shown, ↑/↓ pick another.
func (m *Model) commandSuggestions(line string) []string {
	verb, arg, hasArg := strings.Cut(line, " ")
	if !hasArg {
		var out []string
		for _, v := range commandVerbs {
			if strings.HasPrefix(v, verb) {
				out = append(out, v)
			}
		}
		return out
	}
	var names []string
	switch verb {
	case "cd":
		return m.pathSuggestions(verb+" ", arg)
	case "ctx", "context":
		names = m.opts.Contexts
	case "theme":
		names = themes.Names()
	default:
		return nil
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, arg) {
			out = append(out, verb+" "+n)
		}
	}
	return out
}

// pathSuggestions completes an absolute path from the loaded children of
// its directory (sorted names: a binary search finds the prefix's range).
func (m *Model) pathSuggestions(prefix, arg string) []string {
	if !strings.HasPrefix(arg, "/") {
		return nil
	}
	i := strings.LastIndexByte(arg, '/')
	dir, partial := arg[:i], arg[i+1:]
	if dir == "" {
		dir = "/"
	}
	d, open := m.tree.Dir(dir)
	if !open || !d.Loaded {
		return nil
	}
	var out []string
	for j := sort.SearchStrings(d.Names, partial); j < len(d.Names) && len(out) < maxSuggestions; j++ {
		if !strings.HasPrefix(d.Names[j], partial) {
			break
		}
		out = append(out, prefix+zkview.Join(dir, d.Names[j]))
	}
	return out
}
