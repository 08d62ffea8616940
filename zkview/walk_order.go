package zkview

import (
	"container/heap"

	"github.com/zkscope/zkscope/zkview/wire"
)

// The pre-order of [WalkOptions.PreOrder]: the listings waiting to be
// sent are taken earliest first in the depth-first order of the sorted
// tree, so the walk runs a window of requests along the order a tree is
// printed in. When the children's stats are read, a batch of listings
// brings at most a batch's worth of children (maxOps; a bigger directory
// goes alone), so what the walk has read ahead of the printer is bounded
// by the batches in flight, not by the tree's width.

// takePreOrder adds the earliest waiting listings to ops, as many as fit.
func (w *walker) takePreOrder(ops []walkOp, fits func(wire.ReadOp) bool) []walkOp {
	q := (*preOrderQueue)(&w.expand)
	ahead := 0 // children the listings taken bring
	for len(w.expand) > 0 && len(ops) < w.m.lim.maxOps {
		e := w.expand[0]
		if e.kids != nil {
			k := int(e.kids[e.next])
			if len(ops) > 0 && ahead+k > w.m.lim.maxOps {
				break
			}
			ahead += k
		}
		p := e.key
		op := wire.ReadOp{Code: wire.OpGetChildren, Path: w.c.Abs(p)}
		if !fits(op) {
			break
		}
		ops = append(ops, walkOp{op: op, depth: int32(e.depth)})
		w.queued--
		if e.next++; e.next == len(e.names) {
			heap.Pop(q)
		} else {
			e.key = Join(e.dir, e.names[e.next])
			heap.Fix(q, 0)
		}
	}
	return ops
}

// preOrderQueue is a heap of directories whose children are to be
// listed, the one whose next child comes first in pre-order on top.
type preOrderQueue []*walkExpand

func (q preOrderQueue) Len() int { return len(q) }
func (q preOrderQueue) Less(i, j int) bool {
	return preOrderLess(q[i].key, q[j].key)
}
func (q preOrderQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *preOrderQueue) Push(x any)   { *q = append(*q, x.(*walkExpand)) }
func (q *preOrderQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return e
}

// preOrderLess reports whether path a comes before path b in the
// depth-first order of a tree whose children are sorted by name: an
// ancestor before its descendants, otherwise as the first names that
// differ. (Plain string order differs: "/a-b" < "/a/x", yet /a/x comes
// right after /a.)
func preOrderLess(a, b string) bool {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case i == len(a) || i == len(b):
		return len(a) < len(b)
	case a[i] == '/':
		return true // a's name ends here: a prefix of b's
	case b[i] == '/':
		return false
	}
	return a[i] < b[i]
}
