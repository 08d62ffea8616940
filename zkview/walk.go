package zkview

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/zkview/wire"
	"slices"
	"sort"
	"sync"

	"github.com/go-zookeeper/zk"
)

// The tree walker: breadth-first, the children listings (getChildren) and
// the reads of data and stat (getData) of many nodes packed into
// multi-read requests (ZooKeeper 3.6+; pipelined requests on the main
// connection for older servers, detected once), several requests in
// flight. Each directory goes to the caller as soon as its listing (and,
// when asked, its children's data) has arrived, so memory is bounded by
// the nodes waiting to be listed, not by the tree.

// WalkDir is one directory met by [Client.Walk]: a node whose children
// were listed.
type WalkDir struct {
	// Path is the directory (client's view); Depth counts from the
	// walk's root (0).
	Path  string
	Depth int
	// Names are its children, in the server's order.
	Names []string
	// Nodes are the children's data and stat, in Names' order, when
	// [WalkOptions.Read] asked for them (else nil). A child deleted between
	// the listing and the read has Err zk.ErrNoNode; one the session may not
	// read, zk.ErrNoAuth.
	Nodes []Node
	// Stat is the directory's own stat when [WalkOptions.DirStat] asked
	// for it (read with its children's data).
	Stat zk.Stat
	// Err is why the directory could not be listed (wrapping zk.ErrNoAuth
	// or zk.ErrNoNode when it vanished meanwhile); Names is then nil. The
	// walk goes on with the rest of the tree.
	Err error
}

// WalkOptions tune [Client.Walk].
type WalkOptions struct {
	// Read says whether the children of dir, listed as names, are read
	// (data and stat) before the directory goes to the visitor. Nil: never.
	Read func(dir string, names []string) bool
	// DirStat: a directory whose children are read has its own stat read
	// with them ([WalkDir.Stat]), in the same requests.
	DirStat bool
	// PreOrder: each directory's Names (and Nodes) come sorted, and the
	// listings are sent earliest first in the depth-first order of the
	// sorted tree, so a caller printing the tree depth-first holds only
	// what the requests in flight brought ahead of it, not the tree.
	PreOrder bool
	// InFlight, when positive, is how many batches of requests the walk
	// keeps in flight at most (fewer than the connection takes: a walk
	// beside other reads leaves the servers room to answer them).
	InFlight int
}

// WalkVisitor receives each directory. It returns whether the walk goes
// on into the directory's children: those in d.Names when it returns (it
// may shorten the slice to leave some out), except children that Nodes
// show to be leaves or unreadable. The walker calls it from one goroutine,
// one directory at a time.
type WalkVisitor func(d *WalkDir) bool

// walkMinBatch is the smallest batch sent while others are in flight:
// smaller ones wait for the queue to fill.
const walkMinBatch = 250

// Walk lists root and, as visit decides, the tree below it. The error is
// for the whole walk (context ended, connection lost, root unreadable);
// a directory that could not be listed goes to visit with its Err.
func (c *Client) Walk(ctx context.Context, root string, o WalkOptions, visit WalkVisitor) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &walker{c: c, o: o, visit: visit, m: c.multiRead(), sem: make(chan struct{}, pipelineWidth)}
	w.expand = append(w.expand, &walkExpand{root: true, dir: root, names: []string{""}, key: root})
	w.queued = 1
	return w.run(ctx)
}

// walkOp is one request of the walk: a listing (path, depth) or the read
// of child i of dir.
type walkOp struct {
	op    wire.ReadOp // its path is the server's: path() is the caller's
	depth int32
	i     int32
	dir   *walkPending
}

// path is the op's node in the caller's view (no chroot): a part of the
// request's path, not a string of its own.
func (w *walker) path(op *walkOp) string { return w.c.Rel(op.op.Path) }

// walkPending is a directory whose children are being read.
type walkPending struct {
	d    WalkDir
	left int
}

type walkBatch struct {
	ops []walkOp
	res []wire.ReadResult
	err error
}

type walker struct {
	c     *Client
	o     WalkOptions
	visit WalkVisitor
	m     *multiReader
	sem   chan struct{} // pipelined requests in flight (older servers)
	// reads go out before listings: they complete directories the
	// caller waits for, and listings only grow the queue.
	reads []walkOp
	// expand are the directories whose children are to be listed, in
	// order; their listing ops are made as batches are filled, so the
	// queue holds each directory's names once (as the listing returned
	// them), not a request per child.
	expand   []*walkExpand
	queued   int // listings not yet sent
	rootDone bool
	spare    [][]wire.ReadResult // answer slices of handled batches
}

// walkExpand is a directory whose children (names, from next on) are to
// be listed, at depth.
type walkExpand struct {
	root  bool // names is {""}: the walk's root itself
	dir   string
	depth int
	names []string
	next  int
	key   string  // with PreOrder: the path of names[next]
	kids  []int32 // with PreOrder and Read: how many children each name has
}

func (w *walker) run(ctx context.Context) error {
	limit := max(w.m.lim.inFlight, 1)
	if w.o.InFlight > 0 {
		limit = min(limit, w.o.InFlight)
	}
	done := make(chan walkBatch, limit)
	inFlight := 0
	var firstErr error
	for {
		for firstErr == nil && inFlight < limit {
			queued := len(w.reads) + w.queued
			if queued == 0 || inFlight > 0 && queued < walkMinBatch {
				break
			}
			ops := w.take()
			res := w.results(len(ops))
			inFlight++
			go func() {
				err := w.do(ctx, ops, res)
				done <- walkBatch{ops: ops, res: res, err: err}
			}()
		}
		if inFlight == 0 {
			return firstErr
		}
		b := <-done
		inFlight--
		if firstErr != nil {
			continue
		}
		if b.err == nil {
			b.err = ctx.Err()
		}
		if b.err != nil {
			firstErr = b.err
			continue
		}
		for j := range b.ops {
			if err := w.handle(&b.ops[j], &b.res[j]); err != nil {
				firstErr = err
				break
			}
		}
		clear(b.ops) // the read queue's memory: what it points to is handled
		clear(b.res)
		w.spare = append(w.spare, b.res)
	}
}

// results is room for the answers to n ops: a batch's, handled, when one
// is big enough (a walk's batches are mostly full: at most the requests in
// flight plus one are ever allocated).
func (w *walker) results(n int) []wire.ReadResult {
	for i, r := range w.spare {
		if cap(r) >= n {
			w.spare = slices.Delete(w.spare, i, i+1)
			return r[:n]
		}
	}
	return make([]wire.ReadResult, n)
}

// take removes the next batch from the queues: reads first, then
// listings, at most maxOps ops and maxRequest bytes.
func (w *walker) take() []walkOp {
	count, size := 0, 0
	fits := func(op wire.ReadOp) bool {
		sz := 9 + 4 + len(op.Path) + 1
		if count >= w.m.lim.maxOps || count > 0 && size+sz > w.m.lim.maxRequest {
			return false
		}
		count++
		size += sz
		return true
	}
	n := 0
	for n < len(w.reads) && fits(w.reads[n].op) {
		n++
	}
	// The batch is the front of the read queue itself, not a copy (a
	// 10,000-child directory's reads would otherwise be copied once
	// more); listings appended to it copy it, capped as it is.
	ops := w.reads[:n:n]
	w.reads = w.reads[n:]
	if w.o.PreOrder {
		return w.takePreOrder(ops, fits)
	}
	for len(w.expand) > 0 && len(ops) < w.m.lim.maxOps {
		e := w.expand[0]
		for ; e.next < len(e.names); e.next++ {
			p := Join(e.dir, e.names[e.next])
			if e.root {
				p = e.dir
			}
			op := wire.ReadOp{Code: wire.OpGetChildren, Path: w.c.Abs(p)}
			if !fits(op) {
				return ops
			}
			ops = append(ops, walkOp{op: op, depth: int32(e.depth)})
			w.queued--
		}
		w.expand[0] = nil
		w.expand = w.expand[1:]
	}
	return ops
}

// handle takes one answer: a listing goes to the visitor (or waits for
// its children's data), a child's data completes its directory.
func (w *walker) handle(op *walkOp, r *wire.ReadResult) error {
	if op.dir != nil {
		p := op.dir
		if op.i < 0 {
			p.d.Stat = r.Stat // zero when the directory vanished meanwhile
		} else {
			n := &p.d.Nodes[op.i]
			n.Path = w.path(op)
			n.Data, n.Stat, n.Err = r.Data, r.Stat, r.Err
		}
		if p.left--; p.left == 0 {
			w.deliver(&p.d)
		}
		return nil
	}
	dir, depth := w.path(op), int(op.depth)
	if r.Err != nil {
		if !w.rootDone {
			return fmt.Errorf("list children of %s: %w", dir, Explain(r.Err))
		}
		w.visit(&WalkDir{Path: dir, Depth: depth, Err: fmt.Errorf("list children of %s: %w", dir, Explain(r.Err))})
		return nil
	}
	w.rootDone = true
	if w.o.PreOrder {
		sort.Strings(r.Names)
	}
	d := WalkDir{Path: dir, Depth: depth, Names: r.Names}
	if w.o.Read == nil || !w.o.Read(d.Path, d.Names) {
		w.deliver(&d)
		return nil
	}
	d.Nodes = make([]Node, len(d.Names))
	if len(d.Names) == 0 && !w.o.DirStat {
		w.deliver(&d)
		return nil
	}
	p := &walkPending{d: d, left: len(d.Names)}
	if w.o.DirStat {
		p.left++
		w.reads = append(w.reads, walkOp{op: wire.ReadOp{Code: wire.OpGetData, Path: w.c.Abs(d.Path)}, dir: p, i: -1})
	}
	w.reads = slices.Grow(w.reads, len(d.Names))
	for i, name := range d.Names {
		np := Join(d.Path, name)
		w.reads = append(w.reads, walkOp{op: wire.ReadOp{Code: wire.OpGetData, Path: w.c.Abs(np)}, dir: p, i: int32(i)})
	}
	return nil
}

// deliver gives d to the visitor and queues the listings it asks for.
func (w *walker) deliver(d *WalkDir) {
	nodes := d.Nodes
	if !w.visit(d) {
		return
	}
	names := d.Names
	var kids []int32
	if nodes != nil && len(nodes) == len(names) {
		// Only children with children of their own are listed.
		var dirs []string
		for i := range nodes {
			if nodes[i].Err == nil && nodes[i].Stat.NumChildren > 0 {
				dirs = append(dirs, names[i])
				if w.o.PreOrder {
					kids = append(kids, nodes[i].Stat.NumChildren)
				}
			}
		}
		names = dirs
	}
	if len(names) == 0 {
		return
	}
	e := &walkExpand{dir: d.Path, depth: d.Depth + 1, names: names, kids: kids}
	if w.o.PreOrder {
		e.key = Join(e.dir, names[0])
		heap.Push((*preOrderQueue)(&w.expand), e)
	} else {
		w.expand = append(w.expand, e)
	}
	w.queued += len(names)
}

// do runs one batch: one multi-read request (split when its reply is too
// big), or pipelined requests when the server has no multi-read.
func (w *walker) do(ctx context.Context, ops []walkOp, res []wire.ReadResult) error {
	if len(ops) == 1 && ops[0].op.Code == wire.OpGetChildren {
		if r, ok := w.listAlone(ctx, ops[0].op.Path); ok {
			res[0] = r
			return nil
		}
	}
	if w.m.usable() {
		rops := make([]wire.ReadOp, len(ops))
		for i := range ops {
			rops[i] = ops[i].op
		}
		err := w.m.readOps(ctx, rops, func(j int, r wire.ReadResult) { res[j] = r })
		if err == nil || ctx.Err() != nil {
			return err
		}
	}
	return w.pipelined(ctx, ops, res)
}

// listAlone answers a listing sent by itself (the walk's root: one lock
// directory read alone) as a getChildren2 request on the multi-read
// session: the server answers it in 2-3 ms for 10,000 children against
// 5-10 ms for the same listing wrapped in a multi-read, and the names stay
// slices of the one reply. ok is false when it could not be asked there
// (the caller then asks as it would have).
func (w *walker) listAlone(ctx context.Context, abs string) (r wire.ReadResult, ok bool) {
	if !w.m.usable() {
		return r, false
	}
	s, err := w.m.session(ctx)
	if err != nil {
		return r, false
	}
	body, err := s.Call(ctx, func(xid int32) []byte { return wire.ChildrenRequest(xid, abs) })
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return wire.ReadResult{Err: zk.ErrNoNode}, true
	case errors.Is(err, zk.ErrNoAuth):
		return wire.ReadResult{Err: zk.ErrNoAuth}, true
	case err != nil:
		return r, false
	}
	names, _, err := wire.DecodeChildrenResponse(body)
	if err != nil {
		return r, false
	}
	return wire.ReadResult{Names: names}, true
}

// pipelined answers ops with concurrent requests on the main connection.
func (w *walker) pipelined(ctx context.Context, ops []walkOp, res []wire.ReadResult) error {
	var wg sync.WaitGroup
	var closed error
	var mu sync.Mutex
	for j := range ops {
		select {
		case w.sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		}
		wg.Add(1)
		go func(j int) {
			defer func() { <-w.sem; wg.Done() }()
			res[j] = w.c.readOne(ops[j].op)
			if errors.Is(res[j].Err, zk.ErrConnectionClosed) {
				mu.Lock()
				closed = res[j].Err
				mu.Unlock()
			}
		}(j)
	}
	wg.Wait()
	if closed != nil {
		return fmt.Errorf("walk: %w", Explain(closed))
	}
	return ctx.Err()
}

// readOne answers one op on the main connection.
func (c *Client) readOne(op wire.ReadOp) wire.ReadResult {
	if op.Code == wire.OpGetChildren {
		names, _, err := c.Conn().Children(op.Path)
		return wire.ReadResult{Names: names, Err: err}
	}
	data, st, err := c.Conn().Get(op.Path)
	if err != nil {
		return wire.ReadResult{Err: err}
	}
	return wire.ReadResult{Data: data, Stat: *st}
}

// readOps sends ops as one multi-read request; a reply too big is split
// and the parts sent again, an op too big for any reply is answered on the
// main connection.
func (m *multiReader) readOps(ctx context.Context, ops []wire.ReadOp, each func(j int, r wire.ReadResult)) error {
	err := m.send(ctx,
		func(dst []byte, xid int32) []byte { return wire.MultiReadOpsRequest(dst, xid, m.lim.opCode, ops) },
		func(body []byte) error { return wire.DecodeMultiReadOps(body, len(ops), each) })
	var big wire.ReplyTooLarge
	if !errors.As(err, &big) {
		return err
	}
	if len(ops) == 1 {
		each(0, m.c.readOne(ops[0]))
		return nil
	}
	for _, g := range splitBatch(0, len(ops), big, m.lim.maxReply) {
		if g.alone {
			each(g.lo, m.c.readOne(ops[g.lo]))
			continue
		}
		lo := g.lo
		if err := m.readOps(ctx, ops[g.lo:g.hi], func(j int, r wire.ReadResult) { each(lo+j, r) }); err != nil {
			return err
		}
	}
	return nil
}
