package follow

// While the persistent watch follows the path, the net under the events
// (a scan of the whole path every scanEveryWhileFollowing intervals) runs
// beside them: events go on being applied while it reads, and what it
// found is taken in only for the locks no event touched meanwhile (a lock
// an event touched was read after the event, so no older than the scan).

import (
	"context"
	"errors"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
)

// scanResult is what a scan in the background found.
type scanResult struct {
	gen        int // w.scans when it began: a scan in the loop since makes it stale
	queues     []lockops.Queue
	unreadable []lockops.Problem
	err        error
}

// scanBeside starts a scan of the path in the background (unless one
// runs); its result comes on w.scanned, and setRaw notes the locks
// touched meanwhile.
func (w *lockWatch) scanBeside(ctx context.Context) {
	if w.touched != nil {
		return
	}
	w.touched = map[string]bool{}
	gen := w.scans
	go func() {
		queues, unreadable, err := scanAll(ctx, w.c, w.path, Options{MaxLeases: w.o.MaxLeases, Depth: w.o.Depth})
		select {
		case w.scannedBeside <- scanResult{gen, queues, unreadable, err}:
		case <-ctx.Done():
		}
	}()
}

// mergeScan takes in what a scan beside the events found: locks it found
// that no event touched meanwhile replace what was known (new ones
// followed), locks it did not find that no event touched leave (plain
// ephemeral locks, found through the servers' watch lists, stay).
func (w *lockWatch) mergeScan(r scanResult) {
	touched := w.touched
	w.touched = nil
	if r.gen != w.scans || r.err != nil && !errors.Is(r.err, scan.ErrTruncated) {
		return // stale, or failed: the events go on; the next scan tries again
	}
	w.unreadable = r.unreadable
	found := make(map[string]bool, len(r.queues))
	for i := range r.queues {
		q := &r.queues[i]
		found[q.Path] = true
		if touched[q.Path] {
			continue
		}
		old, had := w.raw[q.Path]
		w.note(q)
		if had && sameDecoded(&old, q) {
			// Unchanged: read as of now, not read again (no snapshot
			// diagnoses it for this; the next sweep judges it).
			old.ReadAt = q.ReadAt
			w.raw[q.Path] = old
			continue
		}
		w.setRaw(q.Path, q)
		if !had {
			w.record(q, 0)
			for _, dir := range q.WatchDirs() {
				w.owner[dir] = append(w.owner[dir], q.Path)
			}
		}
	}
	for p, q := range w.raw {
		if !found[p] && !touched[p] && q.Kind != lockops.KindEphemeralLock {
			w.forgetLock(p)
		}
	}
}
