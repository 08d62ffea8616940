//go:build !linux

package zkserver

import (
	"syscall"
	"time"
)

// serverProcAttr puts a server in its own process group (stopped as one);
// only Linux can also tie its life to the starter's.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// waitStopped returns at once where /proc cannot tell: the signal is
// usually delivered by then.
func waitStopped(int, time.Duration) {}
