package follow

// What a Follow learns besides the tree: the servers' answers (asked at
// most every verifyEvery, in the background while frames go on) and what
// it saw of each node (when its wait and its hold began).

import (
	"context"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// verifyIfDue asks the servers who is connected and watching what, at
// most every verifyEvery (never with NoVerify).
func (w *lockWatch) verifyIfDue(ctx context.Context) {
	if w.o.NoVerify || w.verifying || time.Since(w.verifiedAt) < w.verifyEvery() {
		return
	}
	vctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	e := w.c.Introspect(vctx)
	cancel()
	w.takeVerified(e)
}

// verifySoon is verifyIfDue in the background: the answer comes on
// w.verified, and no frame waits for the servers' four-letter words.
func (w *lockWatch) verifySoon(ctx context.Context) {
	if w.o.NoVerify || w.verifying || time.Since(w.verifiedAt) < w.verifyEvery() {
		return
	}
	w.verifying = true
	go func() {
		vctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		e := w.c.Introspect(vctx)
		cancel()
		select {
		case w.verified <- e:
		case <-ctx.Done():
		}
	}()
}

// verifyEvery is how often the servers are asked at most.
func (w *lockWatch) verifyEvery() time.Duration { return max(verifyEvery, w.o.VerifyEvery) }

// takeVerified takes the servers' answer e as the last sample.
func (w *lockWatch) takeVerified(e *zkview.Ensemble) {
	w.verifying = false
	w.ens, w.verifiedAt = e, time.Now()
	w.samples = append(w.samples[max(len(w.samples)-2, 0):], w.ens)
}

// nodeSeen is what a follow saw of one lock node.
type nodeSeen struct {
	czxid     int64
	watches   string    // the node it waited on when last read
	waitSeen  time.Time // since when it has waited on watches
	holding   bool
	heldSince time.Time // when it was first read holding (zero: at the first scan)
}

// note takes q, just read (ReadAt set), into what was seen of its nodes
// and fills its participants' WaitSeen and HeldSince from it: a wait on
// the same node as before keeps when it was first read; a holder's start
// is the read that first showed it holding, unknown for a holder already
// there at the first scan.
func (w *lockWatch) note(q *lockops.Queue) {
	if w.seen == nil {
		w.seen = map[string]*nodeSeen{}
	}
	for i := range q.Participants {
		p := &q.Participants[i]
		if p.WatcherOnly {
			continue
		}
		m := w.seen[p.Node]
		if m == nil || m.czxid != p.Czxid {
			m = &nodeSeen{czxid: p.Czxid}
			w.seen[p.Node] = m
			if p.State == lockops.StateHolding && w.scanned {
				m.heldSince = q.ReadAt // appeared holding after the first scan
			}
		}
		if p.State == lockops.StateWaiting && (m.watches != p.Watches || m.waitSeen.IsZero()) {
			m.watches, m.waitSeen = p.Watches, q.ReadAt
		}
		if p.State == lockops.StateHolding && !m.holding {
			m.holding = true
			if m.heldSince.IsZero() && !m.waitSeen.IsZero() {
				m.heldSince = q.ReadAt // seen waiting, now holding
			}
		}
		if p.State == lockops.StateWaiting {
			p.WaitSeen = m.waitSeen
		}
		if p.State == lockops.StateHolding && !m.heldSince.IsZero() {
			p.HeldSince, p.HeldSource = m.heldSince, lockops.HeldSeen
		}
	}
}

// forgetGone drops what was seen of nodes no longer in queues.
func (w *lockWatch) forgetGone(queues []lockops.Queue) {
	present := make(map[string]bool, len(w.seen))
	for _, q := range queues {
		for _, p := range q.Participants {
			present[p.Node] = true
		}
	}
	for n := range w.seen {
		if !present[n] {
			delete(w.seen, n)
		}
	}
}
