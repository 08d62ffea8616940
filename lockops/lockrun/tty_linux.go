//go:build linux

package lockrun

import (
	"io"
	"os"
	"os/signal"
	"syscall"
	"unsafe"
)

// foregroundTTY returns stdin's descriptor when it is a terminal whose
// foreground process group is ours (so the command can be given the
// terminal), or -1.
func foregroundTTY(stdin io.Reader) int {
	f, ok := stdin.(*os.File)
	if !ok || f == nil {
		return -1
	}
	fd := int(f.Fd())
	var pgrp int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp))); e != 0 {
		return -1
	}
	if int(pgrp) != syscall.Getpgrp() {
		return -1
	}
	return fd
}

// reclaimTTY makes our process group the terminal's foreground group again
// after the command exited (ignoring the SIGTTOU a background group gets
// for asking).
func reclaimTTY(fd int) {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	pgrp := int32(syscall.Getpgrp())
	syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&pgrp)))
}
