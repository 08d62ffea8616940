package redistree

// Key names: `f` (find) on Redis, and `:cd KEY` completion from the names
// of the group typed so far ("lock:or" completes in the group lock).
// Redis values are never searched: reading every value is what find must
// not do to a production server.

import (
	"context"
	"sort"
	"strings"

	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
)

// completeListLimit bounds the keys a completion's listing looks at.
const completeListLimit = 200_000

// Find lists, as tree paths, the key names below root's group that
// contain query in any case (SCAN MATCH prefix*text*, never KEYS, on
// every server), at most limit; progress gets the count found so far.
func Find(ctx context.Context, c *redisview.Client, root, query string, limit int, progress func(int)) (paths []string, truncated bool, err error) {
	prefix := common.RedisKeyOf(root)
	if prefix != "" {
		prefix += redisview.Separator
	}
	names, truncated, err := c.FindKeys(ctx, prefix, query, redisview.FindOptions{Limit: limit, Progress: progress})
	for _, n := range names {
		paths = append(paths, common.RedisPathOf(n))
	}
	return paths, truncated, err
}

// CdGroup is the group a `:cd KEY` line completes in on Redis: its
// tree directory and the key text before the last name ("lock:or" →
// "/lock", "lock:"); ok false when the line is no `:cd` of a key.
func CdGroup(line string) (dir, group string, ok bool) {
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

// Suggestions completes the `:cd KEY` line from names, the names of its
// group (see [CdGroup]), at most most of them. A level's names are
// sorted, escaped as path elements: escaping keeps a prefix a prefix, so
// a binary search finds the range.
func Suggestions(line string, names []string, most int) []string {
	_, group, ok := CdGroup(line)
	if !ok {
		return nil
	}
	_, arg, _ := strings.Cut(line, " ")
	partial := ""
	if p := arg[len(group):]; p != "" {
		partial = common.RedisName(p)
	}
	var out []string
	for j := sort.SearchStrings(names, partial); j < len(names) && len(out) < most; j++ {
		if !strings.HasPrefix(names[j], partial) {
			break
		}
		out = append(out, "cd "+group+common.UnRedisName(names[j]))
	}
	return out
}

// GroupNames lists the names of group (a key text ending in ':', "" for
// the top), escaped as path elements and sorted, as opening the group in
// the tree would (SCAN MATCH group*), looking at a bounded number of keys.
func GroupNames(ctx context.Context, c *redisview.Client, group string) ([]string, error) {
	l, err := c.ListLevel(ctx, group, redisview.ListOptions{Limit: completeListLimit})
	names := make([]string, len(l.Children))
	for i, ch := range l.Children {
		names[i] = common.RedisName(ch.Name)
	}
	sort.Strings(names)
	return names, err
}

// Candidate is how a completion candidate is listed under the prompt on
// Redis: its last name.
func Candidate(s string) string {
	return s[strings.LastIndex(s, common.RedisSeparator)+1:]
}

// GroupName names the group at p for a person ("every key" at the top).
func GroupName(p string) string {
	if k := common.RedisKeyOf(p); k != "" {
		return k
	}
	return "every key"
}
