package exporter

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

const (
	// exporterGOGC is the exporter's GOGC unless the environment sets one.
	exporterGOGC = 50
	// limitHeadroom is what the soft memory limit leaves above the heap's
	// goal: the goroutines' stacks and the runtime's own structures.
	limitHeadroom = 8 << 20
	// limitFloor is the least soft memory limit: a small model's heap
	// (a few MB) is not collected all the time.
	limitFloor = 32 << 20
	// limitEvery is how often the soft memory limit follows the live heap.
	limitEvery = 5 * time.Second
)

// tuneGC sets GOGC (unless the environment sets one) and, unless
// GOMEMLIMIT is set, keeps a soft memory limit just above the heap's
// goal until ctx ends. Most of the heap is the model, kept for the
// process's life: a collection when the heap grew by half of it keeps the
// exporter near its model's size for little more CPU, and the limit makes
// the runtime hand the pages freed since (the reads of a changed lock,
// the scrapes) back to the system instead of keeping them resident. The
// limit follows the live heap (its goal plus limitHeadroom), so a model
// bigger than any fixed figure is never collected without end.
func tuneGC(ctx context.Context) {
	gogc := exporterGOGC
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(exporterGOGC)
	} else {
		gogc = debug.SetGCPercent(-1)
		debug.SetGCPercent(gogc)
	}
	if os.Getenv("GOMEMLIMIT") != "" || gogc < 0 {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		debug.SetMemoryLimit(softLimit(int64(sample[0].Value.Uint64()), gogc))
	}
	go func() { // the first at limitEvery: the first scan is not collected against an empty model's limit

		tick := time.NewTicker(limitEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				set()
			}
		}
	}()
}

// softLimit is the soft memory limit for a live heap of live bytes under
// GOGC gogc: the heap's goal, limitHeadroom above it, at least limitFloor.
func softLimit(live int64, gogc int) int64 {
	return max(limitFloor, live+live*int64(gogc)/100+limitHeadroom)
}
