package lockops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// WaitPolicy says how long Take waits for the lock.
type WaitPolicy int

const (
	// WaitBlock waits until the lock is ours or ctx ends.
	WaitBlock WaitPolicy = iota
	// WaitTimeout waits at most TakeOptions.Timeout.
	WaitTimeout
	// WaitNone fails at once with ErrWouldBlock when someone else holds it.
	WaitNone
)

var (
	// ErrTimeout: the lock was not acquired within the timeout; our node was
	// deleted again (as Curator does).
	ErrTimeout = errors.New("timed out waiting for the lock")
	// ErrWouldBlock: the lock is held by someone else and the caller asked
	// not to wait; our node was deleted again.
	ErrWouldBlock = errors.New("the lock is held by someone else")
	// ErrLost: the lock (or our place in its queue) is gone: the session
	// expired or was replaced, or our node was deleted by someone else.
	ErrLost = errors.New("lock lost")
)

// TakeOptions configure [Take].
type TakeOptions struct {
	Recipe  Recipe        // default RecipeAuto
	Mode    Mode          // default ModeExclusive
	Wait    WaitPolicy    // default WaitBlock
	Timeout time.Duration // for WaitTimeout
	// Note is appended to the owner identity written as the node's data
	// ("user@host zkscope pid N: note").
	Note string
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
	Position int    // 0-based place in the library's order
	QueueLen int    // contenders in that order
	// WaitingOn is the node we watch (full path); "" once we hold the lock.
	WaitingOn string
}

// OwnerData is the data zkscope writes into its lock nodes: who took the
// lock, readable in any tool ("alice@build7 zkscope pid 4242: deploy").
func OwnerData(note string) []byte {
	u, h := whoAmI()
	s := fmt.Sprintf("%s@%s zkscope pid %d", u, h, os.Getpid())
	if note = strings.TrimSpace(note); note != "" {
		s += ": " + note
	}
	return []byte(s)
}

// Take joins the queue of the lock at lockPath in the chosen library's exact
// znode format and waits for the lock as that library would: list, sort
// with its rule, watch (getData) the node it would watch, repeat. On
// timeout, WaitNone failure or ctx end our node is deleted again.
//
// The returned [Held] tracks whether the lock is still ours; call
// [Held.Release] to let go.
func Take(ctx context.Context, c *zkview.Client, lockPath string, o TakeOptions) (*Held, error) {
	lockPath = path.Clean(lockPath)
	if c.Config().ReadOnly {
		err := fmt.Errorf("take %s: %w", lockPath, zkview.ErrReadOnly)
		record(c, OpTake, lockPath, nil, 0, err)
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
		record(c, OpTake, p, nil, session, err)
		return nil, err
	}
	h.mu.Lock() // the monitor may already update the version
	v := h.version
	h.mu.Unlock()
	record(c, OpTake, h.Node, versionPtr(v), h.Session, nil)
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

func take(ctx context.Context, c *zkview.Client, lockPath string, o TakeOptions) (*Held, error) {
	if lockPath == "/" || !strings.HasPrefix(lockPath, "/") {
		return nil, fmt.Errorf("take %s: a lock path must be an absolute path below /", lockPath)
	}
	if o.Wait == WaitTimeout && o.Timeout <= 0 {
		o.Wait = WaitNone
	}
	children, err := zkview.Call(ctx, func() ([]string, error) {
		kids, _, err := c.Conn().Children(c.Abs(lockPath))
		if errors.Is(err, zk.ErrNoNode) {
			return nil, nil
		}
		return kids, err
	})
	if err != nil {
		return nil, fmt.Errorf("take %s: list children: %w", lockPath, err)
	}
	r, err := resolveRecipe(o.Recipe, o.Mode, children)
	if err != nil {
		return nil, fmt.Errorf("take %s: %w", lockPath, err)
	}

	sub, unsub := c.Subscribe()
	defer unsub()

	// The timeout bounds everything from here on (a slow create or a
	// disconnect count too); ctxErr tells a timeout from the caller's end.
	parent := ctx
	if o.Wait == WaitTimeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	ctxErr := func(waitingOn string) error {
		if parent.Err() == nil && ctx.Err() != nil {
			if waitingOn != "" {
				return fmt.Errorf("take %s: %w after %s (waiting on %s)", lockPath, ErrTimeout, o.Timeout, waitingOn)
			}
			return fmt.Errorf("take %s: %w after %s", lockPath, ErrTimeout, o.Timeout)
		}
		return fmt.Errorf("take %s: %w", lockPath, parent.Err())
	}

	node, st, err := createLockNode(ctx, c, lockPath, r, OwnerData(o.Note))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxErr("")
		}
		return nil, fmt.Errorf("take %s: %w", lockPath, err)
	}
	session := st.EphemeralOwner
	name := path.Base(node)
	fail := func(err error) error {
		return &takeError{err: err, node: node, session: session}
	}
	// giveUp deletes our node (Curator's behaviour on timeout) and says so.
	giveUp := func(err error) error {
		if derr := deleteOwnNode(c, node, st.Czxid); derr != nil {
			err = fmt.Errorf("%w; and our node %s could not be deleted (%v): it goes away when this session ends", err, node, derr)
		}
		return fail(err)
	}

	lastReport := Progress{Position: -2}
	closedSince := time.Time{}
	// reconnectWait paces retries after zk.ErrConnectionClosed (in flight at a
	// disconnect, or the client was closed) and gives up after a session
	// timeout of them.
	reconnectWait := func() error {
		if closedSince.IsZero() {
			closedSince = time.Now()
		}
		if time.Since(closedSince) > sessionTimeout(c) {
			return zk.ErrConnectionClosed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
			return nil
		}
	}
	for {
		kids, err := zkview.Call(ctx, func() ([]string, error) {
			kids, _, err := c.Conn().Children(c.Abs(lockPath))
			return kids, err
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, giveUp(ctxErr(""))
			}
			if errors.Is(err, zk.ErrConnectionClosed) {
				if werr := reconnectWait(); werr == nil {
					continue
				}
			}
			return nil, giveUp(fmt.Errorf("take %s: list children: %w", lockPath, err))
		}
		closedSince = time.Time{}
		s := r.slot(kids, name)
		if !s.found {
			return nil, fail(fmt.Errorf("take %s: our node %s vanished while waiting (session expired or node deleted by someone): %w", lockPath, name, ErrLost))
		}
		p := Progress{Path: lockPath, Node: node, Recipe: r.String(), Position: s.position, QueueLen: s.queueLen}
		if s.wait != "" {
			p.WaitingOn = zkview.Join(lockPath, s.wait)
		}
		if o.Progress != nil && p != lastReport {
			o.Progress(p)
			lastReport = p
		}
		if s.wait == "" {
			return newHeld(c, lockPath, node, r, st), nil
		}
		if o.Wait == WaitNone {
			return nil, giveUp(fmt.Errorf("take %s: %w (we would wait on %s)", lockPath, ErrWouldBlock, p.WaitingOn))
		}
		type watchRes struct {
			ch <-chan zk.Event
		}
		w, err := zkview.Call(ctx, func() (watchRes, error) {
			_, _, ch, err := c.Conn().GetW(c.Abs(p.WaitingOn))
			return watchRes{ch}, err
		})
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, giveUp(ctxErr(p.WaitingOn))
			case errors.Is(err, zk.ErrNoNode):
				continue // predecessor already gone: look again
			case errors.Is(err, zk.ErrConnectionClosed):
				if werr := reconnectWait(); werr == nil {
					continue
				}
			}
			return nil, giveUp(fmt.Errorf("take %s: watch %s: %w", lockPath, p.WaitingOn, err))
		}
	wait:
		for {
			select {
			case <-w.ch:
				break wait
			case ev := <-sub:
				if sessionEnded(ev, session) {
					return nil, fail(fmt.Errorf("take %s: the session 0x%x ended while waiting (%s): %w", lockPath, uint64(session), ev.State, ErrLost))
				}
			case <-ctx.Done():
				return nil, giveUp(ctxErr(p.WaitingOn))
			}
		}
	}
}

// createLockNode creates our EPHEMERAL_SEQUENTIAL node (and the missing
// parents: containers for Curator, persistent otherwise) and reads its stat.
// A create whose reply was lost to a disconnect is found again by its unique
// prefix, as the libraries' protected mode does. If ctx ends while the
// create is in flight, the node is deleted once it appears.
func createLockNode(ctx context.Context, c *zkview.Client, lockPath string, r takeRecipe, data []byte) (string, zk.Stat, error) {
	prefix := r.newNamePrefix()
	type result struct {
		node string
		st   zk.Stat
		err  error
	}
	done := make(chan result, 1)
	go func() {
		node, st, err := createProtected(c, lockPath, prefix, data, r.containerParents())
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
			if perr := makeParents(conn, absDir, containers); perr != nil {
				return "", zk.Stat{}, fmt.Errorf("create parents of %s: %w", lockPath, perr)
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
			return "", zk.Stat{}, fmt.Errorf("create lock node in %s: %w", lockPath, err)
		}
		_, st, err := conn.Get(created)
		if err != nil {
			return "", zk.Stat{}, fmt.Errorf("read our new lock node %s: %w", c.Rel(created), err)
		}
		return c.Rel(created), *st, nil
	}
	return "", zk.Stat{}, fmt.Errorf("create lock node in %s: %w", lockPath, lastErr)
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

// sessionEnded reports whether ev says that session is over: it expired,
// the client was closed, or the client is connected on another session.
// (An expiry of an older session, replayed as the latest state, is not.)
func sessionEnded(ev zkview.ConnEvent, session int64) bool {
	switch ev.State {
	case zkview.StateExpired:
		return ev.PrevSessionID == 0 || ev.PrevSessionID == session
	case zkview.StateClosed:
		return true
	case zkview.StateConnected:
		return ev.SessionID != session
	}
	return false
}
