// Package evict breaks locks on purpose: force-deleting a participant's
// node after a preview of what follows ([PreviewEvict], [Evict]: only
// while the node is what the operator saw; a system's leader only with
// --force-leader), asking a Curator holder to let go ([Revoke]), and every
// lock node of one session (evict --session: [PlanSession]). Every
// action and refusal is audited.
//
// It reads the lock a node belongs to through scan and decodes it with
// the recipe model; it imports nothing of ui or cmd.
package evict

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/zkview"
)

// Expect is what the operator saw of a node before confirming a
// force-delete. [Evict] deletes only if the node still matches it.
type Expect struct {
	// Session is the ephemeralOwner shown (0 for a persistent node).
	Session int64
	// Czxid is the creation zxid shown (0: not checked). A node deleted and
	// re-created under the same name has a new czxid.
	Czxid int64
	// Version is the data version shown; the delete is conditioned on it.
	Version int32
	// AnyVersion skips the version condition (scripts that only know the
	// session).
	AnyVersion bool
}

// ChangedError says why [Evict] deleted nothing: the node is not what the
// operator confirmed.
type ChangedError struct {
	Node string
	What string // "gone", "session", "czxid", "version"
	Want string
	Got  string
}

func (e *ChangedError) Error() string {
	if e.What == "gone" {
		return fmt.Sprintf("nothing deleted: %s no longer exists (its holder released it or its session ended)", e.Node)
	}
	return fmt.Sprintf("nothing deleted: %s changed since it was shown: %s is now %s, was %s", e.Node, e.What, e.Got, e.Want)
}

// Preview is what a force-delete of Node would do, for the operator's
// confirmation.
type Preview struct {
	Node      string
	LockPath  string // the lock directory (Node's parent)
	Session   int64  // ephemeralOwner (0: persistent node)
	Ephemeral bool
	// Client is the owner session's address from the servers' connection
	// lists; "" when unknown.
	Client  string
	Data    []byte
	Czxid   int64
	Version int32
	Created time.Time
	// HeldFor is how long the node has existed: its age (a waiter has
	// waited that long; a holder may have held for less).
	HeldFor time.Duration
	// Recipe is the decoded recipe ([lockops.Kind]) of the lock Node takes part
	// in, "unknown" when it is no participant of a recognised lock.
	Recipe string
	// Participant: Node takes part in a lock zkscope recognises (else it
	// was previewed with [Options.AnyNode]).
	Participant bool
	// Holding: the node holds the lock now (else it waits).
	Holding bool
	// NextHolders are the nodes that would hold the lock once Node is gone
	// and do not hold it now (nil when none or unknown).
	NextHolders []string
	// Racers are the sessions that watch a single-node lock's node without
	// a node of their own (from the servers' watch lists): they race to
	// create it once it is gone, so who gets it next is not known.
	Racers int
	// Warnings for the confirmation dialog, most important first.
	Warnings []string
	// Expect is what to pass to [Evict] to delete exactly this node.
	Expect Expect
}

// SequenceSuffix is the node's sequence number as written in its name
// ("0000000003"), or the whole name when it has none: what the CLI asks the
// operator to type to confirm.
func (p *Preview) SequenceSuffix() string {
	name := path.Base(p.Node)
	if m := seqSuffixRE().FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return name
}

// seqSuffixRE finds a server sequence suffix: "%010d" of an int32, so ten
// characters ("0000000042", "-000000001") or "-2147483648".
var seqSuffixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(-2147483648|-\d{9}|\d{10})$`) })

// Options tune [PreviewEvict] and [Evict].
type Options struct {
	// AnyNode allows force-deleting a node that is no participant of a
	// lock zkscope recognises (`zkscope evict --any-node`); without it
	// such a node is refused.
	AnyNode bool
	// ForceLeader allows force-deleting the leader node of a system's
	// election (Kafka's controller, HDFS's active lock, HBase's master,
	// Solr's overseer: `zkscope evict --force-leader`); without it the
	// leader is refused ([leaderRefusal]).
	ForceLeader bool
}

// PreviewEvict reads node and its lock and says whose node it is and what
// happens when it is deleted. A node that is no participant of a
// recognised lock ([lockops.Decode]) is refused (audited) unless o.AnyNode.
func PreviewEvict(ctx context.Context, c *zkview.Client, node string, o Options) (*Preview, error) {
	node = path.Clean(node)
	abs := c.Abs(node)
	type got struct {
		data []byte
		st   *zk.Stat
	}
	g, err := zkview.Call(ctx, func() (got, error) {
		data, st, err := c.Conn().Get(abs)
		return got{data, st}, err
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", node, zkview.Explain(err))
	}
	st := g.st
	l, err := readNodeLock(ctx, c, node)
	if err != nil {
		return nil, fmt.Errorf("read the lock of %s: %w", node, err)
	}
	part, ok := l.participant()
	if !ok && !o.AnyNode {
		err := lockops.Refusef(lockops.OpForceDelete, node, "%s; pass --any-node to delete it anyway", notLockNode(l))
		audit.Record(c, lockops.OpForceDelete, node, nil, st.EphemeralOwner, err)
		return nil, err
	}
	if err := leaderRefusal(l, o); err != nil {
		audit.Record(c, lockops.OpForceDelete, node, nil, st.EphemeralOwner, err)
		return nil, err
	}
	p := &Preview{
		Node: node, LockPath: path.Dir(node), Session: st.EphemeralOwner, Ephemeral: st.EphemeralOwner != 0,
		Data: g.data, Czxid: st.Czxid, Version: st.Version,
		Created: time.UnixMilli(st.Ctime), Recipe: string(lockops.KindUnknown), Participant: ok,
		Expect: Expect{Session: st.EphemeralOwner, Czxid: st.Czxid, Version: st.Version},
	}
	p.HeldFor = time.Since(p.Created).Round(time.Second)
	if p.Ephemeral {
		e := c.Introspect(ctx)
		if addr, ok := e.ClientOf(p.Session); ok {
			p.Client = addr
		}
		p.Racers = racers(e, l.queue)
	}
	if ok {
		p.Recipe = string(l.queue.Kind)
		p.Holding = part.State == lockops.StateHolding
		p.NextHolders = nextHolders(l.queue, l.without())
		if k := l.queue.Kind; k.SingleNode() || k.SystemElection() {
			p.LockPath = l.queue.Path
		}
	}
	p.Warnings = evictWarnings(p, part)
	return p, nil
}

// nextHolders are the nodes holding in after that do not hold in before,
// in after's order.
func nextHolders(before, after lockops.Queue) []string {
	held := map[string]bool{}
	for _, x := range before.Participants {
		if x.State == lockops.StateHolding {
			held[x.Node] = true
		}
	}
	var out []string
	for _, x := range after.Participants {
		if x.State == lockops.StateHolding && !held[x.Node] {
			out = append(out, x.Node)
		}
	}
	return out
}

// evictWarnings are the warnings of a preview, most important first; part
// is the node as decoded (zero when it is no participant).
func evictWarnings(p *Preview, part lockops.Participant) []string {
	var w []string
	if k := lockops.Kind(p.Recipe); p.Holding && (k.SingleNode() || k.SystemElection()) {
		w = append(w, "This is the "+lockops.LeaderWord(k)+"'s node: deleting it starts a new election. "+capitalize(lockops.NextElection(k))+".")
	}
	if p.Holding || !p.Participant {
		w = append(w,
			"The holder is NOT told: if it is still running it will go on as if it held the lock, while the next waiter takes it too. Stop the holder first, or use revoke if it is revocable.")
	}
	switch {
	case !p.Participant:
		w = append(w, "zkscope does not know this node as part of a lock: who gets the lock next is unknown.")
	case part.Mode == lockops.ModeStray:
		w = append(w, "This is no lock node, but "+p.Recipe+" counts it in its queue: the contender after it waits on it.")
	case p.Holding && p.Racers > 0:
		w = append(w, fmt.Sprintf("%s watch it and race to create it: which one wins is not known in advance.", lockops.Plural(p.Racers, "session")))
	case p.Holding && len(p.NextHolders) == 0:
		w = append(w, "Nobody is waiting: the lock becomes free.")
	}
	if !p.Ephemeral {
		w = append(w, "This is a PERSISTENT node: no session will ever remove it, deleting it is the only way to free it.")
	}
	return w
}

// Evict force-deletes node, but only if it still has the session and
// creation zxid the operator saw, conditioned on the version shown;
// otherwise nothing is deleted and a [*ChangedError] says what changed.
// Like [PreviewEvict] it refuses a node that is no participant of a
// recognised lock unless o.AnyNode. The holder is not told (see
// [Preview.Warnings]).
func Evict(ctx context.Context, c *zkview.Client, node string, want Expect, o Options) error {
	node = path.Clean(node)
	if c.Config().ReadOnly {
		err := fmt.Errorf("force-delete %s: %w", node, zkview.ErrReadOnly)
		audit.Record(c, lockops.OpForceDelete, node, nil, want.Session, err)
		return err
	}
	err := evict(ctx, c, node, want, o)
	var v *int32
	if !want.AnyVersion {
		v = audit.VersionPtr(want.Version)
	}
	audit.Record(c, lockops.OpForceDelete, node, v, want.Session, err)
	return err
}

func evict(ctx context.Context, c *zkview.Client, node string, want Expect, o Options) error {
	if !o.AnyNode {
		if err := mustBeParticipant(ctx, c, node); err != nil {
			return err
		}
	}
	if !o.ForceLeader {
		l, err := readNodeLock(ctx, c, node)
		if err != nil {
			return fmt.Errorf("force-delete %s: read its lock: %w", node, err)
		}
		if err := leaderRefusal(l, o); err != nil {
			return err
		}
	}
	abs := c.Abs(node)
	st, err := zkview.Call(ctx, func() (*zk.Stat, error) {
		_, st, err := c.Conn().Get(abs)
		return st, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return &ChangedError{Node: node, What: "gone"}
	}
	if err != nil {
		return fmt.Errorf("force-delete %s: read it: %w", node, err)
	}
	if st.EphemeralOwner != want.Session {
		return &ChangedError{Node: node, What: "session", Want: lockops.FormatSession(want.Session), Got: lockops.FormatSession(st.EphemeralOwner)}
	}
	if want.Czxid != 0 && st.Czxid != want.Czxid {
		return &ChangedError{Node: node, What: "czxid (it was deleted and re-created)", Want: fmt.Sprintf("0x%x", want.Czxid), Got: fmt.Sprintf("0x%x", st.Czxid)}
	}
	version := want.Version
	if want.AnyVersion {
		version = st.Version
	}
	_, err = zkview.Call(ctx, func() (struct{}, error) {
		return struct{}{}, c.Conn().Delete(abs, version)
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, zk.ErrNoNode):
		return &ChangedError{Node: node, What: "gone"}
	case errors.Is(err, zk.ErrBadVersion):
		got := "unknown"
		if _, nst, gerr := c.Conn().Get(abs); gerr == nil {
			got = fmt.Sprint(nst.Version)
		}
		return &ChangedError{Node: node, What: "data version", Want: fmt.Sprint(version), Got: got}
	}
	return fmt.Errorf("force-delete %s: %w", node, audit.Denied(c, path.Dir(node), zk.PermDelete, err))
}

// mustBeParticipant returns a [*lockops.Refusal] when node is no participant of a
// recognised lock, a [*ChangedError] when it is gone.
func mustBeParticipant(ctx context.Context, c *zkview.Client, node string) error {
	l, err := readNodeLock(ctx, c, node)
	if err != nil {
		return fmt.Errorf("force-delete %s: read its lock: %w", node, err)
	}
	if _, ok := l.participant(); ok {
		return nil
	}
	if err := mustExist(ctx, c, node); errors.Is(err, zk.ErrNoNode) {
		return &ChangedError{Node: node, What: "gone"}
	} else if err != nil {
		return fmt.Errorf("force-delete %s: %w", node, err)
	}
	return lockops.Refusef(lockops.OpForceDelete, node, "%s; pass --any-node to delete it anyway", notLockNode(l))
}

// capitalize upper-cases s's first letter (ASCII).
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
