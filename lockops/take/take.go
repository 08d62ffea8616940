// Package take takes and holds ZooKeeper locks in the libraries' own
// formats: the plan (plan.go: which library and mode, or a refusal,
// never a guess), joining the queue and waiting where [lockops.Decode]
// says the library waits (take.go, wait.go; a plain ephemeral lock:
// ephemeral.go), the held lock (held*.go: last contact, deadline; lost
// stays lost: lost.go) and its release. demo.go runs the demo's
// contenders on the same code.
//
// It reads lock directories through scan and decides with the recipe
// model; it imports nothing of ui or cmd.
package take

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/zkview"
)

// Options configure [Take].
type Options struct {
	// Library is the format to take the lock in; nil decides from the
	// contenders already there, else the locks next to it, else the
	// context's default_recipe, else refuses (see [PlanTake]).
	Library *lockops.Library
	Mode    lockops.Mode // default ModeExclusive
	// ForceRecipe takes in Library's format and Mode's lock type even when
	// the contenders already there are of another library or lock type
	// (which breaks mutual exclusion with them).
	ForceRecipe bool
	Wait        hold.WaitPolicy // default WaitBlock
	Timeout     time.Duration   // for WaitTimeout
	// Note is appended to the owner identity written as the node's data
	// ("user@host zkscope pid N: note").
	Note string
	// Notice, when set, receives the one-line reason for a choice the
	// operator did not make (the library of a lock with no contenders).
	Notice func(string)
	// Progress, when set, is called (from Take's goroutine) each time our
	// place in the queue or the node we wait on changes.
	Progress func(Progress)

	// unaudited keeps the demo's synthetic contenders out of the audit log.
	unaudited bool
}

// Progress reports where a waiting Take stands.
type Progress struct {
	Path     string // lock directory
	Node     string // our node (full path)
	Recipe   string // locks-json recipe name, e.g. "curator.mutex"
	Position int    // 0-based place in the library's order (messages add 1)
	QueueLen int    // contenders in that order
	// WaitingOn is the node we watch (full path); "" once we hold the lock.
	WaitingOn string
}

// Take joins the queue of the lock at lockPath in the library's exact
// znode format ([PlanTake] decides which, or refuses) and waits for the
// lock as that library would: list, order with its rule, watch the node
// it would watch, repeat. Our place is decoded by the same code as
// [lockops.Decode]'s, so what Take waits on is what `zkscope locks` shows. On
// timeout, WaitNone failure or ctx end our node is deleted again.
//
// The returned [Held] tracks whether the lock is still ours; call
// [Held.Release] to let go.
func Take(ctx context.Context, c *zkview.Client, lockPath string, o Options) (*Held, error) {
	lockPath = path.Clean(lockPath)
	if c.Config().ReadOnly {
		err := fmt.Errorf("take %s: %w", lockPath, zkview.ErrReadOnly)
		audit.Record(c, lockops.OpTake, lockPath, nil, 0, err)
		return nil, err
	}
	h, err := take(ctx, c, lockPath, o)
	if err != nil {
		err = explainLostPlace(c, lockPath, err)
	}
	if o.unaudited {
		if h != nil {
			h.unaudited = true
		}
		return h, err
	}
	if err != nil {
		node, session := "", int64(0)
		var te *takeError
		if errors.As(err, &te) {
			node, session = te.node, te.session
		}
		p := lockPath
		if node != "" {
			p = node
		}
		audit.Record(c, lockops.OpTake, p, nil, session, err)
		return nil, err
	}
	h.mu.Lock() // the monitor may already update the version
	v := h.version
	h.mu.Unlock()
	audit.Record(c, lockops.OpTake, h.Node, audit.VersionPtr(v), h.Session, nil)
	return h, nil
}

// takeError keeps the node and session of a failed take for the audit log.
type takeError struct {
	err     error
	node    string
	session int64
}

func (e *takeError) Error() string { return e.err.Error() }
func (e *takeError) Unwrap() error { return e.err }

func take(ctx context.Context, c *zkview.Client, lockPath string, o Options) (*Held, error) {
	if o.Wait == hold.WaitTimeout && o.Timeout <= 0 {
		o.Wait = hold.WaitNone
	}
	plan, err := PlanTake(ctx, c, lockPath, o)
	if err != nil {
		return nil, err
	}
	if plan.Why != "" && o.Notice != nil {
		o.Notice(plan.Why)
	}
	if plan.Kind == lockops.KindEphemeralLock {
		return joinEphemeral(ctx, c, plan, o) // ephemeral.go
	}
	return join(ctx, c, plan, o)
}

// join creates our node as plan says and waits for the lock: list, find
// our place with the library's rule, watch what it says, repeat.
func join(ctx context.Context, c *zkview.Client, plan Plan, o Options) (*Held, error) {
	w, cancel := newWaiter(ctx, c, plan, o)
	defer cancel()
	sub, unsub := c.Subscribe()
	defer unsub()
	node, st, err := createLockNode(w.ctx, c, plan, hold.OwnerData(o.Note))
	switch {
	case err != nil && w.ctx.Err() != nil:
		return nil, w.ctxErr("")
	case lockops.IsRefusal(err):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("take %s: %w", plan.Path, err)
	}
	w.node, w.st = node, st
	for {
		me, err := w.look()
		switch {
		case err != nil:
			return nil, err
		case me == nil:
			continue // in flight at a disconnect: look again
		case me.State == lockops.StateHolding:
			return newHeld(c, plan.Path, node, plan.Kind, plan.Mode, st), nil
		}
		if err := w.waitOn(*me, sub); err != nil {
			return nil, err
		}
	}
}

// waiter is one Take waiting in a queue: our node, what to report, and
// how to give up.
type waiter struct {
	c           *zkview.Client
	plan        Plan
	o           Options
	parent, ctx context.Context // the caller's, and bounded by the timeout
	node        string
	st          zk.Stat
	lastReport  Progress
	closedSince time.Time
}

// newWaiter is a waiter for plan whose context ends at o's timeout (when
// it has one); call cancel when done.
func newWaiter(ctx context.Context, c *zkview.Client, plan Plan, o Options) (w *waiter, cancel context.CancelFunc) {
	w = &waiter{c: c, plan: plan, o: o, parent: ctx, ctx: ctx, lastReport: Progress{Position: -2}}
	cancel = func() {}
	if o.Wait == hold.WaitTimeout {
		w.ctx, cancel = context.WithTimeout(ctx, o.Timeout)
	}
	return w, cancel
}

// report tells o.Progress where we stand, when it changed.
func (w *waiter) report(p Progress) {
	if w.o.Progress != nil && p != w.lastReport {
		w.o.Progress(p)
		w.lastReport = p
	}
}

// ctxErr tells a timeout from the caller's end.
func (w *waiter) ctxErr(waitingOn string) error {
	lockPath := w.plan.Path
	if w.parent.Err() == nil && w.ctx.Err() != nil {
		if waitingOn != "" {
			return fmt.Errorf("take %s: %w after %s (waiting on %s)", lockPath, hold.ErrTimeout, w.o.Timeout, waitingOn)
		}
		return fmt.Errorf("take %s: %w after %s", lockPath, hold.ErrTimeout, w.o.Timeout)
	}
	return fmt.Errorf("take %s: %w", lockPath, w.parent.Err())
}

// fail keeps our node and session with err for the audit log.
func (w *waiter) fail(err error) error {
	return &takeError{err: err, node: w.node, session: w.st.EphemeralOwner}
}

// giveUp deletes our node (Curator's behaviour on timeout) and says so.
func (w *waiter) giveUp(err error) error {
	if derr := deleteOwnNode(w.c, w.node, w.st.Czxid); derr != nil {
		err = fmt.Errorf("%w; and our node %s could not be deleted (%v): it goes away when this session ends", err, w.node, derr)
	}
	return w.fail(err)
}

// retryAfterClose paces retries after zk.ErrConnectionClosed (in flight
// at a disconnect, or the client was closed): nil to look again, an error
// after a session timeout of them.
func (w *waiter) retryAfterClose() error {
	if w.closedSince.IsZero() {
		w.closedSince = time.Now()
	}
	if time.Since(w.closedSince) > sessionTimeout(w.c) {
		return zk.ErrConnectionClosed
	}
	select {
	case <-w.ctx.Done():
		return w.ctx.Err()
	case <-time.After(100 * time.Millisecond):
		return nil
	}
}

// failed turns a failed request into Take's error: nil (and no
// participant) when it should simply be tried again.
func (w *waiter) failed(err error, what, waitingOn string) error {
	switch {
	case w.ctx.Err() != nil:
		return w.giveUp(w.ctxErr(waitingOn))
	case errors.Is(err, zk.ErrConnectionClosed) && w.retryAfterClose() == nil:
		return nil
	}
	return w.giveUp(fmt.Errorf("take %s: %s: %w", w.plan.Path, what, err))
}

// look lists the queue and finds our place in it with the library's rule
// (the decoder Decode uses), reporting progress. A nil participant and
// error: look again.
func (w *waiter) look() (*lockops.Participant, error) {
	lockPath, name, session := w.plan.Path, path.Base(w.node), w.st.EphemeralOwner
	kids, err := zkview.Call(w.ctx, func() ([]string, error) {
		kids, _, err := w.c.Conn().Children(w.c.Abs(lockPath))
		return kids, err
	})
	var me lockops.Participant
	var qlen int
	found := false
	if err == nil {
		me, qlen, found, err = ourPlace(w.plan.takeKind(kids), lockPath, kids, name, session, w.ownerOf)
	}
	if err != nil {
		return nil, w.failed(err, "list children", "")
	}
	w.closedSince = time.Time{}
	if !found {
		return nil, w.fail(fmt.Errorf("take %s: our node %s vanished while waiting (session expired or node deleted by someone): %w", lockPath, name, hold.ErrLost))
	}
	if me.State == lockops.StateWaiting && me.Watches == "" {
		return nil, w.giveUp(fmt.Errorf("take %s: %s's rule gives our node nothing to wait on (see `zkscope doctor %s`): giving up", lockPath, w.plan.Library, lockPath))
	}
	if me.State == lockops.StateWaiting && w.o.Wait == hold.WaitNone {
		return nil, w.giveUp(fmt.Errorf("take %s: %w (we would wait on %s)", lockPath, hold.ErrWouldBlock, me.Watches))
	}
	w.report(Progress{Path: lockPath, Node: w.node, Recipe: string(w.plan.Kind), Position: me.Position, QueueLen: qlen, WaitingOn: me.Watches})
	return &me, nil
}

// ownerOf reads the session owning a node of the queue (0 when gone).
func (w *waiter) ownerOf(name string) (int64, error) {
	st, err := zkview.Call(w.ctx, func() (*zk.Stat, error) {
		_, st, err := w.c.Conn().Get(w.c.Abs(zkview.Join(w.plan.Path, name)))
		return st, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return st.EphemeralOwner, nil
}

// createLockNode creates our EPHEMERAL_SEQUENTIAL node (and the missing
// parents: containers for Curator, persistent otherwise) and reads its stat.
// A create whose reply was lost to a disconnect is found again by its unique
// prefix, as the libraries' protected mode does. If ctx ends while the
// create is in flight, the node is deleted once it appears.
func createLockNode(ctx context.Context, c *zkview.Client, plan Plan, data []byte) (string, zk.Stat, error) {
	lockPath, f := plan.Path, plan.Library.Format
	prefix := f.NewPrefix(f.Marker(plan.Mode))
	type result struct {
		node string
		st   zk.Stat
		err  error
	}
	done := make(chan result, 1)
	go func() {
		node, st, err := createProtected(c, lockPath, prefix, data, f.ContainerParents)
		done <- result{node, st, err}
	}()
	select {
	case res := <-done:
		return res.node, res.st, res.err
	case <-ctx.Done():
		go func() {
			if res := <-done; res.err == nil {
				deleteOwnNode(c, res.node, res.st.Czxid)
			}
		}()
		return "", zk.Stat{}, ctx.Err()
	}
}

func createProtected(c *zkview.Client, lockPath, prefix string, data []byte, containers bool) (string, zk.Stat, error) {
	conn := c.Conn()
	absDir := c.Abs(lockPath)
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		created, err := conn.Create(absDir+"/"+prefix, data, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		switch {
		case err == nil:
		case errors.Is(err, zk.ErrNoNode):
			if perr := makeTakeParents(c, lockPath, containers); perr != nil {
				return "", zk.Stat{}, perr
			}
			lastErr = err
			continue // a container parent may vanish again before we create in it
		case errors.Is(err, zk.ErrConnectionClosed):
			lastErr = err
			kids, _, lerr := conn.Children(absDir)
			if lerr != nil {
				continue
			}
			created = ""
			for _, k := range kids {
				if strings.HasPrefix(k, prefix) {
					created = absDir + "/" + k
				}
			}
			if created == "" {
				continue
			}
		default:
			return "", zk.Stat{}, fmt.Errorf("create lock node in %s: %w", lockPath, audit.Denied(c, lockPath, zk.PermCreate, err))
		}
		_, st, err := conn.Get(created)
		if err != nil {
			return "", zk.Stat{}, fmt.Errorf("read our new lock node %s: %w", c.Rel(created), err)
		}
		return c.Rel(created), *st, nil
	}
	return "", zk.Stat{}, fmt.Errorf("create lock node in %s: %w", lockPath, lastErr)
}

// makeTakeParents creates every missing node of dir for a take, none of
// them inside a lock directory ([guardCreate]).
func makeTakeParents(c *zkview.Client, dir string, containers bool) error {
	if err := guardCreate(c, dir); err != nil {
		return err
	}
	if err := makeParents(c.Conn(), c.Abs(dir), containers); err != nil {
		return fmt.Errorf("create parents of %s: %w", dir, err)
	}
	return nil
}

// makeParents creates every missing node of abs (an absolute server path),
// as containers or persistent nodes; nodes created meanwhile by others are
// fine.
func makeParents(conn *zk.Conn, abs string, containers bool) error {
	parts := strings.Split(strings.Trim(abs, "/"), "/")
	cur := ""
	for _, p := range parts {
		cur += "/" + p
		var err error
		if containers {
			_, err = conn.CreateContainer(cur, nil, zk.FlagContainer, zk.WorldACL(zk.PermAll))
		} else {
			_, err = conn.Create(cur, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll))
		}
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", cur, err)
		}
	}
	return nil
}

// guardCreate refuses to create the node p, or the missing nodes above
// it, inside a lock directory (scan.EnclosingLock): only that lock's recipe
// makes nodes there. The take's planner refuses such a path first; this
// is the last check before any create other than our own lock node's, so
// that no path, planned or not, forges a participant of someone's lock.
func guardCreate(c *zkview.Client, p string) error {
	ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout(c))
	defer cancel()
	return insideLock(ctx, c, lockops.OpTake, p)
}

// deleteOwnNode deletes a node we created, provided it is still that node
// (same czxid), bounded in time: while disconnected the request waits for
// the reconnect.
func deleteOwnNode(c *zkview.Client, node string, czxid int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout(c))
	defer cancel()
	_, err := zkview.Call(ctx, func() (struct{}, error) {
		_, st, err := c.Conn().Get(c.Abs(node))
		if err != nil {
			return struct{}{}, err
		}
		if st.Czxid != czxid {
			return struct{}{}, fmt.Errorf("%s is a different node now (czxid 0x%x, ours was 0x%x)", node, st.Czxid, czxid)
		}
		return struct{}{}, c.Conn().Delete(c.Abs(node), st.Version)
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}

// sessionTimeout is the session timeout the client asked for (the server
// may have negotiated a different one; go-zookeeper does not expose it).
func sessionTimeout(c *zkview.Client) time.Duration {
	if t := c.Config().SessionTimeout; t > 0 {
		return t
	}
	return 10 * time.Second
}
