package lockops

// The plain ephemeral lock (zookeeper.ephemeral-lock): one EPHEMERAL node
// whose existence means "held", as hand-written code makes it: create
// the node; on NodeExists watch it with exists and try again when it is
// deleted. Every waiter watches the same node, so all wake at once (a
// herd). The waiters own no node: the servers' watch lists (wchp) are the
// only place they show. Any ephemeral node with no known recipe that
// sessions watch is read as one ([FindEphemeralLocks]).

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// Ephemeral is the plain ephemeral lock's format; zkscope takes locks in
// it (`zkscope lock PATH --recipe ephemeral`).
var Ephemeral = &Library{
	Name: "ephemeral", Title: "plain ephemeral",
	take: &takeFormat{kinds: map[Mode]Kind{ModeExclusive: KindEphemeralLock}},
}

// decodeEphemeral reads d, the lock node itself (its own stat and data):
// its owner holds. The waiters come from the servers ([ApplyEnsemble]).
func decodeEphemeral(d Dir) Queue {
	if d.Stat.Czxid == 0 {
		return Queue{} // gone
	}
	c := Child{Name: path.Base(d.Path), Path: d.Path, Data: d.Data, Owner: d.Stat.EphemeralOwner,
		Ctime: d.Stat.Ctime, Czxid: d.Stat.Czxid, Version: d.Stat.Version}
	p := participant(path.Dir(d.Path), &c, ModeExclusive, "")
	p.State = StateHolding
	return Queue{Participants: []Participant{p}}
}

// EphemeralDir is the lock node at p read for [Decode] as a plain
// ephemeral lock (Kind [KindEphemeralLock]).
func EphemeralDir(p string, st zk.Stat, data []byte) Dir {
	return Dir{Path: p, Stat: st, Data: data}
}

// FindEphemeralLocks adds to queues the plain ephemeral locks at or below
// root: root itself when it is an ephemeral node, and every ephemeral
// node the servers (e) list sessions watching that is no node of a lock
// already found and whose directory holds no known lock. Each is read
// once; nodes gone meanwhile are left out. With e nil only root is
// looked at. The result is sorted by path, as [Scan]'s.
func FindEphemeralLocks(ctx context.Context, c *zkview.Client, root string, e *zkview.Ensemble, queues []Queue) ([]Queue, error) {
	known := map[string]bool{}
	for _, q := range queues {
		known[q.Path] = true
		for _, p := range q.Participants {
			known[p.Node] = true
		}
	}
	candidates := []string{root}
	if e != nil {
		for _, p := range watchedPaths(e) {
			if under(p, root) && p != root {
				candidates = append(candidates, p)
			}
		}
	}
	added := false
	for _, p := range candidates {
		if known[p] || underKnownElection(p, queues) {
			continue
		}
		known[p] = true
		q, ok, err := readEphemeralLock(ctx, c, p)
		if err != nil {
			return queues, err
		}
		if ok {
			queues, added = append(queues, q), true
		}
	}
	if added {
		slices.SortFunc(queues, func(a, b Queue) int { return strings.Compare(a.Path, b.Path) })
	}
	return queues, nil
}

// readEphemeralLock reads p: a plain ephemeral lock when it is an
// ephemeral node whose directory is no lock of a known recipe.
func readEphemeralLock(ctx context.Context, c *zkview.Client, p string) (Queue, bool, error) {
	n, err := c.Get(p)
	if errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrNoAuth) {
		return Queue{}, false, nil
	}
	if err != nil {
		return Queue{}, false, err
	}
	if n.Stat.EphemeralOwner == 0 || p == "/" {
		return Queue{}, false, nil
	}
	if sibs, _, err := c.Children(path.Dir(p)); err == nil && IsLockDir(sibs) {
		return Queue{}, false, nil // a node of a recipe's queue
	}
	return Decode(EphemeralDir(p, n.Stat, n.Data), DecodeOptions{Kind: KindEphemeralLock}), true, nil
}

// under reports whether p is root or below it.
func under(p, root string) bool {
	return root == "/" || p == root || strings.HasPrefix(p, root+"/")
}

// underKnownElection reports whether p is a node a system's election
// reads as context (Kafka's broker registrations, HBase's backup masters):
// those are watched by design and are no locks of their own.
func underKnownElection(p string, queues []Queue) bool {
	for _, q := range queues {
		switch q.Kind {
		case KindKafkaController:
			if path.Dir(p) == kafkaBrokersOf(q.Path) {
				return true
			}
		case KindHBaseMaster:
			if path.Dir(p) == zkJoin(q.Path, hbaseBackups) {
				return true
			}
		case KindSolrOverseer:
			if p == solrLeaderOf(q.Path) {
				return true
			}
		}
	}
	return false
}

// watchedPaths are the paths (the caller's view, inside the chroot) any
// member lists a data or exists watch on, sorted.
func watchedPaths(e *zkview.Ensemble) []string {
	var out []string
	for _, m := range e.Members {
		for sp := range m.Watches {
			p := sp
			if e.Chroot != "" {
				r, ok := strings.CutPrefix(sp, e.Chroot)
				if !ok || r != "" && !strings.HasPrefix(r, "/") {
					continue
				}
				if p = r; p == "" {
					p = "/"
				}
			}
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
