package follow

// What lets a Follow skip work proportional to every lock: a sweep after
// a new answer of the servers diagnoses again only the locks whose facts
// from the servers changed (viewSame), and a scan beside the events marks
// read again only the locks whose decoded queue changed (sameDecoded).

import (
	"slices"

	"github.com/zkscope/zkscope/lockops"
)

// viewSame reports whether judged (a lock's raw queue with the servers'
// latest samples applied, diagnose.ApplySamples) carries the same facts of
// the servers as shown (its last diagnosed queue, judged with view was):
// the same participants with the same client addresses, observed and
// missing watches, and, in view and now, the same sessions alive and the
// same number of watchers of each node. Then diagnosing it again under now
// finds what shown shows, and the lock need not be diagnosed again.
func viewSame(shown, judged *lockops.Queue, was, now *lockops.ServersView) bool {
	if was == nil || now == nil || was.SessionsComplete != now.SessionsComplete || was.ConnsKnown != now.ConnsKnown {
		return false
	}
	a, b := shown.Participants, judged.Participants
	if len(a) != len(b) || len(shown.Others) != len(judged.Others) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Node != y.Node || x.Session != y.Session || x.WatcherOnly != y.WatcherOnly || x.Client != y.Client ||
			!sameBool(x.WatchObserved, y.WatchObserved) || !slices.Equal(x.ObservedWatches, y.ObservedWatches) {
			return false
		}
		if was.Sessions[x.Session] != now.Sessions[x.Session] || len(watchersOf(was, x.Node)) != len(watchersOf(now, x.Node)) {
			return false
		}
	}
	for i := range shown.Others {
		if !viewSame(&shown.Others[i], &judged.Others[i], was, now) {
			return false
		}
	}
	return true
}

func watchersOf(v *lockops.ServersView, node string) []int64 {
	if v.Watchers == nil {
		return nil
	}
	return v.Watchers(node)
}

func sameBool(a, b *bool) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// sameDecoded reports whether a and b, two reads of one lock (each noted:
// WaitSeen and HeldSince filled), decoded the same: the same nodes (a node
// is the same while its czxid and data version are) in the same states,
// waits and order, with the same problems. Nothing of the servers' view
// is compared: neither has it.
func sameDecoded(a, b *lockops.Queue) bool {
	if a.Path != b.Path || a.Kind != b.Kind || a.MaxLeases != b.MaxLeases || a.Validity != b.Validity || a.HasValidity != b.HasValidity ||
		len(a.Participants) != len(b.Participants) || len(a.Others) != len(b.Others) ||
		!slices.Equal(a.Problems, b.Problems) || !slices.Equal(a.Context, b.Context) {
		return false
	}
	for i := range a.Participants {
		x, y := &a.Participants[i], &b.Participants[i]
		if x.Node != y.Node || x.Czxid != y.Czxid || x.Version != y.Version || x.State != y.State || x.Mode != y.Mode ||
			x.Position != y.Position || x.Watches != y.Watches || x.WatchKind != y.WatchKind || x.Session != y.Session ||
			x.WatcherOnly != y.WatcherOnly || !x.WaitSeen.Equal(y.WaitSeen) || !x.HeldSince.Equal(y.HeldSince) || x.HeldSource != y.HeldSource {
			return false
		}
	}
	for i := range a.Others {
		if !sameDecoded(&a.Others[i], &b.Others[i]) {
			return false
		}
	}
	return true
}
