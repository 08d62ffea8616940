package herd

import (
	"context"
	"fmt"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/zkview"
)

// Queues reads both locks with c as zkscope reads any lock
// (lockops/follow: the scan, the decoders, the servers' view and the
// diagnosis), so what the demo shows is what `zkscope locks` and the lock
// pane show on a real cluster: the naive lock is a plain ephemeral lock
// flagged herd, the chain a Curator mutex.
func (h *Herd) Queues(ctx context.Context, c *zkview.Client) (map[Style]lockops.Queue, error) {
	snap, err := follow.Read(ctx, c, h.o.Root, follow.Options{})
	if err != nil {
		return nil, fmt.Errorf("herd: read the locks: %w", err)
	}
	out := map[Style]lockops.Queue{}
	for _, q := range snap.Queues {
		for _, s := range Styles {
			if q.Path == h.Path(s) {
				out[s] = q
			}
		}
	}
	return out, nil
}
