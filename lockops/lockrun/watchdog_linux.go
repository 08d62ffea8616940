//go:build linux

package lockrun

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// monoNow reads CLOCK_MONOTONIC, the clock every process of the machine
// shares (it does not jump with the wall clock).
func monoNow() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// watchExit reports when the started cmd has exited, without reaping it:
// until reap is called its pid (and process group id) cannot be reused, so
// the guard can be disarmed before anything else could get that id.
func watchExit(cmd *exec.Cmd) (exited <-chan struct{}, reap func() error) {
	ch := make(chan struct{})
	pid := cmd.Process.Pid
	go func() {
		defer close(ch)
		var info unix.Siginfo
		for {
			if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != unix.EINTR {
				return
			}
		}
	}()
	return ch, cmd.Wait
}
