//go:build !linux

package lockrun

import (
	"os/exec"
	"time"
)

// monoNow falls back to the wall clock where CLOCK_MONOTONIC is not read.
func monoNow() int64 { return time.Now().UnixNano() }

// watchExit reports when the started cmd has exited (reaped already on
// this platform: a pid reused before the guard is disarmed is not guarded
// against here).
func watchExit(cmd *exec.Cmd) (exited <-chan struct{}, reap func() error) {
	ch := make(chan struct{})
	var err error
	go func() {
		err = cmd.Wait()
		close(ch)
	}()
	return ch, func() error { <-ch; return err }
}
