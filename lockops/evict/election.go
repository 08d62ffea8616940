package evict

import (
	"strings"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// leaderRefusal refuses, without o.ForceLeader, to force-delete the
// leader node of a system's election (Kafka, HDFS, HBase, Solr), saying
// what the system would do and the flag that decides; nil otherwise.
func leaderRefusal(l nodeLock, o Options) error {
	p, ok := l.participant()
	if o.ForceLeader || !ok || p.State != lockops.StateHolding || !l.queue.Kind.SystemElection() {
		return nil
	}
	return lockops.Refusef(lockops.OpForceDelete, l.node, "it is the %s's node (%s): deleting it starts a new election: %s; pass --force-leader to delete it anyway",
		lockops.LeaderWord(l.queue.Kind), l.queue.Kind, lockops.NextElection(l.queue.Kind))
}

// ForcesElection reports whether p's node is the leader node of a
// system's election (Kafka, HDFS, HBase, Solr): deleting it starts a new
// election in that system, and [Evict] needs [Options.ForceLeader].
func (p *Preview) ForcesElection() bool {
	return p != nil && p.Holding && lockops.Kind(p.Recipe).SystemElection()
}

// LeaderConfirmation is what an operator types to confirm force-deleting
// a system's leader node where no flag can be passed (the TUI's
// equivalent of --force-leader): the system and the node, "kafka
// controller", "hdfs ActiveStandbyElectorLock", "solr 0000000003"; ""
// when p's node is no system's leader ([Preview.ForcesElection]).
func (p *Preview) LeaderConfirmation() string {
	if !p.ForcesElection() {
		return ""
	}
	return strings.ToLower(lockops.Kind(p.Recipe).System()) + " " + p.SequenceSuffix()
}

// racers counts the sessions the servers (e) list watching the node of a
// single-node lock q whose candidates own no node, its holder aside.
func racers(e *zkview.Ensemble, q lockops.Queue) int {
	if !q.Kind.WatcherWaiters() {
		return 0
	}
	qs := []lockops.Queue{q.Clone()}
	lockops.ApplyWatchers(&qs[0], e.Watchers, e.ClientOf)
	return len(qs[0].Waiters())
}
