package cmdutil

import (
	"io"
	"runtime/debug"
)

// TuneForBigRead is the process-level tuning of a one-shot command (locks
// without --watch, doctor): one that reads, prints to out and exits. It is
// the only such tuning zkscope does, and the packages know nothing of it.
//
// The garbage collector is off: almost everything such a command
// allocates lives until it prints, so collecting only costs time (and, on
// a 2-core machine next to a server, the server's core). The size
// assumption is checked by the runtime, not trusted: the collector comes
// back if the heap nears oneShotHeapLimit (a 10,000-contender lock takes
// about 7 MB). A scan of a big tree streams (zkview.Walk): what it keeps
// is small, what it allocates on the way is not, so the limit is what
// bounds its peak memory. Long-running modes (--watch, the TUI) keep the
// default.
// The pipe out writes into, when it is one, is widened (widenPipe).
//
// Call it first thing: turning the collector off waits for a collection
// under way, which connecting would have started.
func TuneForBigRead(out io.Writer) {
	debug.SetMemoryLimit(oneShotHeapLimit)
	debug.SetGCPercent(-1)
	widenPipe(out)
}

// ReadyHeapForChildren readies the heap of a one-shot command that is
// about to read a directory of n children (a lock's contenders): for 2,000
// or more, the memory their read and decoding take is backed with 2 MB
// pages (readyHeap, where the kernel offers them), about 1 KB a child and
// 256 MB at most. Below that, the collection it costs is more than the
// page faults it saves, and a small read's memory stays small.
func ReadyHeapForChildren(n int) {
	if n < readyHeapMin {
		return
	}
	readyHeap(min(n, readyHeapMax)*1024 + 2<<20)
}

const (
	readyHeapMin = 2000
	readyHeapMax = 256 << 10
)

// oneShotHeapLimit is the heap a one-shot command grows to before its
// collector runs.
const oneShotHeapLimit = 40 << 20
