//go:build !linux

package cmdutil

import "io"

// widenPipe does nothing where pipes cannot be resized.
func widenPipe(io.Writer) {}

// readyHeap does nothing where the kernel offers no huge pages on request.
func readyHeap(int) {}
