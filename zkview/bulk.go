package zkview

import (
	"context"
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/zkview/wire"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// multiReadMin is the smallest read worth a multi-read: below it, the main
// connection's pipelined Gets are as quick and open no second session.
const multiReadMin = 8

// pipelineWidth is how many Gets the fallback keeps in flight.
const pipelineWidth = 256

// GetMany reads data and stat of every path (caller's view), in order. A
// per-node failure (zk.ErrNoNode for a node deleted meanwhile, zk.ErrNoAuth)
// goes in that Node's Err; the error return is for the whole call (context
// ended, connection closed).
//
// It uses the server's multi-read (ZooKeeper 3.6+) in batches; a server
// that does not know it is remembered and read with 256 pipelined Gets, as
// is any call whose multi-read fails as a whole.
func (c *Client) GetMany(ctx context.Context, paths []string) ([]Node, error) {
	out := make([]Node, len(paths))
	if err := c.GetManyFunc(ctx, paths, intoNodes(out, paths)); err != nil {
		return nil, err
	}
	return out, nil
}

// NodeFunc receives node i of a bulk read: its data and stat, or err (then
// data and st are nil). Calls for different i may come at the same time
// from different goroutines; a call for i may be repeated (a read retried
// another way), the last one counting. data may share memory with other
// nodes' data; st is valid only during the call.
type NodeFunc func(i int, data []byte, st *zk.Stat, err error)

// GetManyFunc is [GetMany] without the []Node: each node read goes to
// each as it is decoded, so that a caller keeping its own records (a lock
// decoder reading 10,000 contenders) copies each node once.
func (c *Client) GetManyFunc(ctx context.Context, paths []string, each NodeFunc) error {
	if len(paths) >= multiReadMin || len(paths) >= 2 && c.bulk.reading.Load() == 0 && c.bulk.sessionID() != 0 {
		// (A few paths too while the sidecar is open and idle: one request
		// and one answer rather than one each, for a follow's reads of
		// each burst; never queued behind a big read's batches.)
		if m := c.multiRead(); m.usable() {
			err := c.getManyMultiFunc(ctx, paths, each)
			if err == nil {
				return nil
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	return c.getManyPipelinedFunc(ctx, paths, each)
}

// intoNodes is a NodeFunc that fills out (paths being what was read).
func intoNodes(out []Node, paths []string) NodeFunc {
	return func(i int, data []byte, st *zk.Stat, err error) {
		if err != nil {
			out[i] = Node{Path: paths[i], Err: err}
			return
		}
		out[i] = Node{Path: paths[i], Data: data, Stat: *st}
	}
}

// PrepareBulk starts opening the bulk-read session in the background, so
// that the caller's next big GetMany does not wait for its handshake: call
// it before listing what is about to be read. It does nothing when
// multi-read is known not to work.
func (c *Client) PrepareBulk() {
	m := c.multiRead()
	if !m.usable() {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.SessionTimeout+time.Second)
		defer cancel()
		m.session(ctx) // a failure here is met again, and handled, by the read
	}()
}

// ListChildren is [Client.Children] for a listing about to be read in
// bulk: it goes through the bulk-read session (waiting for it to open if
// [Client.PrepareBulk] started it) and the names are slices of one reply,
// not one allocation each, which counts with 10,000 children. It falls
// back to Children when that session cannot be used.
func (c *Client) ListChildren(ctx context.Context, p string) ([]string, zk.Stat, error) {
	if m := c.multiRead(); m.usable() {
		if s, err := m.session(ctx); err == nil {
			body, err := s.Call(ctx, func(xid int32) []byte { return wire.ChildrenRequest(xid, c.Abs(p)) })
			if err == nil {
				if names, st, err := wire.DecodeChildrenResponse(body); err == nil {
					return names, st, nil
				}
			} else if errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrNoAuth) {
				return nil, zk.Stat{}, fmt.Errorf("list children of %s: %w", p, Explain(errors.Unwrap(err)))
			}
		}
	}
	return c.Children(p)
}

// MultiReadSupported reports what the client knows of the server's
// multi-read support: known is false until a multi-read has been tried.
func (c *Client) MultiReadSupported() (supported, known bool) {
	s := c.multiRead().support.Load()
	return s > 0, s != 0
}

// getManyMultiFunc is GetManyFunc with multi-read only.
func (c *Client) getManyMultiFunc(ctx context.Context, paths []string, each NodeFunc) error {
	abs := paths
	if c.cfg.Chroot != "" {
		abs = make([]string, len(paths))
		for i, p := range paths {
			abs[i] = c.Abs(p)
		}
	}
	if err := c.multiRead().read(ctx, abs, each); err != nil {
		return fmt.Errorf("multi-read %d nodes: %w", len(paths), err)
	}
	return nil
}

// getManyPipelinedFunc is GetManyFunc with pipelineWidth concurrent Gets
// on the main connection.
func (c *Client) getManyPipelinedFunc(ctx context.Context, paths []string, each NodeFunc) error {
	var closed atomic.Bool
	sem := make(chan struct{}, pipelineWidth)
	var wg sync.WaitGroup
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			wg.Wait()
			return err
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int, p string) {
			defer func() { <-sem; wg.Done() }()
			data, st, err := c.Conn().Get(c.Abs(p))
			if err != nil {
				if errors.Is(err, zk.ErrConnectionClosed) {
					closed.Store(true)
				}
				each(i, nil, nil, err)
				return
			}
			each(i, data, st, nil)
		}(i, p)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if closed.Load() {
		return fmt.Errorf("read %d nodes: %w", len(paths), Explain(zk.ErrConnectionClosed))
	}
	return nil
}

// getManyMulti and getManyPipelined are GetMany one way only.
func (c *Client) getManyMulti(ctx context.Context, paths []string) ([]Node, error) {
	out := make([]Node, len(paths))
	if err := c.getManyMultiFunc(ctx, paths, intoNodes(out, paths)); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *Client) getManyPipelined(ctx context.Context, paths []string) ([]Node, error) {
	out := make([]Node, len(paths))
	if err := c.getManyPipelinedFunc(ctx, paths, intoNodes(out, paths)); err != nil {
		return nil, err
	}
	return out, nil
}

// ChildrenNodes lists parent's children and reads them all in bulk. Children
// deleted between the list and the read are left out.
func (c *Client) ChildrenNodes(ctx context.Context, parent string) (zk.Stat, []Node, error) {
	names, st, err := c.Children(parent)
	if err != nil {
		return zk.Stat{}, nil, err
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = Join(parent, n)
	}
	nodes, err := c.GetMany(ctx, paths)
	if err != nil {
		return zk.Stat{}, nil, fmt.Errorf("read children of %s: %w", parent, err)
	}
	kept := nodes[:0]
	for _, n := range nodes {
		if errors.Is(n.Err, zk.ErrNoNode) {
			continue
		}
		kept = append(kept, n)
	}
	return st, kept, nil
}
