package exporter

import (
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/follow"
)

// MetricNames are the names of every metric the exporter serves.
func MetricNames() []string {
	var out []string
	for _, f := range families {
		out = append(out, f.name)
	}
	return out
}

// ApplyChanges applies q to c's root as a Follow's snapshot of changes
// does: q alone, the other locks kept.
func ApplyChanges(c *Cluster, root string, q lockops.Queue, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.applyLocked(root, follow.Snapshot{Queues: []lockops.Queue{q}, Changes: true}, at)
}
