//go:build !linux

package lockrun

import "io"

// foregroundTTY: the command is not handed the terminal on this platform.
func foregroundTTY(io.Reader) int { return -1 }

func reclaimTTY(int) {}
