package evict

import (
	"context"
	"path"
	"slices"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

// readEphemeralNodeLock is [readNodeLock]'s last resort: l.node, in no
// directory of a known recipe, is the holder of a plain ephemeral lock
// when it is an ephemeral node.
func readEphemeralNodeLock(ctx context.Context, c *zkview.Client, l nodeLock) (nodeLock, error) {
	n, err := c.Get(l.node)
	if err != nil {
		return l, scan.IgnoreGone(err)
	}
	if n.Stat.EphemeralOwner == 0 {
		return l, nil
	}
	l.dir = lockops.EphemeralDir(l.node, n.Stat, n.Data)
	l.queue, l.at = lockops.Decode(l.dir, lockops.DecodeOptions{Kind: lockops.KindEphemeralLock}), 0
	return l, nil
}

// nodeLock is the lock a node belongs to, read and decoded for an
// operation on that node (revoke, force-delete): the decoders say whether
// the node takes part in a lock and what it does there, so the operations
// follow the same rules as the lock pane.
type nodeLock struct {
	node string
	// dir is the lock as read (a semaphore's second place in dir.Aux);
	// dir.Path is "" when the node's directory holds no known lock.
	dir lockops.Dir
	// queue is the decoded view in which node takes part: the directory's
	// own recipe, or, in a directory mixing libraries, the other library's
	// view that has it. Its Kind is KindUnknown when there is no lock.
	queue lockops.Queue
	// at is node's index in queue.Participants, -1 when it is none.
	at int
}

// participant is the node as decoded; ok is false when it is no
// participant of a recognised lock.
func (l *nodeLock) participant() (lockops.Participant, bool) {
	if l.at < 0 || !lockops.Recognised(l.queue.Kind) {
		return lockops.Participant{}, false
	}
	return l.queue.Participants[l.at], true
}

// readNodeLock reads and decodes the lock directory node is in: its parent,
// or for a semaphore both of its places. A directory holding no lock
// node of any known recipe is listed but not read further.
func readNodeLock(ctx context.Context, c *zkview.Client, node string) (nodeLock, error) {
	l := nodeLock{node: node, queue: lockops.Queue{Path: path.Dir(node), Kind: lockops.KindUnknown}, at: -1}
	d, ok, err := scan.ReadLockDirOf(ctx, c, path.Dir(node))
	if err != nil {
		return l, err
	}
	if !ok {
		return readEphemeralNodeLock(ctx, c, l) // ephemeral.go
	}
	l.dir = d
	q := lockops.Decode(d, lockops.DecodeOptions{})
	l.queue, l.at = q, lockops.ParticipantIndex(q, node)
	if l.at >= 0 && q.Participants[l.at].Mode != lockops.ModeStray {
		return l, nil
	}
	// Not a lock node of the directory's recipe: maybe of the other
	// library there (a kazoo node among Curator's is a stray to Curator).
	for _, o := range q.Others {
		if i := lockops.ParticipantIndex(o, node); i >= 0 && o.Participants[i].Mode != lockops.ModeStray {
			l.queue, l.at = o, i
			break
		}
	}
	return l, nil
}

// without decodes the lock again as if node were gone, in the same view
// (same recipe, same lease count): who holds then.
func (l *nodeLock) without() lockops.Queue {
	d := l.dir
	d.Children = dropChild(d.Children, l.node)
	if d.Aux != nil {
		aux := *d.Aux
		aux.Children = dropChild(aux.Children, l.node)
		d.Aux = &aux
	}
	return lockops.Decode(d, lockops.DecodeOptions{Kind: l.queue.Kind, MaxLeases: l.queue.MaxLeases})
}

// dropChild returns children without the one at node (a copy; children is
// left as it is).
func dropChild(children []lockops.Child, node string) []lockops.Child {
	name := path.Base(node)
	return slices.DeleteFunc(slices.Clone(children), func(c lockops.Child) bool { return c.Name == name })
}
