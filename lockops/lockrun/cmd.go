package lockrun

// CMD started under a held lock, with the guard that stops it at the
// lock's deadline: starting it, reporting the guard's signals, stopping
// and reaping it. The holding loop is runUnderLock's (run.go).

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// runningCmd is CMD running under the lock.
type runningCmd struct {
	cmd  *exec.Cmd
	lc   LockCommand
	g    *guard
	pgid int // CMD's process group
	say  func(string, ...any)

	exited    <-chan struct{} // closed when CMD has exited (not yet reaped)
	reap      func() error
	signalled bool // the guard sent CMD a signal
}

// startCommand starts CMD in a process group of its own, with the
// lock's fencing variables, in the terminal's foreground when fg >= 0,
// and the guard (unarmed) that can stop it should zkscope freeze. When
// CMD cannot start, the guard is disarmed and the error returned.
func startCommand(h heldLock, lc LockCommand, fg int, say func(string, ...any)) (*runningCmd, error) {
	cmd := exec.Command(lc.Args[0], lc.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = lc.Stdin, lc.Stdout, lc.Stderr
	cmd.Env = append(os.Environ(), h.FenceEnv()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if fg >= 0 {
		// The command owns the terminal (it may read it, Ctrl-C reaches it);
		// we take it back when it exits.
		cmd.SysProcAttr.Foreground, cmd.SysProcAttr.Ctty = true, fg
	}
	g, gerr := startGuard()
	if gerr != nil {
		say("%v: zkscope stops %s itself at the lock's deadline (a frozen zkscope could not)", gerr, lc.Args[0])
	}
	if err := cmd.Start(); err != nil {
		g.disarm()
		return nil, fmt.Errorf("start %s: %w", lc.Args[0], err)
	}
	return &runningCmd{cmd: cmd, lc: lc, g: g, pgid: cmd.Process.Pid, say: say}, nil
}

// reportSignal says what the guard did.
func (r *runningCmd) reportSignal(ev guardEvent) {
	r.signalled = true
	r.say("sent %s to %s (process group %d) at %s: %s", signalName(ev.sig), r.lc.Args[0], r.pgid, ev.at.Format("15:04:05.000"), ev.why)
}

// finish disarms the guard (CMD has exited but is not reaped yet, so its
// process group id cannot have been reused), reports what the guard did
// (every report precedes the disarm's acknowledgement) and reaps CMD.
func (r *runningCmd) finish() int {
	r.g.disarm()
	for {
		select {
		case ev := <-r.g.Events():
			r.reportSignal(ev)
			continue
		default:
		}
		break
	}
	err := r.reap()
	return exitCode(r.cmd, err)
}

// stop has the guard stop CMD now (KillSignal, SIGKILL after KillGrace)
// and waits for it to exit; the status is [ExitLost].
func (r *runningCmd) stop(why string) int {
	r.say("%s; stopping %s (process group %d): %s now, SIGKILL after %s", why, r.lc.Args[0], r.pgid, signalName(r.lc.KillSignal), r.lc.KillGrace)
	r.g.stopNow()
	for {
		select {
		case <-r.exited:
			r.finish()
			return ExitLost
		case ev := <-r.g.Events():
			r.reportSignal(ev)
		}
	}
}
