package zkview

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
	if len(paths) >= multiReadMin {
		if m := c.multiRead(); m.usable() {
			nodes, err := c.getManyMulti(ctx, paths)
			if err == nil {
				return nodes, nil
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
	}
	return c.getManyPipelined(ctx, paths)
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

// MultiReadSupported reports what the client knows of the server's
// multi-read support: known is false until a multi-read has been tried.
func (c *Client) MultiReadSupported() (supported, known bool) {
	s := c.multiRead().support.Load()
	return s > 0, s != 0
}

// getManyMulti is GetMany with multi-read only.
func (c *Client) getManyMulti(ctx context.Context, paths []string) ([]Node, error) {
	abs := make([]string, len(paths))
	for i, p := range paths {
		abs[i] = c.Abs(p)
	}
	res, err := c.multiRead().read(ctx, abs)
	if err != nil {
		return nil, fmt.Errorf("multi-read %d nodes: %w", len(paths), err)
	}
	out := make([]Node, len(paths))
	for i, r := range res {
		out[i] = Node{Path: paths[i], Data: r.Data, Stat: r.Stat, Err: r.Err}
	}
	return out, nil
}

// getManyPipelined is GetMany with pipelineWidth concurrent Gets on the
// main connection.
func (c *Client) getManyPipelined(ctx context.Context, paths []string) ([]Node, error) {
	out := make([]Node, len(paths))
	sem := make(chan struct{}, pipelineWidth)
	var wg sync.WaitGroup
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			wg.Wait()
			return nil, err
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int, p string) {
			defer func() { <-sem; wg.Done() }()
			data, st, err := c.Conn().Get(c.Abs(p))
			if err != nil {
				out[i] = Node{Path: p, Err: err}
				return
			}
			out[i] = Node{Path: p, Data: data, Stat: *st}
		}(i, p)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, n := range out {
		if errors.Is(n.Err, zk.ErrConnectionClosed) {
			return nil, fmt.Errorf("read %d nodes: %w", len(paths), Explain(n.Err))
		}
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
