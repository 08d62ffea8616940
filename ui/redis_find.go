package ui

// `f` (find) on Redis: the key names below the cursor's group that
// contain the text typed, any case, found with SCAN MATCH prefix*text*
// (never KEYS) on every server; the hits open as ZooKeeper's do. Redis
// values are not searched: reading every value is what find must not do
// to a production server.

import (
	"context"
	"fmt"
	"path"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
)

// redisFind starts a find for q below the cursor's group (a key with
// nothing below it: its own group).
func (m *Model) redisFind(q string) tea.Cmd {
	root := m.tree.CursorPath()
	if n, ok := m.redis.tree.Node(root); ok && root != "/" && n.Stat.NumChildren == 0 {
		root = path.Dir(root)
	}
	m.lastFind = q
	m.setStatus(common.LevelInfo, fmt.Sprintf("Searching the key names in %s for %q… (esc stops)", redisGroupName(root), q))
	return m.beginSearch(root, q, false)
}

// redisFindClient is the client a find runs on: nil on ZooKeeper.
func (m *Model) redisFindClient() *redisview.Client {
	if m.redis == nil {
		return nil
	}
	return m.redis.c
}

// redisFindWalk is searchWalk on Redis: the names below root's group
// containing query, as one searchMsg after progress reports.
func redisFindWalk(ctx context.Context, cancel context.CancelFunc, c *redisview.Client, id uint64, root, query string, ch chan<- tea.Msg) {
	defer cancel()
	msg := searchMsg{id: id, root: root, query: query}
	prog := progressSender{ch: ch}
	prefix := common.RedisKeyOf(root)
	if prefix != "" {
		prefix += redisview.Separator
	}
	progress := func(n int) { prog.send(searchProgressMsg{id: id, listed: n, found: n, dir: root}, false) }
	names, truncated, err := c.FindKeys(ctx, prefix, query, redisview.FindOptions{Limit: searchReadLimit, Progress: progress})
	switch {
	case ctx.Err() != nil:
		msg.truncated, msg.cancelled = true, true
	case err != nil:
		msg.err = err
	}
	msg.truncated = msg.truncated || truncated
	for _, n := range names {
		msg.hits = append(msg.hits, searchHit{Path: common.RedisPathOf(n)})
	}
	msg.scanned = len(names)
	ch <- msg
}
