package ui

// The TUI on Redis servers (--server redis://…): the same root model, its
// tree reading the keyspace through ui/redistree, the detail pane showing
// a key (ui/detail/redis.go) and the lock pane reading a lock key through
// its loader seam (ui/lockpane/redis.go). The hooks into the
// ZooKeeper code paths are one line each, at the top of the function they
// replace (m.redis != nil). What makes no sense on Redis (editing nodes,
// sessions, the ensemble, contexts) says so in the status line; find
// searches key names.

import (
	"context"
	"fmt"
	"path"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/detail"
	"github.com/zkscope/zkscope/ui/redistree"
	"github.com/zkscope/zkscope/ui/tree"
	"github.com/zkscope/zkscope/zkview"
)

// RedisOptions open the TUI on Redis servers instead of ZooKeeper.
type RedisOptions struct {
	// Client reads the servers: one, or the masters of a Redlock (their
	// keyspaces are shown merged).
	Client *redisview.Client
	// ListLimit bounds the keys one level's listing looks at (0:
	// redisview.DefaultListLimit).
	ListLimit int
	// Context is the config context's name, for the audit log of the lock
	// actions ("" when none).
	Context string
}

var _ treeSource = (*redistree.Tree)(nil)

// redisState is the root model's Redis mode.
type redisState struct {
	c       *redisview.Client
	tree    *redistree.Tree
	context string // for the audit log
	// warned: levels whose listing stopped at the limit, already said.
	warned map[string]bool
}

// Redis mode's pace, in ticks (a second each): the key under the cursor
// is read again every redisReselectTicks, the lock tags of the rows on
// screen and the servers' answer to PING every statsRefreshTicks.
const redisReselectTicks = 2

// attachRedis makes o's servers the model's source (at start).
func (m *Model) attachRedis(o RedisOptions) {
	t := redistree.New(o.Client, o.ListLimit)
	m.redis = &redisState{c: o.Client, tree: t, context: o.Context, warned: map[string]bool{}}
	m.cache = t
	m.state = zkview.ConnEvent{State: zkview.StateConnecting, Server: strings.Join(o.Client.Servers(), ",")}
}

// startRedis gives the lock pane and the detail pane their Redis reading
// (New calls it once the panes exist).
func (m *Model) startRedis() {
	if m.redis == nil {
		return
	}
	c := m.redis.c
	m.lock.SetLoader(func(ctx context.Context, p string) (lockops.Queue, error) { return redistree.ReadLock(ctx, c, p) }, m.readOnly)
	m.lock.SetRedisClient(m.redis.c, m.redis.context)
	m.detail.SetRedisMode(true)
}

// redisInit is Init's part in Redis mode: listen to the tree's changes
// and ask the servers whether they answer.
func (m *Model) redisInit() tea.Cmd {
	if m.redis == nil {
		return nil
	}
	return tea.Batch(listenTree(m.cache), redisPingCmd(m.redis.c))
}

// onRedis handles the Redis mode's messages.
func (m *Model) onRedis(msg redisMsg) tea.Cmd {
	switch msg := msg.(type) {
	case redisSelectMsg:
		m.onRedisSelect(msg)
	case redisProbeMsg:
		m.onLockProbe(lockProbeMsg(msg))
	case redisPingMsg:
		m.onRedisPing(msg)
	}
	return nil
}

// redisSelect reads the key at p for the detail pane (a group of keys
// needs no read).
func (m *Model) redisSelect(p string) tea.Cmd {
	n, _ := m.redis.tree.Node(p)
	below := int(n.Stat.NumChildren)
	if p == "/" {
		below, _, _ = m.redis.tree.Progress(p) // the keys the top level's SCAN saw
	}
	if p == "/" || !m.redis.tree.IsKey(p) {
		m.detail.SetRedis(detail.RedisKey{Key: common.RedisKeyOf(p), Group: true, Below: below})
		return nil
	}
	return redisSelectCmd(m.redis.c, m.nextID("select"), p, false)
}

func (m *Model) onRedisSelect(msg redisSelectMsg) {
	p := msg.path
	if !m.current("select", msg.id) || p != m.detail.Path() {
		return
	}
	if msg.err != nil {
		m.detail.OnSelect(common.Node{Path: p}, nil, msg.err)
		m.setStatus(common.LevelErr, msg.err.Error())
		return
	}
	n, _ := m.redis.tree.Node(p)
	m.detail.SetRedis(detail.RedisKey{Key: common.RedisKeyOf(p), Value: msg.value, Below: int(n.Stat.NumChildren)})
	m.detail.RedisTick(m.now())
	if msg.queue == nil {
		m.tree.DropLock(p)
		m.detail.SetLock(false)
		return
	}
	if _, tagged := m.tree.Lock(p); !tagged {
		m.tree.SetLock(p, lockTagOf(*msg.queue))
	}
	m.detail.SetLock(true)
	m.detail.SetLockErr(nil)
	m.lock.SetQueue(*msg.queue)
}

func (m *Model) onRedisPing(msg redisPingMsg) {
	prev := m.state.State
	switch {
	case msg.down == msg.of:
		m.state.State = zkview.StateReconnecting
		m.setStatus(common.LevelErr, msg.err.Error())
		return
	case msg.down > 0:
		m.setStatus(common.LevelWarn, fmt.Sprintf("%d of %d masters do not answer (a Redlock needs %d): %v", msg.down, msg.of, msg.of/2+1, msg.err))
	case prev == zkview.StateReconnecting:
		m.setStatus(common.LevelOK, "Redis answers again.")
	}
	m.state.State = zkview.StateConnected
}

// onRedisTick counts the TTL shown down, reads the key under the cursor
// again now and then (the lock pane reads its own), tags the locks on
// screen, asks the servers whether they answer and says when a level's
// listing stopped at its limit.
func (m *Model) onRedisTick() tea.Cmd {
	m.detail.RedisTick(m.now())
	m.warnTruncated()
	if m.mode != modeNormal {
		return nil
	}
	var cmds []tea.Cmd
	p := m.detail.Path()
	switch {
	case p == "" || m.detail.IsLock():
	case p == "/" || !m.redis.tree.IsKey(p):
		m.redisSelect(p) // a group: what its listing says now, no read
	case m.ticks%redisReselectTicks == 0:
		cmds = append(cmds, redisSelectCmd(m.redis.c, m.nextID("select"), p, false))
	}
	if m.ticks%statsRefreshTicks == 0 {
		cmds = append(cmds, m.redisProbe(m.tree.VisiblePaths()), redisPingCmd(m.redis.c))
	}
	return tea.Batch(cmds...)
}

// redisProbe reads the keys among paths and tags the locks.
func (m *Model) redisProbe(paths []string) tea.Cmd {
	var keys []string
	for _, p := range paths {
		if m.redis.tree.IsKey(p) {
			keys = append(keys, p)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return redisProbeCmd(m.redis.c, keys)
}

// redisProbeNodes is probeLocks in Redis mode: the rows just read.
func (m *Model) redisProbeNodes(nodes []common.Node) tea.Cmd {
	paths := make([]string, len(nodes))
	for i, n := range nodes {
		paths[i] = n.Path
	}
	return m.redisProbe(paths)
}

// warnTruncated says once per level that its listing stopped at the
// limit.
func (m *Model) warnTruncated() {
	for _, p := range m.tree.VisiblePaths() {
		if _, open := m.tree.Dir(p); !open || m.redis.warned[p] {
			continue
		}
		if n, scanning, cut := m.redis.tree.Progress(p); cut && !scanning {
			m.redis.warned[p] = true
			m.setStatus(common.LevelWarn, fmt.Sprintf("Listed %s after looking at %d keys (the limit): some names may be missing; open a narrower group with :cd %s…", redistree.GroupName(p), n, redistree.GroupName(p)+redisview.Separator))
		}
	}
}

// redisBusy is the header's busy text while a level is scanned.
func (m *Model) redisBusy() string {
	if m.redis == nil {
		return ""
	}
	if p, n, ok := m.redis.tree.Scanning(); ok {
		return fmt.Sprintf("scanning %s (%d keys)", redistree.GroupName(p), n)
	}
	return ""
}

// redisKey handles the keys that differ on Redis; false: the usual
// handling applies.
func (m *Model) redisKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.redis == nil {
		return m.dbKey(msg)
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Create, k.Edit, k.EditInline, k.Delete, k.DeleteTree):
		m.setStatus(common.LevelWarn, "Redis keys are not edited here: zkscope changes Redis only through its lock actions (t, u, X).")
	case key.Matches(msg, k.Lock.Session):
		m.setStatus(common.LevelInfo, "Redis locks have no sessions: a holder is its token.")
	case key.Matches(msg, k.Yank):
		name := common.RedisKeyOf(m.tree.CursorPath())
		m.setStatus(common.LevelOK, "Copied "+name+" to the clipboard (through the terminal: OSC 52).")
		return tea.SetClipboard(name), true
	default:
		return nil, false
	}
	return nil, true
}

// redisCommand runs the `:` commands that differ on Redis; false: the
// usual handling applies.
func (m *Model) redisCommand(name, arg string) (tea.Cmd, bool) {
	if m.redis == nil {
		return m.dbCommand(name)
	}
	switch name {
	case "cd", "open", "go":
		if arg == "" || strings.HasPrefix(arg, "/") {
			return nil, false
		}
		return m.cd(common.RedisPathOf(strings.TrimSuffix(arg, redisview.Separator))), true // a key: lock:orders:42
	case "ctx", "context", "locks", "ensemble", "members", "sessions":
		m.setStatus(common.LevelInfo, ":"+name+" is for ZooKeeper; on Redis, zkscope locks 'PATTERN' lists the locks and / filters a group.")
		return nil, true
	}
	return nil, false
}

// lockTagOf is the tree's tag of a decoded lock.
func lockTagOf(q lockops.Queue) tree.LockTag {
	return tree.LockTag{Kind: q.Kind, Length: len(q.Participants)}
}

// redisHelpLines are the `?` screen's words on Redis (none on ZooKeeper).
func (m *Model) redisHelpLines(wrap func(string) []string) []string {
	if m.redis == nil {
		return m.dbHelpLines(wrap)
	}
	lines := []string{"", m.st.Section.Render("On Redis")}
	for _, l := range wrap("The tree groups keys by ':' (lock:orders:42 under lock › orders › 42); a group is listed with SCAN when opened and again on r; a closed group's count is the keys below it. " +
		"The detail pane shows a key's type, TTL (counting down) and value (v: a string's viewer). " +
		"Lock keys (redis.setnx, redlock, redisson.lock, redisson.fairlock) open the lock pane: t takes (SET NX PX, extended while held), u releases, X deletes a key while it holds the token shown. " +
		"f finds the key names below the cursor's group that contain a text (any case; SCAN MATCH, values are not searched). " +
		":cd KEY opens a key (tab completes its names); R, S, the node edits, :sessions and :ensemble are ZooKeeper's.") {
		lines = append(lines, "  "+l)
	}
	return lines
}

// shownName is how a pane's title names the tree path p: on Redis the key
// it stands for (lock:orders:42, not /lock/orders/42).
func (m *Model) shownName(p string) string {
	if m.redis != nil {
		return common.RedisKeyOf(p)
	}
	return p
}

// redisFind starts a find for q below the cursor's group (a key with
// nothing below it: its own group): the key names that contain q, any
// case (redistree.Find); the hits open as ZooKeeper's do.
func (m *Model) redisFind(q string) tea.Cmd {
	root := m.tree.CursorPath()
	if n, ok := m.redis.tree.Node(root); ok && root != "/" && n.Stat.NumChildren == 0 {
		root = path.Dir(root)
	}
	m.lastFind = q
	m.setStatus(common.LevelInfo, fmt.Sprintf("Searching the key names in %s for %q… (esc stops)", redistree.GroupName(root), q))
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
	progress := func(n int) { prog.send(searchProgressMsg{id: id, listed: n, found: n, dir: root}, false) }
	paths, truncated, err := redistree.Find(ctx, c, root, query, searchReadLimit, progress)
	switch {
	case ctx.Err() != nil:
		msg.truncated, msg.cancelled = true, true
	case err != nil:
		msg.err = err
	}
	msg.truncated = msg.truncated || truncated
	for _, p := range paths {
		msg.hits = append(msg.hits, searchHit{Path: p})
	}
	msg.scanned = len(paths)
	ch <- msg
}

// redisKeySuggestions completes `:cd KEY` from the names of its group as
// far as known (the tree's listing, or the one completion asked for).
func (m *Model) redisKeySuggestions(line string) []string {
	dir, _, ok := redistree.CdGroup(line)
	if !ok {
		return nil
	}
	names, ok := m.childNames(dir)
	if !ok {
		return nil
	}
	return redistree.Suggestions(line, names, maxSuggestions)
}

// askRedisCompletion lists the group a `:cd KEY` line completes in when
// the tree has not listed it (one listing per group, request id, short
// timeout).
func (m *Model) askRedisCompletion(line string) tea.Cmd {
	dir, group, ok := redistree.CdGroup(line)
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
		names, err := redistree.GroupNames(ctx, c, group)
		return completionMsg{id: id, dir: dir, names: names, err: err}
	}
}
