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
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

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
func FindEphemeralLocks(ctx context.Context, c *zkview.Client, root string, e *zkview.Ensemble, queues []Queue) ([]Queue, error) {
	known, locks := map[string]bool{"/": true}, map[string]bool{}
	for _, q := range queues {
		known[q.Path], locks[q.Path] = true, true
		for _, p := range q.Participants {
			known[p.Node] = true
		}
	}
	var candidates []string
	add := func(p string) {
		if !known[p] && !locks[path.Dir(p)] && !underKnownElection(p, queues) {
			known[p] = true
			candidates = append(candidates, p)
		}
	}
	add(root)
	if e != nil {
		for _, p := range watchedPaths(e) {
			if under(p, root) {
				add(p)
			}
		}
	}
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
	slices.SortFunc(queues, func(a, b Queue) int { return strings.Compare(a.Path, b.Path) })
	return queues, nil
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
func withoutRegistries(found []Queue, e *zkview.Ensemble, root string) []Queue {
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
	return slices.DeleteFunc(found, func(q Queue) bool {
		if q.Path == root || q.Kind != KindEphemeralLock || len(q.Participants) == 0 {
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
func readEphemeralLocks(ctx context.Context, c *zkview.Client, candidates []string) ([]Queue, error) {
	if len(candidates) == 0 {
		return nil, nil
	}
	dirs := make([]Dir, len(candidates)) // by index: the reads may answer concurrently
	electors := make([]bool, len(candidates))
	err := c.GetManyFunc(ctx, candidates, func(i int, data []byte, st *zk.Stat, err error) {
		switch {
		case err == nil && st.EphemeralOwner != 0:
			dirs[i] = EphemeralDir(candidates[i], *st, slices.Clone(data))
		case errors.Is(err, zk.ErrNoNode) && path.Base(candidates[i]) == HadoopLockNode:
			electors[i] = true
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read the watched ephemeral nodes: %w", err)
	}
	lockDir := map[string]bool{}
	var out []Queue
	for i, elector := range electors {
		if elector { // HDFS HA with neither lock nor breadcrumb: its candidates wait for the lock
			out = append(out, Decode(Dir{Path: path.Dir(candidates[i])}, DecodeOptions{Kind: KindHadoopHA}))
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
			isLock = IsLockDir(sibs) || k != ""
			lockDir[parent] = isLock
		}
		if !isLock { // (a node of a recipe's queue otherwise)
			out = append(out, Decode(d, DecodeOptions{Kind: KindEphemeralLock}))
		}
	}
	return out, nil
}

// underKnownElection reports whether p is a node a system's election
// reads as context (Kafka's broker registrations, HBase's backup masters):
// those are watched by design and are no locks of their own.
func underKnownElection(p string, queues []Queue) bool {
	for _, q := range queues {
		switch q.Kind {
		case KindKafkaController:
			if path.Dir(p) == KafkaBrokersOf(q.Path) {
				return true
			}
		case KindHBaseMaster:
			if path.Dir(p) == JoinPath(q.Path, HBaseBackupsDir) {
				return true
			}
		case KindSolrOverseer:
			if p == SolrLeaderOf(q.Path) {
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

// joinEphemeral takes a plain ephemeral lock as hand-written code does:
// create the node; when it exists, watch it with exists and try again
// once it is deleted. Parents are made persistent. A create whose reply
// was lost to a disconnect is ours when the node's owner is our session.
func joinEphemeral(ctx context.Context, c *zkview.Client, plan TakePlan, o TakeOptions) (*Held, error) {
	w, cancel := newWaiter(ctx, c, plan, o)
	defer cancel()
	sub, unsub := c.Subscribe()
	defer unsub()
	data := OwnerData(o.Note)
	for {
		st, err := createEphemeral(c, plan.Path, data)
		switch {
		case err == nil:
			return newHeld(c, plan.Path, plan.Path, KindEphemeralLock, ModeExclusive, st), nil
		case w.ctx.Err() != nil:
			return nil, w.ctxErr(plan.Path)
		case IsRefusal(err):
			return nil, err
		case !errors.Is(err, zk.ErrNodeExists):
			return nil, fmt.Errorf("take %s: %w", plan.Path, err)
		case o.Wait == WaitNone:
			return nil, fmt.Errorf("take %s: %w (held by another session; we would watch it with exists)", plan.Path, ErrWouldBlock)
		}
		if err := w.waitGone(sub); err != nil {
			return nil, err
		}
	}
}

// waitGone watches the lock node with exists until it is deleted (nil:
// try again), our session ends, or ctx does.
func (w *waiter) waitGone(sub <-chan zkview.ConnEvent) error {
	lockPath := w.plan.Path
	ch, err := zkview.Call(w.ctx, func() (<-chan zk.Event, error) { return watch(w.c, lockPath, WatchExists) })
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("take %s: watch it: %w", lockPath, err)
	}
	w.report(Progress{Path: lockPath, Recipe: string(KindEphemeralLock), Position: 1, QueueLen: 2, WaitingOn: lockPath})
	if ctxDone, lost := w.await(ch, sub, w.c.Conn().SessionID()); ctxDone {
		return w.ctxErr(lockPath)
	} else if lost != nil {
		return lost
	}
	return nil
}

// createEphemeral creates the lock node (and its missing parents,
// persistent) and reads its stat. ErrNodeExists: another session holds it.
// A node inside a lock directory is refused ([guardCreate]), checked before
// each create: the directory may have become one while we waited.
func createEphemeral(c *zkview.Client, lockPath string, data []byte) (zk.Stat, error) {
	if err := guardCreate(c, lockPath); err != nil {
		return zk.Stat{}, err
	}
	conn, abs := c.Conn(), c.Abs(lockPath)
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		_, err := conn.Create(abs, data, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists), errors.Is(err, zk.ErrConnectionClosed):
			_, st, gerr := conn.Get(abs)
			switch {
			case gerr == nil && st.EphemeralOwner == conn.SessionID():
				return *st, nil // ours (a lost reply's create too)
			case gerr == nil && err == nil:
				return zk.Stat{}, fmt.Errorf("our new node %s belongs to session %s", lockPath, FormatSession(st.EphemeralOwner))
			case gerr == nil:
				return zk.Stat{}, zk.ErrNodeExists
			case errors.Is(gerr, zk.ErrNoNode):
				lastErr = zk.ErrNoNode
				continue // deleted meanwhile: try again
			}
			lastErr = gerr
		case errors.Is(err, zk.ErrNoNode):
			if perr := makeTakeParents(c, path.Dir(lockPath), false); perr != nil {
				return zk.Stat{}, perr
			}
			lastErr = err
		default:
			return zk.Stat{}, fmt.Errorf("create %s: %w", lockPath, err)
		}
	}
	return zk.Stat{}, fmt.Errorf("create %s: %w", lockPath, lastErr)
}

// planEphemeral decides a take of lockPath that concerns a plain ephemeral
// lock: the node there is ephemeral (only --recipe ephemeral can take it),
// or the operator asked for --recipe ephemeral (only a missing node or an
// ephemeral one can be taken so). decided is false for anything else.
func planEphemeral(ctx context.Context, c *zkview.Client, lockPath string, o TakeOptions, kids []string) (plan TakePlan, decided bool, err error) {
	asked := o.Library == Ephemeral
	no := func(format string, args ...any) (TakePlan, bool, error) {
		return TakePlan{}, true, Refusef(OpTake, lockPath, format, args...)
	}
	st, err := zkview.Call(ctx, func() (*zk.Stat, error) {
		_, st, err := c.Conn().Exists(c.Abs(lockPath))
		return st, err
	})
	if err != nil {
		return TakePlan{}, true, fmt.Errorf("take %s: %w", lockPath, err)
	}
	held := st.Czxid != 0 && st.EphemeralOwner != 0
	switch {
	case !held && !asked:
		return TakePlan{}, false, nil
	case held && o.Library != nil && !asked:
		return no("it is one ephemeral node (a plain ephemeral lock held by session %s): a %s node cannot be made under it; pass --recipe ephemeral", FormatSession(st.EphemeralOwner), o.Library)
	case o.Mode != "" && o.Mode != ModeExclusive:
		return no("plain ephemeral locks are exclusive only (asked for --mode %s): pass --mode exclusive", o.Mode)
	case !held && st.Czxid != 0 && len(kids) > 0:
		return no("it is a persistent node with %s below it, not a plain ephemeral lock: pass the --recipe of the queue there, or another path", Plural(len(kids), "child"))
	case !held && st.Czxid != 0:
		return no("it is a persistent node: as a plain ephemeral lock it would never be free; delete it first or pass another path")
	}
	plan = TakePlan{Path: lockPath, Library: Ephemeral, Mode: ModeExclusive, Kind: KindEphemeralLock}
	if held {
		plan.Existing = "an ephemeral node held by session " + FormatSession(st.EphemeralOwner)
		if !asked {
			plan.Why = "it is one ephemeral node: taking it as a plain ephemeral lock (create it, or wait with exists until it is deleted)"
		}
	}
	return plan, true, nil
}
