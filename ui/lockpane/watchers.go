package lockpane

import "github.com/zkscope/zkscope/lockops"

// paneWatchers gives the waiters that own no node (a single-node lock's
// or an election's candidates, seen only in the servers' watch lists) a
// key of their own, since the pane tells its rows apart by node:
// "<lock node> ← <session>", its last element the row's name. They still
// watch the lock node, so their chain ends at its holder.
func paneWatchers(q *lockops.Queue) {
	for i := range q.Participants {
		x := &q.Participants[i]
		if x.WatcherOnly {
			s := lockops.FormatSession(x.Session)
			x.Node += " ← " + s
			x.Name = "watcher " + s
		}
	}
}

// WithWatcherRows is q, read and diagnosed elsewhere (lockops/follow),
// ready for [Model.SetQueue]: a copy whose waiters that own no node are
// keyed by session, as the pane's own reads key them.
func WithWatcherRows(q lockops.Queue) lockops.Queue {
	q.Participants = append([]lockops.Participant(nil), q.Participants...)
	paneWatchers(&q)
	return q
}
