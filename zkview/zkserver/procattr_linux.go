package zkserver

import "syscall"

// serverProcAttr puts a server in its own process group (stopped as one)
// that dies with the process that started it.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
