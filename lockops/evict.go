package lockops

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

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

// EvictPreview is what a force-delete of Node would do, for the operator's
// confirmation.
type EvictPreview struct {
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
	// HeldFor is how long the node has existed (the time it has held or
	// waited).
	HeldFor time.Duration
	// Recipe is the locks-json recipe name, "unknown" when the format is
	// not one zkscope takes locks in.
	Recipe string
	// Holding: the node holds the lock now (else it waits).
	Holding bool
	// NextHolders are the nodes that would hold the lock once Node is gone
	// and do not hold it now (nil when none or unknown).
	NextHolders []string
	// Warnings for the confirmation dialog, most important first.
	Warnings []string
	// Expect is what to pass to [Evict] to delete exactly this node.
	Expect Expect
}

// SequenceSuffix is the node's sequence number as written in its name
// ("0000000003"), or the whole name when it has none: what the CLI asks the
// operator to type to confirm.
func (p *EvictPreview) SequenceSuffix() string {
	name := path.Base(p.Node)
	if m := seqSuffixRE().FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return name
}

// seqSuffixRE finds a server sequence suffix: "%010d" of an int32, so ten
// characters ("0000000042", "-000000001") or "-2147483648".
var seqSuffixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(-2147483648|-\d{9}|\d{10})$`) })

// PreviewEvict reads node and its siblings and says whose node it is and
// what happens when it is deleted.
func PreviewEvict(ctx context.Context, c *zkview.Client, node string) (*EvictPreview, error) {
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
		return nil, fmt.Errorf("read %s: %w", node, err)
	}
	st := g.st
	p := &EvictPreview{
		Node: node, LockPath: path.Dir(node), Session: st.EphemeralOwner, Ephemeral: st.EphemeralOwner != 0,
		Data: g.data, Czxid: st.Czxid, Version: st.Version,
		Created: time.UnixMilli(st.Ctime), Recipe: "unknown",
		Expect: Expect{Session: st.EphemeralOwner, Czxid: st.Czxid, Version: st.Version},
	}
	p.HeldFor = time.Since(p.Created).Round(time.Second)
	if p.Ephemeral {
		if addr, ok := c.Introspect(ctx).ClientOf(p.Session); ok {
			p.Client = addr
		}
	}
	kids, err := zkview.Call(ctx, func() ([]string, error) {
		kids, _, err := c.Conn().Children(c.Abs(p.LockPath))
		return kids, err
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", p.LockPath, err)
	}
	name := path.Base(node)
	holdersBefore, r, ok := holdersOf(kids)
	if ok {
		p.Recipe = r
		p.Holding = holdersBefore[name]
		rest := make([]string, 0, len(kids))
		for _, k := range kids {
			if k != name {
				rest = append(rest, k)
			}
		}
		after, _, _ := holdersOf(rest)
		for _, k := range sortedNames(rest) {
			if after[k] && !holdersBefore[k] {
				p.NextHolders = append(p.NextHolders, zkview.Join(p.LockPath, k))
			}
		}
	}
	if p.Holding || !ok {
		p.Warnings = append(p.Warnings,
			"The holder is NOT told: if it is still running it will go on as if it held the lock, while the next waiter takes it too. Stop the holder first, or use revoke if it is revocable.")
	}
	if !ok {
		p.Warnings = append(p.Warnings, "zkscope does not know this lock format: who gets the lock next is unknown.")
	} else if p.Holding && len(p.NextHolders) == 0 {
		p.Warnings = append(p.Warnings, "Nobody is waiting: the lock becomes free.")
	}
	if !p.Ephemeral {
		p.Warnings = append(p.Warnings, "This is a PERSISTENT node: no session will ever remove it, deleting it is the only way to free it.")
	}
	return p, nil
}

// holdersOf decodes a directory's names with the recipe Decode detects
// and says which children hold the lock. ok is false for names of no lock
// recipe zkscope knows.
func holdersOf(kids []string) (map[string]bool, string, bool) {
	d := Dir{Children: make([]Child, len(kids))}
	for i, k := range kids {
		d.Children[i] = Child{Name: k}
	}
	q := Decode(d, DecodeOptions{})
	if q.Kind == KindUnknown {
		return nil, "", false
	}
	out := map[string]bool{}
	for _, p := range q.Participants {
		if p.State == StateHolding {
			out[p.Name] = true
		}
	}
	return out, string(q.Kind), true
}

func sortedNames(names []string) []string {
	out := append([]string(nil), names...)
	// Order by sequence suffix for a stable, readable list.
	key := func(s string) string {
		if m := seqSuffixRE().FindStringSubmatch(s); m != nil {
			return m[1]
		}
		return s
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && key(out[j]) < key(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Evict force-deletes node, but only if it still has the session and
// creation zxid the operator saw, conditioned on the version shown;
// otherwise nothing is deleted and a [*ChangedError] says what changed.
// The holder is not told (see [EvictPreview.Warnings]).
func Evict(ctx context.Context, c *zkview.Client, node string, want Expect) error {
	node = path.Clean(node)
	if c.Config().ReadOnly {
		err := fmt.Errorf("force-delete %s: %w", node, zkview.ErrReadOnly)
		record(c, OpForceDelete, node, nil, want.Session, err)
		return err
	}
	err := evict(ctx, c, node, want)
	var v *int32
	if !want.AnyVersion {
		v = versionPtr(want.Version)
	}
	record(c, OpForceDelete, node, v, want.Session, err)
	return err
}

func evict(ctx context.Context, c *zkview.Client, node string, want Expect) error {
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
		return &ChangedError{Node: node, What: "session", Want: FormatSession(want.Session), Got: FormatSession(st.EphemeralOwner)}
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
	return fmt.Errorf("force-delete %s: %w", node, err)
}
