package scan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// FindEphemeralLocks adds to queues the plain ephemeral locks at or below
// root: root itself when it is an ephemeral node, and every ephemeral
// node the servers (e) list sessions watching that is no node of a lock
// already found and whose directory holds no known lock. A watched
// ActiveStandbyElectorLock that does not exist, in a directory not found
// yet, is HDFS HA between two active NameNodes (its breadcrumb deleted by
// a graceful exit): its election is added, with no leader. The candidates
// are read in one bulk read and each directory listed once; nodes gone
// meanwhile are left out. With e nil only root is looked at. The result
// is sorted by path, as [Scan]'s.
//
// The servers list getData and exists watches alike: an ephemeral node
// that clients watch for its data (a service registry's instance) looks
// the same as a lock. Two kinds are told apart ([withoutRegistries]);
// any other is reported as a lock.
func FindEphemeralLocks(ctx context.Context, c *zkview.Client, root string, e *zkview.Ensemble, queues []lockops.Queue) ([]lockops.Queue, error) {
	asked := []string{root}
	if e != nil {
		for _, p := range watchedPaths(e) {
			if lockops.Under(p, root) {
				asked = append(asked, p)
			}
		}
	}
	candidates := newCandidates(asked, queues)
	found, err := readEphemeralLocks(ctx, c, candidates)
	if err != nil || len(found) == 0 {
		return queues, err
	}
	found = withoutRegistries(found, e, root)
	now := time.Now()
	for i := range found {
		found[i].ReadAt = now
	}
	queues = append(queues, found...)
	slices.SortFunc(queues, func(a, b lockops.Queue) int { return strings.Compare(a.Path, b.Path) })
	return queues, nil
}

// KnownForEphemeral is, of the locks known (each yielded once), those
// that [FindEphemeralLocks] on root with e would find the same with no
// other: the locks at a path it asks (root, and the paths below it the
// servers list sessions watching), or whose directory it is, or that
// hold such a path as a node, and the elections (whose context a watched
// node may be). A caller that keeps thousands of locks hands it these
// copies, not all of them, and takes what it finds beyond them as new.
func KnownForEphemeral(root string, e *zkview.Ensemble, known iter.Seq[lockops.Queue]) []lockops.Queue {
	asked := map[string]bool{root: true, path.Dir(root): true}
	nodes := map[string]bool{root: true}
	if e != nil {
		for _, p := range watchedPaths(e) {
			if lockops.Under(p, root) {
				asked[p], asked[path.Dir(p)], nodes[p] = true, true, true
			}
		}
	}
	var out []lockops.Queue
	for q := range known {
		keep := asked[q.Path] || q.Kind == lockops.KindKafkaController || q.Kind == lockops.KindHBaseMaster || q.Kind == lockops.KindSolrOverseer
		for i := 0; !keep && i < len(q.Participants); i++ {
			keep = nodes[q.Participants[i].Node]
		}
		if keep {
			out = append(out, q)
		}
	}
	return out
}

// newCandidates is asked in order, once each, without "/", the lock
// directories and the nodes of queues, nodes in a lock directory, and
// nodes under an election already found. The participants are looked up
// in a set of the few paths asked, not put in a set of their own: a lock
// of 10,000 contenders costs no map of 10,000 names.
func newCandidates(asked []string, queues []lockops.Queue) []string {
	known, locks := make(map[string]bool, len(asked)+1), make(map[string]bool, len(queues))
	for _, p := range asked {
		known[p] = false
	}
	for _, q := range queues {
		locks[q.Path] = true
		if _, ok := known[q.Path]; ok {
			known[q.Path] = true
		}
		for i := range q.Participants {
			if _, ok := known[q.Participants[i].Node]; ok {
				known[q.Participants[i].Node] = true
			}
		}
	}
	known["/"] = true
	var out []string
	for _, p := range asked {
		if !known[p] && !locks[path.Dir(p)] && !underKnownElection(p, queues) {
			known[p] = true
			out = append(out, p)
		}
	}
	return out
}

// registrySiblings is how many watched ephemeral siblings, each watched
// by exactly the same sessions, make a registry watched by caches.
const registrySiblings = 3

// withoutRegistries drops from found, plain ephemeral locks found through
// the servers' watch lists, the nodes that are a registry's entries
// watched by caches rather than locks (root itself, asked for by name,
// stays): a Curator ServiceDiscovery instance ([isServiceInstance]),
// and registrySiblings or more
// siblings that the very same sessions all watch. A waiter of a
// hand-written lock watches the one node it wants; a cache of a
// directory watches every entry in it.
func withoutRegistries(found []lockops.Queue, e *zkview.Ensemble, root string) []lockops.Queue {
	watchers := func(p string) string {
		ws := slices.Clone(e.Watchers(p))
		slices.Sort(ws)
		return fmt.Sprint(ws)
	}
	type group struct {
		watchers string
		n        int
		same     bool
	}
	groups := map[string]*group{}
	for _, q := range found {
		w, g := watchers(q.Path), groups[path.Dir(q.Path)]
		if g == nil {
			groups[path.Dir(q.Path)] = &group{watchers: w, n: 1, same: true}
			continue
		}
		g.n++
		g.same = g.same && g.watchers == w
	}
	return slices.DeleteFunc(found, func(q lockops.Queue) bool {
		if q.Path == root || q.Kind != lockops.KindEphemeralLock || len(q.Participants) == 0 {
			return false
		}
		g := groups[path.Dir(q.Path)]
		return g.same && g.n >= registrySiblings || isServiceInstance(q.Participants[0].Data)
	})
}

// isServiceInstance reports whether data is a Curator ServiceDiscovery
// instance (curator-x-discovery's JsonInstanceSerializer writes name, id,
// address, port, sslPort, payload, registrationTimeUTC, serviceType,
// uriSpec; other clients of the format, such as dubbo-go's, leave some
// out): name, id and address with serviceType or registrationTimeUTC.
func isServiceInstance(data []byte) bool {
	var v map[string]json.RawMessage
	if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &v) != nil {
		return false
	}
	has := func(k string) bool { _, ok := v[k]; return ok }
	return has("name") && has("id") && has("address") && (has("serviceType") || has("registrationTimeUTC"))
}

// readEphemeralLocks reads the candidates in one bulk read and decodes
// the ephemeral ones whose directory is no lock of a known recipe (each
// directory listed once).
func readEphemeralLocks(ctx context.Context, c *zkview.Client, candidates []string) ([]lockops.Queue, error) {
	if len(candidates) == 0 {
		return nil, nil
	}
	dirs := make([]lockops.Dir, len(candidates)) // by index: the reads may answer concurrently
	electors := make([]bool, len(candidates))
	err := c.GetManyFunc(ctx, candidates, func(i int, data []byte, st *zk.Stat, err error) {
		switch {
		case err == nil && st.EphemeralOwner != 0:
			dirs[i] = lockops.EphemeralDir(candidates[i], *st, slices.Clone(data))
		case errors.Is(err, zk.ErrNoNode) && path.Base(candidates[i]) == lockops.HadoopLockNode:
			electors[i] = true
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read the watched ephemeral nodes: %w", err)
	}
	lockDir := map[string]bool{}
	var out []lockops.Queue
	for i, elector := range electors {
		if elector { // HDFS HA with neither lock nor breadcrumb: its candidates wait for the lock
			out = append(out, lockops.Decode(lockops.Dir{Path: path.Dir(candidates[i])}, lockops.DecodeOptions{Kind: lockops.KindHadoopHA}))
		}
	}
	for _, d := range dirs {
		if d.Path == "" {
			continue // gone, unreadable or persistent
		}
		parent := path.Dir(d.Path)
		isLock, listed := lockDir[parent]
		if !listed {
			sibs, _, err := c.Children(parent)
			if err != nil && IgnoreGone(err) != nil && !errors.Is(err, zk.ErrNoAuth) {
				return nil, fmt.Errorf("list %s: %w", parent, err)
			}
			k, _ := lockDirKind(c, parent, sibs)
			isLock = lockops.IsLockDir(sibs) || k != ""
			lockDir[parent] = isLock
		}
		if !isLock { // (a node of a recipe's queue otherwise)
			out = append(out, lockops.Decode(d, lockops.DecodeOptions{Kind: lockops.KindEphemeralLock}))
		}
	}
	return out, nil
}

// underKnownElection reports whether p is a node a system's election
// reads as context (Kafka's broker registrations, HBase's backup masters):
// those are watched by design and are no locks of their own
// (KnownForEphemeral keeps the locks of these kinds).
func underKnownElection(p string, queues []lockops.Queue) bool {
	for _, q := range queues {
		switch q.Kind {
		case lockops.KindKafkaController:
			if path.Dir(p) == lockops.KafkaBrokersOf(q.Path) {
				return true
			}
		case lockops.KindHBaseMaster:
			if path.Dir(p) == lockops.JoinPath(q.Path, lockops.HBaseBackupsDir) {
				return true
			}
		case lockops.KindSolrOverseer:
			if p == lockops.SolrLeaderOf(q.Path) {
				return true
			}
		}
	}
	return false
}

// watchedPaths are the paths (the caller's view, inside the chroot) any
// member lists a data or exists watch on by another session than the
// caller's own, sorted.
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
	return slices.DeleteFunc(slices.Compact(out), func(p string) bool { return len(e.Watchers(p)) == 0 }) // only our own watch
}
