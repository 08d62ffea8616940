package lockops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/zkscope/zkscope/zkview"
)

// ExitLost is the exit status of `zkscope lock` when the lock was lost (or
// revoked) while held: EX_TEMPFAIL, "try again later".
const ExitLost = 75

// ExitNotAcquired is the exit status when the lock could not be taken
// (timeout, --no-wait, error).
const ExitNotAcquired = 1

// LockCommand is what `zkscope lock PATH [-- CMD ARGS...]` does.
type LockCommand struct {
	Path string
	Take TakeOptions
	// Args is the command to run while holding the lock; empty means hold
	// until a signal arrives.
	Args []string
	// KillSignal is sent to the command's process group when the lock is
	// lost (default SIGTERM); SIGKILL follows after KillGrace (default 10 s).
	KillSignal syscall.Signal
	KillGrace  time.Duration
	// Revocable: honour Curator revocation requests ("__REVOKE__" written to
	// our node) by stopping the command (as when lost) and releasing.
	Revocable bool
	// Stdin, Stdout, Stderr are passed to the command.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Messages receives zkscope's own lines (progress, holding, lost).
	Messages io.Writer
	// Signals delivers SIGINT/SIGTERM/SIGHUP from signal.Notify: before the
	// lock is held they cancel the wait; while holding without a command
	// they release; with a command they are forwarded to it.
	Signals <-chan os.Signal
}

// RunLockCommand takes the lock, holds it (running the command, if any)
// and releases it. It returns the process exit status: the command's own,
// [ExitLost] when the lock was lost or revoked while held, [ExitNotAcquired]
// (with the error) when it was never taken, 0 after a signal-initiated
// release without a command.
func RunLockCommand(ctx context.Context, c *zkview.Client, lc LockCommand) (int, error) {
	if lc.Messages == nil {
		lc.Messages = io.Discard
	}
	if lc.KillSignal == 0 {
		lc.KillSignal = syscall.SIGTERM
	}
	if lc.KillGrace <= 0 {
		lc.KillGrace = 10 * time.Second
	}
	say := func(format string, args ...any) { fmt.Fprintf(lc.Messages, "zkscope: "+format+"\n", args...) }

	takeCtx, cancelTake := context.WithCancel(ctx)
	defer cancelTake()
	interrupted := make(chan os.Signal, 1)
	go func() {
		select {
		case sig := <-lc.Signals:
			interrupted <- sig
			cancelTake()
		case <-takeCtx.Done():
		}
	}()
	opts := lc.Take
	opts.Notice = func(why string) { say("%s", why) }
	userProgress := opts.Progress
	opts.Progress = func(p Progress) {
		if p.WaitingOn != "" {
			say("waiting for %s: position %d of %d, watching %s", lc.Path, p.Position, p.QueueLen, p.WaitingOn)
		}
		if userProgress != nil {
			userProgress(p)
		}
	}
	h, err := Take(takeCtx, c, lc.Path, opts)
	cancelTake()
	select {
	case sig := <-interrupted:
		// A signal while waiting (or just as the lock came): give up.
		say("%s: giving up on %s", sig, lc.Path)
		if err == nil {
			if rerr := releaseAndReport(h, say); rerr != nil {
				return ExitNotAcquired, rerr
			}
			err = fmt.Errorf("interrupted by %s", sig)
		}
	default:
	}
	if IsRefusal(err) {
		return ExitRefused, err
	}
	if err != nil {
		if errors.Is(err, ErrTimeout) || errors.Is(err, ErrWouldBlock) || errors.Is(err, context.Canceled) {
			err = fmt.Errorf("%w; no lock node was left behind", err)
		}
		return ExitNotAcquired, err
	}
	if len(lc.Args) == 0 {
		say("holding %s as %s (session %s); Ctrl-C releases", lc.Path, h.Node, FormatSession(h.Session))
		return holdUntilSignal(ctx, h, lc, say)
	}
	say("holding %s as %s (session %s)", lc.Path, h.Node, FormatSession(h.Session))
	return runUnderLock(ctx, h, lc, say)
}

// release lets go and reports failures as one line; it never waits longer
// than the session timeout.
func releaseAndReport(h *Held, say func(string, ...any)) error {
	ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout(h.c))
	defer cancel()
	if err := h.Release(ctx); err != nil {
		return err
	}
	say("released %s", h.Node)
	return nil
}

func holdUntilSignal(ctx context.Context, h *Held, lc LockCommand, say func(string, ...any)) (int, error) {
	changes := h.Changes()
	revoke := h.RevokeCh()
	if !lc.Revocable {
		revoke = nil
	}
	for {
		select {
		case sig := <-lc.Signals:
			say("%s: releasing", sig)
			if err := releaseAndReport(h, say); err != nil {
				return ExitLost, err
			}
			return 0, nil
		case <-ctx.Done():
			if err := releaseAndReport(h, say); err != nil {
				return ExitLost, err
			}
			return 0, nil
		case <-revoke:
			say("revocation requested for %s: releasing", h.Node)
			if err := releaseAndReport(h, say); err != nil {
				return ExitLost, err
			}
			return ExitLost, fmt.Errorf("lock %s revoked", lc.Path)
		case ch, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			switch ch.State {
			case StateSuspended:
				say("SUSPENDED: %s", ch.Reason)
			case StateHeld:
				say("reconnected: still holding %s", h.Node)
			case StateLost:
				return ExitLost, fmt.Errorf("LOST the lock %s: %s", lc.Path, ch.Reason)
			}
		}
	}
}

func runUnderLock(ctx context.Context, h *Held, lc LockCommand, say func(string, ...any)) (int, error) {
	cmd := exec.Command(lc.Args[0], lc.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = lc.Stdin, lc.Stdout, lc.Stderr
	fg := foregroundTTY(lc.Stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if fg >= 0 {
		// The command owns the terminal (it may read it, Ctrl-C reaches it);
		// we take it back when it exits.
		cmd.SysProcAttr.Foreground, cmd.SysProcAttr.Ctty = true, fg
	}
	if err := cmd.Start(); err != nil {
		rerr := releaseAndReport(h, say)
		code := 126 // as a shell: found but could not run
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			code = 127
		}
		return code, errors.Join(fmt.Errorf("start %s: %w", lc.Args[0], err), rerr)
	}
	if fg >= 0 {
		defer reclaimTTY(fg)
	}
	pgid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	changes := h.Changes()
	revoke := h.RevokeCh()
	if !lc.Revocable {
		revoke = nil
	}
	stopCommand := func(why string) int {
		say("%s; sending %s to %s (pid %d)", why, signalName(lc.KillSignal), lc.Args[0], pgid)
		syscall.Kill(-pgid, lc.KillSignal)
		select {
		case <-exited:
		case <-time.After(lc.KillGrace):
			say("%s still running after %s: sending SIGKILL", lc.Args[0], lc.KillGrace)
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-exited
		}
		return ExitLost
	}
	for {
		select {
		case err := <-exited:
			code := exitCode(cmd, err)
			if rerr := releaseAndReport(h, say); rerr != nil {
				if errors.Is(rerr, ErrLost) {
					return ExitLost, fmt.Errorf("%s exited with %d, but the lock had been lost before: %w", lc.Args[0], code, rerr)
				}
				return code, rerr
			}
			return code, nil
		case sig := <-lc.Signals:
			if s, ok := sig.(syscall.Signal); ok {
				syscall.Kill(-pgid, s)
			}
		case <-ctx.Done():
			code := stopCommand("stopping")
			releaseAndReport(h, say)
			return code, ctx.Err()
		case <-revoke:
			revoke = nil
			code := stopCommand(fmt.Sprintf("REVOKED: someone asked for %s", lc.Path))
			releaseAndReport(h, say)
			return code, fmt.Errorf("lock %s revoked while %s ran; it was stopped", lc.Path, lc.Args[0])
		case ch, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			switch ch.State {
			case StateSuspended:
				say("SUSPENDED: %s", ch.Reason)
			case StateHeld:
				say("reconnected: still holding %s", h.Node)
			case StateLost:
				code := stopCommand(fmt.Sprintf("LOST the lock %s: %s", lc.Path, ch.Reason))
				return code, fmt.Errorf("lock %s lost while %s ran (%s); it was stopped", lc.Path, lc.Args[0], ch.Reason)
			}
		}
	}
}

// exitCode is the command's exit status, 128+N when killed by signal N.
func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState == nil {
		return ExitNotAcquired
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}

// ParseSignal accepts "TERM", "SIGTERM", "KILL", "INT", "HUP", "QUIT",
// "USR1", "USR2" or a number.
func ParseSignal(s string) (syscall.Signal, error) {
	names := map[string]syscall.Signal{
		"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP,
		"QUIT": syscall.SIGQUIT, "USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2,
	}
	u := s
	if len(u) > 3 && (u[:3] == "SIG" || u[:3] == "sig") {
		u = u[3:]
	}
	for k, v := range names {
		if strings.EqualFold(k, u) {
			return v, nil
		}
	}
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err == nil && n > 0 && n < 65 {
		return syscall.Signal(n), nil
	}
	return 0, fmt.Errorf("unknown signal %q (use TERM, KILL, INT, HUP, QUIT, USR1, USR2 or a number)", s)
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return fmt.Sprintf("signal %d", int(s))
}
