//go:build !linux

package cmdutil

import "io"

// widenPipe does nothing where pipes cannot be resized.
func widenPipe(io.Writer) {}
