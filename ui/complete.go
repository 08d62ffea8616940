package ui

import (
	"context"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/redistree"
	"github.com/zkscope/zkscope/zkview"
)

// maxSuggestions bounds the completions offered at once (a directory may
// hold 100,000 children).
const maxSuggestions = 100

// commandVerbs are the `:` commands, completed first.
var commandVerbs = []string{"cd ", "ctx ", "locks", "sessions", "ensemble", "find ", "theme ", "help", "q"}

// completeTimeout bounds the listing `:cd` completion asks for.
const completeTimeout = 2 * time.Second

// completion is what `:cd` completion asked the server: the children of
// one directory the tree has not loaded, and the candidates tab listed.
type completion struct {
	dir        string   // names are dir's children (sorted)
	names      []string //
	asking     string   // the directory being listed ("" when none)
	candidates []string // listed under the prompt after an ambiguous tab
	err        string   // why the last listing failed
}

// commandSuggestions completes the `:` line: command names, `:cd` paths
// from the directories the tree has loaded (or the one completion asked
// for, see [Model.askCompletion]), `:ctx` context names and `:theme`
// names. ↑/↓ pick one to show; tab completes (see [Model.complete]).
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
		if m.redis != nil && !strings.HasPrefix(arg, "/") {
			return m.redisKeySuggestions(line) // a key: lock:orders:42
		}
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
	names, ok := m.childNames(dir)
	if !ok {
		return nil
	}
	var out []string
	for j := sort.SearchStrings(names, partial); j < len(names) && len(out) < maxSuggestions; j++ {
		if !strings.HasPrefix(names[j], partial) {
			break
		}
		out = append(out, prefix+zkview.Join(dir, names[j]))
	}
	return out
}

// childNames are dir's children as far as known: loaded by the tree, or
// listed for completion.
func (m *Model) childNames(dir string) ([]string, bool) {
	if d, open := m.tree.Dir(dir); open && d.Loaded {
		return d.Names, true
	}
	if m.compl.dir == dir && m.compl.names != nil {
		return m.compl.names, true
	}
	return nil, false
}

// cdDir is the directory a `:cd` line completes in ("" when it is none).
func cdDir(line string) string {
	verb, arg, ok := strings.Cut(line, " ")
	if !ok || verb != "cd" || !strings.HasPrefix(arg, "/") {
		return ""
	}
	dir := arg[:strings.LastIndexByte(arg, '/')]
	if dir == "" {
		dir = "/"
	}
	return dir
}

// askCompletion lists the directory a `:cd` line completes in when the
// tree has not loaded it: one listing per directory, with a request id
// and a short timeout; the answer completes the line as it is then.
func (m *Model) askCompletion(line string) tea.Cmd {
	if m.redis != nil && !strings.HasPrefix(strings.TrimPrefix(line, "cd "), "/") {
		return m.askRedisCompletion(line)
	}
	dir := cdDir(line)
	if dir == "" || m.client == nil || m.compl.asking == dir {
		return nil
	}
	if _, ok := m.childNames(dir); ok {
		return nil
	}
	m.compl.asking = dir
	id := m.nextID("complete")
	c := m.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
		defer cancel()
		names, _, err := c.ListChildren(ctx, dir)
		sort.Strings(names)
		return completionMsg{id: id, dir: dir, names: names, err: err}
	}
}

// onCompletion keeps a completion listing and completes the line again.
func (m *Model) onCompletion(msg completionMsg) {
	if !m.current("complete", msg.id) {
		return
	}
	m.compl.asking = ""
	if msg.err != nil {
		m.compl.err = "Could not list " + msg.dir + " to complete: " + msg.err.Error()
		return
	}
	if msg.names == nil {
		msg.names = []string{}
	}
	m.compl.dir, m.compl.names, m.compl.err = msg.dir, msg.names, ""
	if m.mode == modeCommand {
		m.input.SetSuggestions(m.commandSuggestions(m.input.Value()))
	}
}

// complete is tab on the `:` line: one candidate is taken; several
// complete their common prefix and are listed under the prompt.
func (m *Model) complete() tea.Cmd {
	m.compl.candidates = nil
	sugg := m.commandSuggestions(m.input.Value())
	switch {
	case len(sugg) == 1:
		m.input.SetValue(sugg[0])
	case len(sugg) > 1:
		if p := common.CommonPrefix(sugg); len(p) > len(m.input.Value()) {
			m.input.SetValue(p)
		}
		for _, s := range sugg {
			_, arg, _ := strings.Cut(s, " ")
			if cdDir(s) != "" {
				arg = arg[strings.LastIndexByte(arg, '/')+1:]
			} else if _, _, key := redistree.CdGroup(s); key && m.redis != nil {
				arg = redistree.Candidate(arg)
			}
			if arg == "" {
				arg = strings.TrimSpace(s)
			}
			m.compl.candidates = append(m.compl.candidates, arg)
		}
	}
	m.input.CursorEnd()
	m.input.SetSuggestions(m.commandSuggestions(m.input.Value()))
	return m.askCompletion(m.input.Value())
}
