package cmdutil

import (
	"io"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readyHeap asks the kernel to back the first n bytes the heap will grow
// into with 2 MB pages (transparent huge pages, where the kernel offers
// them on request: "madvise" or "always"). A one-shot read of a big lock
// allocates its megabytes once and never frees them; every first touch of
// a 4 KB page is a page fault, and on a virtual machine a fault costs
// 10-15 µs: a 10,000-contender `locks --json` took about 4,100 of them,
// 40-50 ms of its run. With 2 MB pages they are a handful.
//
// The runtime maps heap memory only as the heap grows, so the memory to
// advise is made by growing it: a ballast of n bytes is allocated
// (untouched: fresh memory is already zero), advised, and collected at
// once; the allocator reuses those pages, lowest addresses first, for what
// follows. Where the kernel refuses the advice nothing changes.
func readyHeap(n int) {
	const hugePage = 2 << 20
	ballast := make([]byte, n+hugePage)
	skip := int(-uintptr(unsafe.Pointer(&ballast[0])) & (hugePage - 1)) // to the first 2 MB boundary
	if whole := (len(ballast) - skip) &^ (hugePage - 1); whole > 0 {
		_ = unix.Madvise(ballast[skip:skip+whole], unix.MADV_HUGEPAGE) // advice: nothing to do if refused
	}
	runtime.KeepAlive(ballast)
	ballast = nil
	runtime.GC() // the ballast is dead: this frees its pages for reuse
}

// widenPipe grows the pipe w writes into (when it is one) to 1 MB, the
// most an unprivileged process may ask: megabytes of JSON then go to the
// reader (jq, a script) in a few writes instead of one per 64 KB, each a
// wake-up of both processes.
func widenPipe(w io.Writer) {
	f, ok := w.(*os.File)
	if !ok {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return
	}
	unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 1<<20) // best effort: the default size works too
}
