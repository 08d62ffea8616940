//go:build !linux

package zkserver

import "syscall"

// serverProcAttr puts a server in its own process group (stopped as one);
// only Linux can also tie its life to the starter's.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
