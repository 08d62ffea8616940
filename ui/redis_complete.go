package ui

// `:cd KEY` completion on Redis: the names of the group typed so far
// ("lock:or" completes in the group lock), from the tree's listing when
// it has one, else from a listing of that group asked for once (SCAN
// MATCH group:*, as opening it in the tree does).

import (
	"context"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
)

// completeListLimit bounds the keys a completion's listing looks at.
const completeListLimit = 200_000

// redisCdGroup is the group a `:cd KEY` line completes in on Redis: its
// tree directory and the key text before the last name ("lock:or" →
// "/lock", "lock:"); ok false when the line is no `:cd` of a key.
func redisCdGroup(line string) (dir, group string, ok bool) {
	verb, arg, ok := strings.Cut(line, " ")
	if !ok || verb != "cd" || strings.HasPrefix(arg, "/") {
		return "", "", false
	}
	i := strings.LastIndex(arg, common.RedisSeparator)
	if i < 0 {
		return "/", "", true
	}
	return common.RedisPathOf(arg[:i]), arg[:i+1], true
}

// redisKeySuggestions completes `:cd KEY` from the names of its group (a
// level's names are sorted, escaped as path elements: escaping keeps a
// prefix a prefix, so a binary search finds the range).
func (m *Model) redisKeySuggestions(line string) []string {
	dir, group, ok := redisCdGroup(line)
	if !ok {
		return nil
	}
	names, ok := m.childNames(dir)
	if !ok {
		return nil
	}
	_, arg, _ := strings.Cut(line, " ")
	partial := ""
	if p := arg[len(group):]; p != "" {
		partial = common.RedisName(p)
	}
	var out []string
	for j := sort.SearchStrings(names, partial); j < len(names) && len(out) < maxSuggestions; j++ {
		if !strings.HasPrefix(names[j], partial) {
			break
		}
		out = append(out, "cd "+group+common.UnRedisName(names[j]))
	}
	return out
}

// askRedisCompletion lists the group a `:cd KEY` line completes in when
// the tree has not listed it (one listing per group, request id, short
// timeout).
func (m *Model) askRedisCompletion(line string) tea.Cmd {
	dir, group, ok := redisCdGroup(line)
	if !ok || m.compl.asking == dir {
		return nil
	}
	if _, ok := m.childNames(dir); ok {
		return nil
	}
	m.compl.asking = dir
	id := m.nextID("complete")
	c := m.redis.c
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
		defer cancel()
		l, err := c.ListLevel(ctx, group, redisview.ListOptions{Limit: completeListLimit})
		names := make([]string, len(l.Children))
		for i, ch := range l.Children {
			names[i] = common.RedisName(ch.Name)
		}
		sort.Strings(names)
		return completionMsg{id: id, dir: dir, names: names, err: err}
	}
}

// redisCandidate is how a completion candidate is listed under the
// prompt on Redis: its last name.
func redisCandidate(s string) string {
	return s[strings.LastIndex(s, common.RedisSeparator)+1:]
}
