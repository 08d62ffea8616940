package herd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// lock is one of the two locks: its contenders and the driver's state.
type lock struct {
	style  Style
	dir    string
	cts    []*contender
	events chan event
	cancel context.CancelFunc
	wg     sync.WaitGroup
	holder int // the contender holding
	// sessions are the contenders' sessions: the servers' watch lists
	// also name whoever else watches the demo, who is not counted.
	sessions map[int64]bool

	total    Counts
	last     Release
	releases int
}

// lockPath is the naive lock's node or the chain's directory.
func (l *lock) lockPath() string {
	if l.style == Naive {
		return join(l.dir, "lock")
	}
	return l.dir
}

// startLock connects lock s's contenders, makes its directory and lets
// them queue one after the other. A lock that failed half way is
// returned with the error, for closing.
func startLock(ctx context.Context, o Options, s Style) (*lock, error) {
	lctx, cancel := context.WithCancel(context.Background())
	l := &lock{style: s, dir: join(o.Root, string(s)), events: make(chan event, 64*o.Contenders), cancel: cancel}
	if err := l.connect(ctx, o); err != nil {
		return l, err
	}
	if err := makePath(l.cts[0].conn, l.dir); err != nil {
		return l, fmt.Errorf("herd: create %s: %w", l.dir, err)
	}
	for _, ct := range l.cts {
		l.wg.Add(1)
		go func() { defer l.wg.Done(); ct.run(lctx) }()
	}
	for i, ct := range l.cts {
		ct.cmds <- cmdJoin
		want := evWaiting
		if i == 0 {
			want = evHolding
		}
		if err := l.await(ctx, i, want); err != nil {
			return l, fmt.Errorf("herd: %s lock: contender %d joining: %w", s, i+1, err)
		}
	}
	return l, nil
}

// connect opens a session for each contender, several at a time.
func (l *lock) connect(ctx context.Context, o Options) error {
	l.cts = make([]*contender, o.Contenders)
	errs := make([]error, o.Contenders)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range l.cts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cctx, cancel := context.WithTimeout(ctx, settleTimeout)
			defer cancel()
			c, err := zkview.Connect(cctx, zkview.Config{Servers: o.Servers, SessionTimeout: 10 * time.Second, Context: "herd"})
			if err != nil {
				errs[i] = fmt.Errorf("herd: %s contender %d: %w", l.style, i+1, err)
				return
			}
			l.cts[i] = &contender{id: i, style: l.style, dir: l.dir, c: c, conn: c.Conn(), session: c.SessionID(),
				cmds: make(chan command, 1), events: l.events}
		}()
	}
	wg.Wait()
	l.sessions = map[int64]bool{}
	for _, ct := range l.cts {
		if ct != nil {
			l.sessions[ct.session] = true
		}
	}
	return errors.Join(errs...)
}

// makePath creates p and its parents (persistent, empty) where missing.
func makePath(conn *zk.Conn, p string) error {
	if p == "/" {
		return nil
	}
	if err := makePath(conn, parentOf(p)); err != nil {
		return err
	}
	_, err := conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll))
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	return nil
}

func parentOf(p string) string {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "/"
}

// await waits for contender who's event of kind want; a failure, the end
// of ctx or the timeout end it.
func (l *lock) await(ctx context.Context, who int, want eventKind) error {
	timer := time.NewTimer(settleTimeout)
	defer timer.Stop()
	for {
		select {
		case ev := <-l.events:
			if ev.kind == evFailed {
				return ev.err
			}
			if ev.who == who && ev.kind == want {
				return nil
			}
		case <-ctx.Done():
			return errEnded
		case <-timer.C:
			return fmt.Errorf("contender %d did not settle within %s", who+1, settleTimeout)
		}
	}
}

// close ends the contenders and their sessions.
func (l *lock) close() {
	l.cancel()
	l.wg.Wait()
	for _, ct := range l.cts {
		if ct != nil {
			ct.c.Close()
		}
	}
}
