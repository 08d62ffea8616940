//go:build !linux

package zktest

import "syscall"

// serverProcAttr puts a server in its own process group (stopped as one);
// only Linux can also tie its life to the starter's.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
