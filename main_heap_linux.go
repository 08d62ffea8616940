package main

import (
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readyHeap readies the heap of a one-shot command for a lock of the given
// number of children, before they are read: it asks the kernel to back
// the memory their read and decoding will take with 2 MB pages. A
// 10,000-contender lock takes about 7 MB, and every first touch of a 4 KB
// page is a page fault: 2,000 of them, which on a virtual machine with
// shadow page tables cost 10-15 µs each, a third of the whole read. With
// 2 MB pages they are four faults. Where the kernel has no transparent
// huge pages the advice is ignored.
//
// The runtime maps heap memory only as the heap grows, so the memory to
// advise is made by growing it: a ballast of the size needed is
// allocated, advised, and collected at once; the allocator then reuses
// those pages (lowest addresses first) for what follows. Done once.
func readyHeap(children int) {
	heapReady.Do(func() {
		const hugePage = 2 << 20
		n := (children*1024 + 2*hugePage) &^ (hugePage - 1)
		ballast := make([]byte, n)
		skip := int(-uintptr(unsafe.Pointer(&ballast[0])) & (hugePage - 1)) // to the first 2 MB boundary
		if whole := (n - skip) &^ (hugePage - 1); whole > 0 {
			_ = unix.Madvise(ballast[skip:skip+whole], unix.MADV_HUGEPAGE) // advice: nothing to do if refused
		}
		ballast = nil
		runtime.GC()
	})
}

var heapReady sync.Once
