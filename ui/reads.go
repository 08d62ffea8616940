package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/tree"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/treecache"
)

// The commands doing the root's reads of ZooKeeper (and the listeners of
// its connection and tree events); replies.go applies their answers.
// Changes are in mutate.go, `:ctx` in connect.go, the `:` line in
// cmdline.go. Each command captures the values it needs before its
// closure and returns a message; none touches the model.

const (
	fetchTimeout  = 10 * time.Second
	tickEvery     = time.Second
	ensembleEvery = 10 * time.Second
)

// listenConn waits for the next connection state change (re-armed by
// Update after each one).
func listenConn(ch <-chan zkview.ConnEvent) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return nil
		}
		return connMsg{ev: ev}
	}
}

// listenTree waits for the next batch of tree changes and copies what
// changed out of the cache (re-armed by Update after each one).
func listenTree(t treeSource) tea.Cmd {
	if t == nil {
		return nil
	}
	return func() tea.Msg {
		ev := <-t.Events()
		var msg treeMsg
		for p, c := range ev.Changes {
			if c&treecache.ChangeReset != 0 {
				msg.reset = true
			}
			if c&treecache.ChangeChildren != 0 {
				if d, ok := snapDir(t, p); ok {
					msg.dirs = append(msg.dirs, d)
				} else {
					msg.closed = append(msg.closed, p)
				}
			}
			if c&(treecache.ChangeData|treecache.ChangeGone|treecache.ChangeError) != 0 {
				if n, ok := t.Node(p); ok {
					msg.nodes = append(msg.nodes, snapNode(n))
				}
			}
		}
		return msg
	}
}

func snapDir(t treeSource, p string) (tree.Listing, bool) {
	names, ok := t.Children(p)
	if !ok {
		return tree.Listing{Path: p}, false
	}
	st, _ := t.DirStat(p)
	return tree.Listing{Path: p, Names: names, Stat: st, LockLike: lockops.IsLockDir(names)}, true
}

func snapNode(n treecache.Node) common.Node {
	return common.Node{Path: n.Path, Stat: n.Stat, Data: n.Data, HasStat: n.HasStat, Gone: n.Gone, Err: n.Err}
}

// expandCmd loads p's children.
func expandCmd(t treeSource, id uint64, p string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		d, err := openDir(ctx, t, p) // a concurrent load of p (a :cd) serves too
		return childrenMsg{id: id, dir: d, err: err}
	}
}

// cdCmd expands every ancestor of target (and target itself when it has
// children) so the cursor can land on it.
// ctx ends when a newer `:cd` starts, so two walks never race over the
// same directories.
func cdCmd(ctx context.Context, cancel context.CancelFunc, t treeSource, id uint64, target string) tea.Cmd {
	return func() tea.Msg {
		defer cancel()
		msg := pathMsg{id: id, target: target}
		chain := []string{"/"}
		if target != "/" {
			parts := strings.Split(strings.Trim(target, "/"), "/")
			for i := range parts {
				chain = append(chain, "/"+strings.Join(parts[:i+1], "/"))
			}
		}
		for i, p := range chain {
			last := i == len(chain)-1
			d, err := openDir(ctx, t, p)
			if err != nil {
				if last && errors.Is(err, zk.ErrNoChildrenForEphemerals) {
					break
				}
				if last && !errors.Is(err, zk.ErrNoNode) {
					break // a leaf that cannot be listed: land on it anyway
				}
				msg.err = err
				return msg
			}
			if last && len(d.Names) == 0 {
				t.Collapse(p) // a leaf: no need to watch its (absent) children
				break
			}
			msg.dirs = append(msg.dirs, d)
		}
		return msg
	}
}

// openDir makes p's children available for a `:cd`. A directory the cache
// already holds is used as it is (it is watched, so current). A load
// superseded by a concurrent one of the same path (another `:cd` walking
// the same ancestors, an expand) is retried: the newer load's result is
// as good as ours.
func openDir(ctx context.Context, t treeSource, p string) (tree.Listing, error) {
	for attempt := range 5 {
		if d, ok := snapDir(t, p); ok {
			return d, nil
		}
		err := t.Expand(ctx, p)
		if err != nil && !errors.Is(err, treecache.ErrStale) {
			return tree.Listing{Path: p}, err
		}
		if err != nil {
			// Give the load that superseded ours time to land before
			// asking again (asking at once would supersede it in turn).
			select {
			case <-ctx.Done():
				return tree.Listing{Path: p}, fmt.Errorf("open %s: %w", p, ctx.Err())
			case <-time.After(time.Duration(attempt+1) * 30 * time.Millisecond):
			}
		}
	}
	return tree.Listing{Path: p}, fmt.Errorf("open %s: %w", p, treecache.ErrStale)
}

// statsCmd reads stat and data of the visible rows in one bulk read.
func statsCmd(t treeSource, id uint64, paths []string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		err := t.LoadStats(ctx, paths)
		msg := statsMsg{id: id, paths: paths, err: err}
		for _, p := range paths {
			if n, ok := t.Node(p); ok {
				msg.nodes = append(msg.nodes, snapNode(n))
			}
		}
		return msg
	}
}

// selectCmd reads the node under the cursor (watching its data) and its ACL.
func selectCmd(t treeSource, c *zkview.Client, id uint64, p string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		n, err := t.Select(ctx, p)
		if errors.Is(err, treecache.ErrStale) {
			err = n.Err // a newer read of it answered (or will: its event follows)
		}
		msg := selectMsg{id: id, node: snapNode(n), err: err}
		// A read overtaken by a newer one of the same node (a stat load
		// of the visible rows) still has the node: read its ACL too.
		if err == nil && c != nil {
			acl, _, aerr := c.Conn().GetACL(c.Abs(p))
			if aerr == nil {
				msg.acl = acl
			}
		}
		return msg
	}
}

// lockCmd reads and decodes p when its children look like a lock recipe's.
func lockCmd(c *zkview.Client, id uint64, p string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		names, st, err := c.Children(p)
		if err != nil {
			return lockMsg{id: id, path: p, err: err}
		}
		if !lockops.IsLockDir(names) && !(len(names) == 0 && st.EphemeralOwner != 0) {
			return lockMsg{id: id, path: p} // (an ephemeral node is a plain ephemeral lock)
		}
		if len(names) == 0 {
			// A node of another lock's queue (watched by its waiters) is
			// that lock's participant, never a plain ephemeral lock.
			if dir, _, _, err := scan.EnclosingLock(ctx, c, p); err != nil || dir != "" {
				return lockMsg{id: id, path: p, err: err}
			}
		}
		d, err := scan.ReadDir(ctx, c, p)
		if err != nil {
			return lockMsg{id: id, path: p, err: err}
		}
		return lockMsg{id: id, path: p, isDir: true, queue: lockops.Decode(d, lockops.DecodeOptions{})}
	}
}

// lockProbeCmd lists each directory and decodes the ones whose children
// look like a lock recipe's.
func lockProbeCmd(c *zkview.Client, paths []string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		msg := lockProbeMsg{found: map[string]tree.LockTag{}}
		for _, p := range paths {
			if ctx.Err() != nil {
				break
			}
			names, _, err := c.Children(p)
			if err != nil || !lockops.IsLockDir(names) {
				msg.none = append(msg.none, p)
				continue
			}
			d, err := scan.ReadDir(ctx, c, p)
			if err != nil {
				continue
			}
			q := lockops.Decode(d, lockops.DecodeOptions{})
			msg.found[p] = tree.LockTag{Kind: q.Kind, Length: len(q.Participants)}
		}
		return msg
	}
}

// introspect asks the members about themselves (roles, connections),
// after a pause when later is set. Update re-arms it with a new id, so one
// chain runs at a time.
func introspect(c *zkview.Client, id uint64, later bool) tea.Cmd {
	ask := func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		return ensembleMsg{id: id, ens: c.Introspect(ctx)}
	}
	if !later {
		return ask
	}
	return tea.Tick(ensembleEvery, func(time.Time) tea.Msg { return ask() })
}

// ensembleViewEvery is how often the ensemble view asks again.
const ensembleViewEvery = 3 * time.Second

// askEnsembleView asks the members everything the ensemble view shows
// (after ensembleViewEvery when later is set), without the session: it
// answers while the ensemble has no quorum.
func askEnsembleView(cfg zkview.Config, id uint64, later bool) tea.Cmd {
	ask := func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		return ensembleViewMsg{id: id, ens: zkview.IntrospectConfig(ctx, cfg, zkview.IntrospectOptions{Detail: true})}
	}
	if !later {
		return ask
	}
	return tea.Tick(ensembleViewEvery, func(time.Time) tea.Msg { return ask() })
}

// sessionsViewEvery is how often the session view reads again (a scan of
// the lock directories below its path and the members' connections).
const sessionsViewEvery = 5 * time.Second

// askSessionsView scans the locks below root and asks the members for
// their sessions (after sessionsViewEvery when later is set), joined for
// the session view.
func askSessionsView(c *zkview.Client, root string, id uint64, later bool) tea.Cmd {
	ask := func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		ss, e, queues, err := diagnose.ScanSessions(ctx, c, root)
		if err != nil && !errors.Is(err, scan.ErrTruncated) {
			err = fmt.Errorf("scan the locks below %s: %w", root, err)
		}
		return sessionsViewMsg{id: id, root: root, ss: ss, ens: e, queues: queues, at: e.At, err: err}
	}
	if !later {
		return ask
	}
	return tea.Tick(sessionsViewEvery, func(time.Time) tea.Msg { return ask() })
}

func tick() tea.Cmd {
	return tea.Tick(tickEvery, func(t time.Time) tea.Msg { return common.TickMsg{At: t} })
}
