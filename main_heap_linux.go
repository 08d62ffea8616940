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
// shadow page tables cost 10-15 µs each. With 2 MB pages they are a
// handful (the whole `zkscope locks --json` of such a lock: 2,350 page
// faults -> 1,200, 73 -> 65 ms). Where the kernel has no transparent huge
// pages the advice is ignored.
//
// The runtime maps heap memory only as the heap grows, so the memory to
// advise is made by growing it: a ballast of the size needed is
// allocated, advised, and collected at once; the allocator then reuses
// those pages (lowest addresses first) for what follows. Done once.
func readyHeap(children int) {
	if children < readyHeapMin {
		return // the collection would cost more than the faults it saves
	}
	heapReady.Do(func() {
		const hugePage = 2 << 20
		n := (min(children, readyHeapMax)*1024 + 2*hugePage) &^ (hugePage - 1)
		ballast := make([]byte, n)
		skip := int(-uintptr(unsafe.Pointer(&ballast[0])) & (hugePage - 1)) // to the first 2 MB boundary
		if whole := (n - skip) &^ (hugePage - 1); whole > 0 {
			_ = unix.Madvise(ballast[skip:skip+whole], unix.MADV_HUGEPAGE) // advice: nothing to do if refused
		}
		runtime.GC() // the ballast is dead by now: this frees it
	})
}

var heapReady sync.Once

// readyHeap works for locks of readyHeapMin children or more (a
// collection costs about as much as the faults of 2,000 children), and
// readies room for readyHeapMax children at most (256 MB).
const (
	readyHeapMin = 2000
	readyHeapMax = 256 << 10
)
