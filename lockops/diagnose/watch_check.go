package diagnose

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

// When is a waiter's watch missing? The servers list a session's data
// and exists watches (wchp, per member), but a list is a sample of one
// moment, and a waiter sets its watch a moment after its wait begins: it
// creates its node (or is told its predecessor left), lists the
// directory, then reads its predecessor with a watch. Under churn a
// sample taken in that moment misses the watch of a healthy waiter, and
// a queue read after the sample may show a wait that began after it.
// Clocks do not help: zkscope's and the servers' differ.
//
// So a wait is judged only by samples that began after it, in the
// servers' own order: each member answers srvr (its last applied zxid)
// before it is asked for its watches ([zkview.Member.WatchZxid]), and a
// read zkscope finished before a sample began saw nothing newer than
// what its own member had applied then ([zkview.Ensemble.ReadZxid]). A
// waiter is watch-missing only when
//
//   - zkscope read it waiting on the same node before each of two
//     samples began, and read it waiting on that node again after the
//     second ended (sequential nodes only leave a queue: a wait seen
//     before and after is the same wait all along);
//   - in both, the member its session is connected to had applied that
//     read before listing its watches, and no member lists the session
//     watching that node;
//   - the samples began at least [WatchConfirmGap] apart: a waiter that
//     has not set its watch a second after a sample missed it is not
//     merely in the moment between its change and its watch.
//
// Anything less is unknown (nil, drawn "?"), never an error.

// WatchConfirmGap is the least time between the starts of the two
// samples of the servers' watches that must both miss a waiter's watch.
const WatchConfirmGap = time.Second

// ApplySamples is [ApplyEnsemble] with the servers' answers, oldest
// first (nil ones skipped; the last one is applied): a data or exists wait
// that none lists is missing (WatchObserved false) when two successive
// answers judge it (see above), the later of them one its queue was read
// after ([lockops.Queue.ReadAt]) — the newest such pair — and its wait was first
// read before the earlier began ([lockops.Participant.WaitSeen], else ReadAt).
func ApplySamples(queues []lockops.Queue, samples ...*zkview.Ensemble) {
	if slices.Contains(samples, nil) { // (a copy only then: a follow's sweep calls this for each lock)
		samples = slices.DeleteFunc(slices.Clone(samples), func(e *zkview.Ensemble) bool { return e == nil })
	}
	if len(samples) == 0 {
		return
	}
	ApplyEnsemble(samples[len(samples)-1], queues)
	judgeWaits(queues, samples)
}

// judgeWaits marks missing the waits of queues that a pair of samples
// judges ([ApplySamples]).
func judgeWaits(queues []lockops.Queue, samples []*zkview.Ensemble) {
	for qi := range queues {
		q := &queues[qi]
		if prev, cur := JudgingPair(samples, q.ReadAt); cur != nil {
			for i := range q.Participants {
				if p := &q.Participants[i]; WatchMissingIn(prev, cur, p, waitSeen(q, p)) {
					missing := false
					p.WatchObserved = &missing
				}
			}
		}
		judgeWaits(q.Others, samples)
	}
}

// JudgingPair is the newest pair of successive samples (oldest first),
// begun at least [WatchConfirmGap] apart, the later of which ended before
// readAt: the pair that may judge the waits of a queue read at readAt;
// nils when none.
func JudgingPair(samples []*zkview.Ensemble, readAt time.Time) (prev, cur *zkview.Ensemble) {
	for i := len(samples) - 1; i > 0; i-- {
		if samples[i] == nil || !readAt.After(samples[i].End) {
			continue
		}
		if prev := samples[i-1]; prev != nil && samples[i].At.Sub(prev.At) >= WatchConfirmGap {
			return prev, samples[i]
		}
		return nil, nil
	}
	return nil, nil
}

// WatchMissingIn reports whether the samples prev and cur both miss p's
// wait, first read at seen, and both may judge it (see [ApplySamples];
// p's queue read after cur ended). It does not look at when the samples
// began or the queue was read.
func WatchMissingIn(prev, cur *zkview.Ensemble, p *lockops.Participant, seen time.Time) bool {
	if p.WatcherOnly || p.State != lockops.StateWaiting || p.Watches == "" || p.WatchKind != lockops.WatchData && p.WatchKind != lockops.WatchExists {
		return false
	}
	if p.WatchObserved != nil && *p.WatchObserved {
		return false
	}
	return missedBy(prev, seen, p) && missedBy(cur, seen, p)
}

// waitSeen is when p's wait was first read: its WaitSeen, else when its
// queue q was read.
func waitSeen(q *lockops.Queue, p *lockops.Participant) time.Time {
	if !p.WaitSeen.IsZero() {
		return p.WaitSeen
	}
	return q.ReadAt
}

// missedBy reports whether the sample e, begun after zkscope read p's
// wait (at seen), knows that p's session does not watch p.Watches.
func missedBy(e *zkview.Ensemble, seen time.Time, p *lockops.Participant) bool {
	if e == nil || seen.IsZero() || !seen.Before(e.At) {
		return false
	}
	z, ok := e.ReadZxid()
	return ok && e.WatchMissing(p.Session, p.Watches, z)
}

// ConfirmWatches gives a one-shot read (`locks`, `doctor`) the second
// sample [ApplySamples] needs, only when first (the servers' answer after
// queues were read) misses a waiter's watch it may judge: once
// [WatchConfirmGap] has passed since first began, it asks the servers
// again, then reads those locks again (after a sync, so the read sees at
// least what the members had applied when asked) and replaces them in
// queues, each wait keeping when it was first read. It returns the two
// samples to apply (prev nil and cur first when none was needed). A lock
// that cannot be read again keeps its first read (its waits stay
// unknown).
func ConfirmWatches(ctx context.Context, c *zkview.Client, first *zkview.Ensemble, queues []lockops.Queue, maxLeases int) (prev, cur *zkview.Ensemble, err error) {
	var again []int
	for qi := range queues {
		if queueHasCandidate(first, &queues[qi]) {
			again = append(again, qi)
		}
	}
	if len(again) == 0 {
		return nil, first, nil
	}
	select {
	case <-time.After(time.Until(first.At.Add(WatchConfirmGap))):
	case <-ctx.Done():
		return nil, first, ctx.Err()
	}
	second := c.Introspect(ctx)
	for _, qi := range again {
		old := &queues[qi]
		if _, err := c.Conn().Sync(c.Abs(old.Path)); err != nil {
			continue
		}
		q, err := readLockAgain(ctx, c, *old, maxLeases)
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return first, second, err
			}
			continue
		}
		KeepWaitsSeen(old, &q)
		queues[qi] = q
	}
	return first, second, nil
}

// queueHasCandidate reports whether e misses a wait of q (or of its
// other views) that it may judge.
func queueHasCandidate(e *zkview.Ensemble, q *lockops.Queue) bool {
	for i := range q.Participants {
		p := &q.Participants[i]
		if p.State == lockops.StateWaiting && !p.WatcherOnly && (p.WatchKind == lockops.WatchData || p.WatchKind == lockops.WatchExists) && missedBy(e, waitSeen(q, p), p) {
			return true
		}
	}
	for i := range q.Others {
		if queueHasCandidate(e, &q.Others[i]) {
			return true
		}
	}
	return false
}

// readLockAgain reads and decodes the lock q again, as [scan.Scan] read it.
func readLockAgain(ctx context.Context, c *zkview.Client, q lockops.Queue, maxLeases int) (lockops.Queue, error) {
	switch q.Kind {
	case lockops.KindCuratorSemaphoreV2, lockops.KindKazooSemaphore:
		qs, err := scan.Scan(ctx, c, q.Path, scan.Options{MaxLeases: maxLeases})
		if err != nil {
			return q, err
		}
		for _, n := range qs {
			if n.Path == q.Path {
				return n, nil
			}
		}
		return q, errors.New("no longer a lock")
	}
	d, err := scan.ReadDir(ctx, c, q.Path)
	if err != nil {
		return q, err
	}
	n := lockops.Decode(d, lockops.DecodeOptions{MaxLeases: maxLeases})
	n.Path, n.ReadAt = q.Path, time.Now()
	return n, nil
}

// KeepWaitsSeen carries to next (a later read of the same lock) when each
// wait of prev was first read: a node waiting on the same node in both
// has waited on it all along (nodes between cannot appear), so its
// [lockops.Participant.WaitSeen] stays; other waits begin at next.ReadAt.
func KeepWaitsSeen(prev, next *lockops.Queue) {
	if len(prev.Participants) == 0 {
		return
	}
	was := make(map[string]*lockops.Participant, len(prev.Participants))
	for i := range prev.Participants {
		if p := &prev.Participants[i]; p.State == lockops.StateWaiting && !p.WatcherOnly {
			was[p.Node] = p
		}
	}
	for i := range next.Participants {
		p := &next.Participants[i]
		if o := was[p.Node]; o != nil && p.State == lockops.StateWaiting && o.Watches == p.Watches && !p.WatcherOnly {
			p.WaitSeen = o.WaitSeen
			if p.WaitSeen.IsZero() {
				p.WaitSeen = prev.ReadAt
			}
		}
	}
}
