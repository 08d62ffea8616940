package zkview

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"
)

// GetMany reads data and stat of every path (caller's view), in order. A
// per-node failure (zk.ErrNoNode for a node deleted meanwhile, zk.ErrNoAuth)
// goes in that Node's Err; the error return is for the whole call (context
// ended, connection closed).
func (c *Client) GetMany(ctx context.Context, paths []string) ([]Node, error) {
	out := make([]Node, len(paths))
	sem := make(chan struct{}, 256)
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
	return out, ctx.Err()
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
		if n.Err == zk.ErrNoNode {
			continue
		}
		kept = append(kept, n)
	}
	return st, kept, nil
}
