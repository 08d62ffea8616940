package take

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

// Plan is how [Take] joins a lock's queue: in which library's format
// and recipe, and why that library. [PlanTake] makes it without writing
// anything.
type Plan struct {
	Path    string
	Library *lockops.Library
	Mode    lockops.Mode
	// Kind is the recipe our node makes ("curator.mutex", "kazoo.rwlock").
	Kind lockops.Kind
	// Why says in one line how the library was chosen when the operator
	// did not name it, or what the operator must know about joining this
	// queue; "" when there is nothing to say.
	Why string
	// Existing describes the contenders already in the directory
	// ("3 kazoo.lock nodes"); "" when there are none.
	Existing string
}

// neighbourLimit bounds how many sibling lock directories [PlanTake]
// reads to find which library the applications use.
const neighbourLimit = 256

// PlanTake decides how [Take] would join the lock at lockPath, reading the
// directory (and, when it has no contenders, the directories next to it)
// but writing nothing. It never guesses: when the library is not given,
// not shown by contenders or by the locks next to it, and the context has
// no default_recipe, and when the request contradicts the contenders
// already there, it returns a [*lockops.Refusal] naming the flag that decides. A
// path inside another lock's directory ([scan.EnclosingLock]) is refused too,
// naming that lock.
func PlanTake(ctx context.Context, c *zkview.Client, lockPath string, o Options) (Plan, error) {
	lockPath = path.Clean(lockPath)
	if lockPath == "/" || !strings.HasPrefix(lockPath, "/") {
		return Plan{}, fmt.Errorf("take %s: a lock path must be an absolute path below /", lockPath)
	}
	if err := insideLock(ctx, c, lockops.OpTake, lockPath); err != nil {
		return Plan{}, err // a participant's node: never a lock of its own
	}
	kids, err := listOrNone(ctx, c, lockPath)
	if err != nil {
		return Plan{}, fmt.Errorf("take %s: list children: %w", lockPath, err)
	}
	if plan, decided, err := planEphemeral(ctx, c, lockPath, o, kids); decided {
		return plan, err // a plain ephemeral lock (ephemeral.go)
	}
	look := func() (neighbourhood, error) { return readNeighbours(ctx, c, lockPath) }
	return planTake(lockPath, o, kids, look, c.Config().DefaultRecipe)
}

// listOrNone lists p's children; a missing p has none.
func listOrNone(ctx context.Context, c *zkview.Client, p string) ([]string, error) {
	return zkview.Call(ctx, func() ([]string, error) {
		kids, _, err := c.Conn().Children(c.Abs(p))
		if errors.Is(err, zk.ErrNoNode) {
			return nil, nil
		}
		return kids, err
	})
}

// neighbourhood is what the directories next to a lock say about the
// library the applications use.
type neighbourhood struct {
	libs      []*lockops.Library // libraries of the contenders there, in [lockops.Libraries] order
	dirs      int                // sibling directories with contenders
	semaphore string             // non-empty: the lock path is a semaphore of this recipe
}

// readNeighbours reads the lock directory's siblings (at most
// neighbourLimit of them) and the libraries of their contenders.
func readNeighbours(ctx context.Context, c *zkview.Client, lockPath string) (neighbourhood, error) {
	var n neighbourhood
	parent, base := path.Dir(lockPath), path.Base(lockPath)
	sibs, err := listOrNone(ctx, c, parent)
	if err != nil {
		return n, fmt.Errorf("list %s: %w", parent, err)
	}
	if slices.Contains(sibs, base+lockops.KazooSemaphoreLock) {
		n.semaphore = string(lockops.KindKazooSemaphore)
	}
	sibs = slices.DeleteFunc(sibs, func(s string) bool { return s == base })
	slices.Sort(sibs)
	sibs = sibs[:min(len(sibs), neighbourLimit)]
	found := make([][]*lockops.Library, len(sibs))
	err = scan.ForEach(ctx, len(sibs), func(i int) error {
		kids, err := listOrNone(ctx, c, zkview.Join(parent, sibs[i]))
		if err != nil {
			return fmt.Errorf("list %s: %w", zkview.Join(parent, sibs[i]), err)
		}
		cen := lockops.CensusOfNames(kids)
		found[i] = cen.Present()
		return nil
	})
	if err != nil {
		return n, err
	}
	for _, libs := range found {
		if len(libs) > 0 {
			n.dirs++
		}
		for _, l := range libs {
			if !slices.Contains(n.libs, l) {
				n.libs = append(n.libs, l)
			}
		}
	}
	slices.SortFunc(n.libs, func(a, b *lockops.Library) int {
		return slices.Index(lockops.Libraries, a) - slices.Index(lockops.Libraries, b)
	})
	return n, nil
}

// planTake is [PlanTake] over what was read: the lock directory's
// children, a way to look at its neighbours (called only when needed),
// and the context's default_recipe.
func planTake(lockPath string, o Options, kids []string, look func() (neighbourhood, error), defaultRecipe string) (Plan, error) {
	mode := o.Mode
	if mode == "" {
		mode = lockops.ModeExclusive
	}
	no := func(format string, args ...any) (Plan, error) {
		return Plan{}, lockops.Refusef(lockops.OpTake, lockPath, format, args...)
	}
	if o.Library != nil && !o.Library.Takes() {
		return no("zkscope does not take locks in %s's format", o.Library)
	}
	if slices.Contains(kids, lockops.CuratorLeases) && slices.Contains(kids, lockops.CuratorLocks) {
		return no("it is a Curator semaphore (locks/ and leases/): zkscope does not take semaphore leases")
	}
	cen := lockops.CensusOfNames(kids)
	if present := cen.Present(); len(present) > 0 {
		return planJoin(lockPath, o, mode, cen)
	}
	plan := Plan{Path: lockPath, Library: o.Library, Mode: mode}
	if plan.Library == nil {
		n, err := look()
		if err != nil {
			return Plan{}, fmt.Errorf("take %s: no contenders yet, and the locks next to it could not be read: %w", lockPath, err)
		}
		if n.semaphore != "" {
			return no("it is a %s (a %s-__lock__ queue is next to it): zkscope does not take semaphore leases", n.semaphore, path.Base(lockPath))
		}
		var why string
		if plan.Library, why = chooseLibrary(n, defaultRecipe); plan.Library == nil {
			_, err := no("%s: pass --recipe curator, --recipe kazoo or --recipe go-zk (or set default_recipe in the context)", why)
			err.(*lockops.Refusal).Undecided = why
			return Plan{}, err
		}
		plan.Why = why
	}
	kind, ok := plan.Library.Format.Kinds[mode]
	if !ok {
		return no("%s locks are exclusive only (asked for --mode %s): pass --mode exclusive", plan.Library, mode)
	}
	plan.Kind = kind
	return plan, nil
}

// chooseLibrary picks the library for a lock with no contenders: the one
// every lock next to it uses, else the context's default_recipe. It says
// why in one line, or why none could be chosen (a nil library).
func chooseLibrary(n neighbourhood, defaultRecipe string) (*lockops.Library, string) {
	var seen string
	switch {
	case len(n.libs) == 1 && n.libs[0].Takes():
		l := n.libs[0]
		return l, fmt.Sprintf("no contenders yet; the %s next to it use%s %s: taking in %s's format", lockops.Plural(n.dirs, "lock"), singularS(n.dirs), l, l)
	case len(n.libs) == 1:
		seen = fmt.Sprintf("; the locks next to it use %s, which zkscope does not take", n.libs[0])
	case len(n.libs) > 1:
		names := make([]string, len(n.libs))
		for i, l := range n.libs {
			names[i] = l.String()
		}
		seen = fmt.Sprintf("; the locks next to it do not agree (%s)", strings.Join(names, ", "))
	default:
		seen = "; no lock next to it has contenders either"
	}
	if defaultRecipe != "" {
		l, err := lockops.ParseLibrary(defaultRecipe)
		if err != nil {
			return nil, fmt.Sprintf("the context's default_recipe: %v", err)
		}
		return l, fmt.Sprintf("no contenders yet%s: taking in %s's format, the context's default_recipe", seen, l)
	}
	return nil, "no contenders to tell which library the applications use" + seen
}

// planJoin is the plan for a directory that already has contenders: their
// library and lock type decide, and an explicit --recipe or --mode that
// contradicts them is refused unless forced.
func planJoin(lockPath string, o Options, mode lockops.Mode, cen lockops.Census) (Plan, error) {
	no := func(format string, args ...any) (Plan, error) {
		return Plan{}, lockops.Refusef(lockops.OpTake, lockPath, format, args...)
	}
	present := cen.Present()
	there := describeContenders(cen)
	lib := o.Library
	switch {
	case lib == nil && len(present) > 1:
		return no("it holds %s: pass --recipe to choose whose queue to join, with --force-recipe", there)
	case lib == nil:
		lib = present[0]
		if !lib.Takes() {
			return no("it holds %s, a format zkscope reads but does not take", there)
		}
	case !o.ForceRecipe && (len(present) > 1 || present[0] != lib):
		other := present[0]
		if other == lib {
			other = present[1]
		}
		return no("it holds %s: a %s node would not exclude them; pass --recipe %s, or --force-recipe to take in %s's format anyway", there, lib, other.Name, lib)
	}
	plan := Plan{Path: lockPath, Library: lib, Mode: mode, Existing: there}
	kind, ok := lib.Format.Kinds[mode]
	if !ok {
		return no("%s locks are exclusive only (asked for --mode %s): pass --mode exclusive", lib, mode)
	}
	plan.Kind = kind
	if o.ForceRecipe || cen.Count[lib] == 0 {
		return plan, nil
	}
	existing := cen.KindOf(lib)
	if why := modeConflict(existing, kind, mode); why != "" {
		return no("it holds %s: %s (or --force-recipe)", there, why)
	}
	if existing == lockops.KindKazooLock && mode == lockops.ModeRead {
		// __lock__ nodes are a WriteLock's or a Lock's: the names do not
		// tell. A WriteLock's writers wait for our reader; a Lock would not.
		plan.Why = "its contenders are kazoo __lock__ nodes: kazoo's WriteLock counts this reader, but a kazoo Lock ignores readers"
	}
	return plan, nil
}

// modeConflict says why joining a directory of recipe there as recipe ours
// (in mode) would break its clients' exclusion, "" when it would not.
func modeConflict(there, ours lockops.Kind, mode lockops.Mode) string {
	switch {
	case there == ours:
		return ""
	case there == lockops.KindKazooRW && ours == lockops.KindKazooLock:
		return "" // an exclusive kazoo node is a WriteLock node: readers count
	case there == lockops.KindKazooLock:
		return "" // WriteLock nodes look like Lock nodes (see planJoin)
	case there == lockops.KindCuratorRW:
		return "a Curator read/write lock takes read or write nodes only; pass --mode read or --mode write"
	case there == lockops.KindCuratorMutex:
		return "a Curator mutex ignores read/write nodes' roles; pass --mode exclusive"
	}
	return fmt.Sprintf("zkscope takes %s, not %s; pass --recipe for another lock", ours, there)
}

// describeContenders is "3 kazoo.lock nodes" or "2 Curator and 1 kazoo
// nodes".
func describeContenders(cen lockops.Census) string {
	present := cen.Present()
	if len(present) == 1 {
		l := present[0]
		return lockops.Plural(cen.Count[l], string(cen.KindOf(l))+" node")
	}
	parts := make([]string, len(present))
	for i, l := range present {
		parts[i] = fmt.Sprintf("%d %s", cen.Count[l], l)
	}
	return strings.Join(parts, " and ") + " nodes"
}

// takeKind is the recipe the queue is decoded as while we wait in it: what
// [lockops.Decode] makes of the directory for our library (its census, our node
// included), unless we were forced into another of that library's recipes.
func (p Plan) takeKind(names []string) lockops.Kind {
	cen := lockops.CensusOfNames(names)
	k := cen.KindOf(p.Library)
	if k == p.Kind || p.Library == lockops.Kazoo {
		return k // kazoo: a Lock or a WriteLock node, decoded as Decode does
	}
	return p.Kind
}

// ourPlace is where our node stands in the queue, decoded from the names
// listed now by the same decoder [lockops.Decode] uses: its participant (state,
// position, watch target) and the queue's length. Only our own node's
// owner is known from the listing; when the library's rule depends on
// another node's owner (a Curator read lock held by the writer's session,
// a downgrade), ownerOf reads it.
func ourPlace(k lockops.Kind, lockPath string, names []string, own string, session int64, ownerOf func(name string) (int64, error)) (lockops.Participant, int, bool, error) {
	kids := make([]lockops.Child, len(names))
	at := -1
	for i, n := range names {
		kids[i] = lockops.Child{Name: n, Path: zkview.Join(lockPath, n)}
		if n == own {
			kids[i].Owner, at = session, i
		}
	}
	if at < 0 {
		return lockops.Participant{}, 0, false, nil
	}
	d := lockops.Dir{Path: lockPath, Children: kids}
	q := lockops.DecodeAs(d, k, lockops.DecodeOptions{})
	me := findParticipant(q, own)
	if me < 0 {
		return lockops.Participant{}, len(q.Participants), false, nil
	}
	p := q.Participants[me]
	if k == lockops.KindCuratorRW && p.Mode == lockops.ModeRead && p.State == lockops.StateWaiting && q.Participants[0].Mode == lockops.ModeWrite {
		first := q.Participants[0].Name
		owner, err := ownerOf(first)
		if err != nil {
			return lockops.Participant{}, 0, false, err
		}
		if owner == session {
			kids[slices.Index(names, first)].Owner = owner
			q = lockops.DecodeAs(d, k, lockops.DecodeOptions{})
			p = q.Participants[findParticipant(q, own)]
		}
	}
	return p, len(q.Participants), true, nil
}

func findParticipant(q lockops.Queue, name string) int {
	for i := range q.Participants {
		if q.Participants[i].Name == name {
			return i
		}
	}
	return -1
}

// insideLock refuses op on p when p is (or would be created) inside a lock
// directory ([scan.EnclosingLock]), naming that directory; nil otherwise.
func insideLock(ctx context.Context, c *zkview.Client, op, p string) error {
	dir, kind, sem, err := scan.EnclosingLock(ctx, c, p)
	switch {
	case err != nil:
		return fmt.Errorf("%s %s: %w", op, p, err)
	case dir == "":
		return nil
	case sem != "":
		return lockops.Refusef(op, p, "it is inside the %s %s, where every node is one of its participants, not a lock of its own: zkscope does not take semaphore leases", kind, sem)
	}
	return lockops.Refusef(op, p, "it is inside the %s %s, where every node is a participant of that lock, not a lock of its own: did you mean %s?", kind, dir, dir)
}

// singularS is the "s" of a verb whose subject is n things ("1 lock uses").
func singularS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}
