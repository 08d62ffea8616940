package follow

// While the persistent watch follows the path, the net under the events
// (a scan of the whole path every scanEveryWhileFollowing intervals) runs
// beside them: events go on being applied while it reads, and what it
// found is taken in mergePerFrame locks a frame (no frame waits for
// thousands), only for the locks no event touched meanwhile (a lock an
// event touched was read after the event, so no older than the scan).
// The scan keeps one batch of reads in flight (besideInFlight): it takes
// longer, and leaves the servers room to answer the events' reads.

import (
	"context"
	"errors"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
)

const (
	// mergePerFrame is how many locks of a scan beside a frame takes in.
	mergePerFrame = 500
	// besideInFlight is how many batches of reads a scan beside keeps in
	// flight (a scan in the loop: as many as the connection takes).
	besideInFlight = 1
)

// scanResult is what a scan in the background found.
type scanResult struct {
	gen        int // w.scans when it began: a scan in the loop since makes it stale
	queues     []lockops.Queue
	unreadable []lockops.Problem
	err        error
}

// merging is a scan beside's result being taken in: the locks it found
// (found, up to next), next the first not taken in yet.
type merging struct {
	r     scanResult
	found map[string]bool
	next  int
}

// scanBeside starts a scan of the path in the background (unless one
// runs or is being taken in); its result comes on w.later, and
// setRaw notes the locks touched meanwhile.
func (w *lockWatch) scanBeside(ctx context.Context) {
	if w.touched != nil {
		return
	}
	w.touched = map[string]bool{}
	gen := w.scans
	go func() {
		queues, unreadable, err := scanAll(ctx, w.c, w.path, Options{MaxLeases: w.o.MaxLeases, Depth: w.o.Depth}, besideInFlight, nil)
		select {
		case w.later <- func() { w.mergeScan(scanResult{gen, queues, unreadable, err}) }:
		case <-ctx.Done():
		}
	}()
}

// mergeScan begins taking in what a scan beside the events found
// (mergeSome, this frame and the next ones).
func (w *lockWatch) mergeScan(r scanResult) {
	if r.gen != w.scans || r.err != nil && !errors.Is(r.err, scan.ErrTruncated) {
		w.touched = nil
		return // stale, or failed: the events go on; the next scan tries again
	}
	w.unreadable = r.unreadable
	w.merge = &merging{r: r, found: make(map[string]bool, len(r.queues))}
	w.mergeSome()
}

// mergeSome takes in up to mergePerFrame more locks of the scan being
// merged: locks it found that no event touched meanwhile replace what was
// known (new ones followed). After the last, the locks it did not find
// that no event touched leave (plain ephemeral locks, found through the
// servers' watch lists, stay).
func (w *lockWatch) mergeSome() {
	m := w.merge
	if m == nil {
		return
	}
	if m.r.gen != w.scans { // a scan in the loop since: newer
		w.merge, w.touched = nil, nil
		return
	}
	end := min(m.next+mergePerFrame, len(m.r.queues))
	for ; m.next < end; m.next++ {
		q := &m.r.queues[m.next]
		m.found[q.Path] = true
		if !w.touched[q.Path] {
			w.mergeOne(q)
		}
	}
	if m.next < len(m.r.queues) {
		return
	}
	for p, q := range w.raw {
		if !m.found[p] && !w.touched[p] && q.Kind != lockops.KindEphemeralLock {
			w.forgetLock(p)
		}
	}
	w.merge, w.touched = nil, nil
}

// mergeOne takes in q, as a scan beside found it.
func (w *lockWatch) mergeOne(q *lockops.Queue) {
	old, had := w.raw[q.Path]
	w.note(q)
	if had && sameDecoded(&old, q) {
		// Unchanged: read as of now, not read again (no snapshot
		// diagnoses it for this; the next sweep judges it).
		old.ReadAt = q.ReadAt
		w.raw[q.Path] = old
		return
	}
	w.setRaw(q.Path, q)
	if !had {
		w.record(q, 0)
		for _, dir := range q.WatchDirs() {
			w.owner[dir] = append(w.owner[dir], q.Path)
		}
	}
}
