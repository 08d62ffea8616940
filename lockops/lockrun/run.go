// Package lockrun is `zkscope lock PATH -- CMD`: CMD run while a lock is
// held, a ZooKeeper lock ([Run], on take's Held) or a Redis one
// ([RunRedis], on redislock's), stopped by its deadline by a watchdog
// (watchdog.go: zkscope re-executed, [WatchdogMain]) that outlives a
// frozen zkscope; the held lock's changes told as they come.
//
// It takes locks through the taking packages and prints what it says
// itself; it imports nothing of ui or cmd.
package lockrun

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

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/printable"
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
	Take take.Options
	// Args is the command to run while holding the lock; empty means hold
	// until a signal arrives.
	Args []string
	// KillSignal is sent to the command's process group when the lock is
	// lost, or KillGrace before the lock's deadline while no answer comes
	// (default SIGTERM); SIGKILL follows after KillGrace, and at the
	// deadline at the latest. KillGrace 0 means [DefaultKillGrace]; a grace
	// longer than the session timeout allows is shortened (and said so).
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

// Run takes the lock, holds it (running the command, if any)
// and releases it. It returns the process exit status: the command's own,
// [ExitLost] when the lock was lost or revoked while held, [ExitNotAcquired]
// (with the error) when it was never taken, 0 after a signal-initiated
// release without a command.
func Run(ctx context.Context, c *zkview.Client, lc LockCommand) (int, error) {
	lc, say := lc.prepare()
	if len(lc.Args) > 0 {
		lc.KillGrace = fitKillGrace(lc.KillGrace, c.NegotiatedTimeout(), "the session timeout", say)
	}
	opts := lc.Take
	opts.Notice = func(why string) { say("%s", why) }
	userProgress := opts.Progress
	opts.Progress = func(p take.Progress) {
		if p.WaitingOn != "" && opts.Wait != hold.WaitNone { // --no-wait: it fails, it does not wait
			say("waiting for %s: position %d of %d, watching %s", lc.Path, p.Position+1, p.QueueLen, p.WaitingOn) // a person counts from 1
		}
		if userProgress != nil {
			userProgress(p)
		}
	}
	hl, code, err := takeInterruptible(ctx, lc, say, "no lock node was left behind", func(ctx context.Context) (heldLock, error) {
		h, err := take.Take(ctx, c, lc.Path, opts)
		if err != nil {
			return nil, err
		}
		return h, nil
	})
	if err != nil {
		return code, err
	}
	h := hl.(*take.Held)
	if len(lc.Args) == 0 {
		say("holding %s as %s (session %s); Ctrl-C releases", lc.Path, h.Node, lockops.FormatSession(h.Session))
		return holdUntilSignal(ctx, h, lc, say)
	}
	say("holding %s as %s (session %s)", lc.Path, h.Node, lockops.FormatSession(h.Session))
	return runUnderLock(ctx, h, lc, say)
}

// HeldLock is what a lock zkscope holds offers, ZooKeeper's [*take.Held] and
// Redis's [*redislock.Held] alike: its state and why, its deadline, its changes
// and deadlines as they come, loss and revocation, release. A screen that
// shows or releases either kind can hold one of these.
type HeldLock interface {
	State() hold.State
	Reason() string
	Deadline() time.Time
	Changes() <-chan hold.Change
	Deadlines() <-chan time.Time
	LostCh() <-chan struct{}
	RevokeCh() <-chan struct{}
	Release(ctx context.Context) error
	String() string
}

var (
	_ heldLock = (*take.Held)(nil)
	_ heldLock = (*redislock.Held)(nil)
)

// heldLock is what `zkscope lock` needs of a lock it holds: a [HeldLock]
// and how to name it, fence CMD and release it.
type heldLock interface {
	HeldLock
	LockNode() string             // our node or key, for messages
	FenceEnv() []string           // CMD's environment
	ReleaseWithin() time.Duration // how long a release may take
	ServerName() string           // "ZooKeeper", "Redis"
	DeadlineRule() string         // what the deadline is, naming the flag that moves it
}

// prepare fills in lc's defaults and returns the writer of zkscope's lines.
func (lc LockCommand) prepare() (LockCommand, func(string, ...any)) {
	if lc.Messages == nil {
		lc.Messages = io.Discard
	}
	if lc.KillSignal == 0 {
		lc.KillSignal = syscall.SIGTERM
	}
	w := lc.Messages
	return lc, func(format string, args ...any) {
		fmt.Fprintln(w, "zkscope: "+printable.String(fmt.Sprintf(format, args...)))
	}
}

// takeInterruptible runs take, cancelled by the first of lc.Signals; it
// returns the held lock, or the exit status and error of a lock not taken
// (leftBehind says what a failed take leaves: nothing).
func takeInterruptible(ctx context.Context, lc LockCommand, say func(string, ...any), leftBehind string,
	take func(context.Context) (heldLock, error)) (heldLock, int, error) {
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
	h, err := take(takeCtx)
	cancelTake()
	notAcquired := ExitNotAcquired
	select {
	case sig := <-interrupted:
		if s, ok := sig.(syscall.Signal); ok {
			notAcquired = 128 + int(s) // 130 for Ctrl-C, as shells report it
		}
		// A signal while waiting (or just as the lock came): give up.
		say("%s: giving up on %s", sig, lc.Path)
		if err == nil {
			if rerr := releaseAndReport(h, say); rerr != nil {
				return nil, ExitNotAcquired, rerr
			}
			err = fmt.Errorf("interrupted by %s", sig)
		}
	default:
	}
	if lockops.IsRefusal(err) {
		return nil, lockops.ExitRefused, err
	}
	if err != nil {
		if errors.Is(err, hold.ErrTimeout) || errors.Is(err, hold.ErrWouldBlock) || errors.Is(err, context.Canceled) {
			err = fmt.Errorf("%w; %s", err, leftBehind)
		}
		return nil, notAcquired, err
	}
	return h, 0, nil
}

// DefaultKillGrace is the longest grace CMD gets between the kill signal
// and SIGKILL when none is given: a fifth of the session timeout (the
// TTL on Redis), at most this.
const DefaultKillGrace = 10 * time.Second

// defaultKillGrace is the grace when none is given. The lock is at risk
// only at its deadline, so CMD's kill signal comes late by default, 4/5
// of the session timeout after the last answer: a server restart or a
// failover that takes a few seconds does not stop a command whose session
// it does not end. (It was half the session timeout: a 3.5 s restart of a
// standalone server stopped a command on a 10 s session.)
func defaultKillGrace(timeout time.Duration) time.Duration {
	return min(DefaultKillGrace, timeout/5, maxKillGrace(timeout))
}

// fitKillGrace shortens grace to what the session timeout allows (see
// maxKillGrace), saying so when a grace the user gave is shortened; 0 means
// the default ([defaultKillGrace]).
func fitKillGrace(grace, timeout time.Duration, what string, say func(string, ...any)) time.Duration {
	limit := maxKillGrace(timeout)
	if grace <= 0 {
		return defaultKillGrace(timeout)
	}
	if grace > limit {
		say("--kill-grace %s is too long for %s %s: CMD gets %s between the kill signal and SIGKILL, so that it has stopped before the lock can expire", grace, what, timeout, limit)
		return limit
	}
	return grace
}

// release lets go and reports failures as one line; it never waits longer
// than the lock allows (the session timeout, the TTL).
func releaseAndReport(h heldLock, say func(string, ...any)) error {
	ctx, cancel := context.WithTimeout(context.Background(), h.ReleaseWithin())
	defer cancel()
	if err := h.Release(ctx); err != nil {
		return err
	}
	say("released %s", h.LockNode())
	return nil
}

func holdUntilSignal(ctx context.Context, h heldLock, lc LockCommand, say func(string, ...any)) (int, error) {
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
			say("revocation requested for %s: releasing", h.LockNode())
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
			case hold.StateSuspended:
				say("%s", suspendedLine(ch, lc, h, false, time.Now()))
			case hold.StateHeld:
				say("reconnected: still holding %s", h.LockNode())
			case hold.StateLost:
				return ExitLost, fmt.Errorf("LOST the lock %s: %s", lc.Path, ch.Reason)
			}
		}
	}
}

// maxKillGrace is the longest grace the session timeout allows: CMD gets
// its kill signal no earlier than half the session timeout after the last
// contact, so that a member failover (a reconnect in a second or two) does
// not stop it, and SIGKILL at the deadline.
func maxKillGrace(timeout time.Duration) time.Duration {
	return max(timeout/2-hold.LossMargin(timeout), 0)
}

// suspendedLine is what `zkscope lock` prints on SUSPENDED (at now): when
// the lock is treated as lost, or CMD stopped, unless the servers answer
// first, counted down and as a time of day, and what sets that moment,
// naming the flags that move it.
func suspendedLine(ch hold.Change, lc LockCommand, h heldLock, withCmd bool, now time.Time) string {
	when := func(t time.Time) string {
		return fmt.Sprintf("in %s (at %s)", max(t.Sub(now), 0).Round(100*time.Millisecond), t.Format("15:04:05.000"))
	}
	head := fmt.Sprintf("SUSPENDED: %s; unless %s answers first,", ch.Reason, h.ServerName())
	switch {
	case !withCmd:
		return fmt.Sprintf("%s the lock is treated as lost %s, at the deadline: %s", head, when(ch.Deadline), h.DeadlineRule())
	case lc.KillSignal == syscall.SIGKILL:
		return fmt.Sprintf("%s %s gets SIGKILL %s, at the deadline: %s", head, lc.Args[0], when(ch.Deadline), h.DeadlineRule())
	}
	sig := signalName(lc.KillSignal)
	return fmt.Sprintf("%s %s gets %s %s and SIGKILL %s: SIGKILL at the deadline, %s, and %s --kill-grace %s before it",
		head, lc.Args[0], sig, when(ch.Deadline.Add(-lc.KillGrace)), when(ch.Deadline), h.DeadlineRule(), sig, lc.KillGrace)
}

// runUnderLock runs CMD while h is held: it starts CMD (startCommand),
// arms the guard with the lock's deadline, and holds until CMD exits, the
// lock is lost or revoked, or ctx ends; then it releases the lock (unless
// lost) and returns CMD's status.
func runUnderLock(ctx context.Context, h heldLock, lc LockCommand, say func(string, ...any)) (int, error) {
	fg := foregroundTTY(lc.Stdin)
	r, err := startCommand(h, lc, fg, say)
	if err != nil {
		rerr := releaseAndReport(h, say)
		code := 126 // as a shell: found but could not run
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			code = 127
		}
		return code, errors.Join(err, rerr)
	}
	if fg >= 0 {
		defer reclaimTTY(fg)
	}
	deadlines := h.Deadlines()
	r.g.arm(r.pgid, lc.KillSignal, lc.KillGrace, <-deadlinesOr(deadlines, time.Now()))
	r.exited, r.reap = watchExit(r.cmd)
	return r.holdWhileRunning(ctx, h, lc, deadlines)
}

// holdWhileRunning is the holding loop of runUnderLock: it passes the
// lock's new deadlines to the guard and signals to CMD, and ends on CMD's
// exit, a stop, a revocation or the loss of the lock.
func (r *runningCmd) holdWhileRunning(ctx context.Context, h heldLock, lc LockCommand, deadlines <-chan time.Time) (int, error) {
	say := r.say
	changes := h.Changes()
	revoke := h.RevokeCh()
	if !lc.Revocable {
		revoke = nil
	}
	for {
		select {
		case <-r.exited:
			code := r.finish()
			if r.signalled {
				return stoppedAtDeadline(h, lc, code, say)
			}
			if rerr := releaseAndReport(h, say); rerr != nil {
				if errors.Is(rerr, hold.ErrLost) {
					return ExitLost, fmt.Errorf("%s exited with %d, but the lock had been lost before: %w", lc.Args[0], code, rerr)
				}
				return code, rerr
			}
			return code, nil
		case d, ok := <-deadlines:
			if !ok {
				deadlines = nil
				continue
			}
			r.g.extend(d)
		case ev := <-r.g.Events():
			r.reportSignal(ev)
		case sig := <-lc.Signals:
			if s, ok := sig.(syscall.Signal); ok {
				syscall.Kill(-r.pgid, s)
			}
		case <-ctx.Done():
			code := r.stop("stopping")
			releaseAndReport(h, say)
			return code, ctx.Err()
		case <-revoke:
			revoke = nil
			code := r.stop(fmt.Sprintf("REVOKED: someone asked for %s", lc.Path))
			releaseAndReport(h, say)
			return code, fmt.Errorf("lock %s revoked while %s ran; it was stopped", lc.Path, lc.Args[0])
		case ch, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			switch ch.State {
			case hold.StateSuspended:
				say("%s", suspendedLine(ch, lc, h, true, time.Now()))
			case hold.StateHeld:
				say("reconnected: still holding %s", h.LockNode())
			case hold.StateLost:
				code := r.stop(fmt.Sprintf("LOST the lock %s: %s", lc.Path, ch.Reason))
				return code, fmt.Errorf("lock %s lost while %s ran (%s); it was stopped", lc.Path, lc.Args[0], ch.Reason)
			}
		}
	}
}

// stoppedAtDeadline ends `zkscope lock` after the guard stopped CMD because
// the servers did not answer: the lock is treated as lost at its deadline;
// if they answer before, the lock is released. Either way CMD did not finish
// under the lock, so the status is [ExitLost].
func stoppedAtDeadline(h heldLock, lc LockCommand, code int, say func(string, ...any)) (int, error) {
	changes := h.Changes()
	limit := time.After(time.Until(h.Deadline()) + time.Second)
	for h.State() == hold.StateSuspended {
		select {
		case <-changes:
		case <-limit:
		}
		if h.State() == hold.StateSuspended && time.Now().After(h.Deadline()) {
			break
		}
	}
	if st := h.State(); st == hold.StateLost || st == hold.StateSuspended {
		return ExitLost, fmt.Errorf("LOST the lock %s: %s; %s was stopped before (exit %d)", lc.Path, h.Reason(), lc.Args[0], code)
	}
	if err := releaseAndReport(h, say); err != nil {
		return ExitLost, fmt.Errorf("%s was stopped while %s did not answer (exit %d): %w", lc.Args[0], h.ServerName(), code, err)
	}
	return ExitLost, fmt.Errorf("%s was stopped while %s did not answer (exit %d); %s answered again and the lock was released", lc.Args[0], h.ServerName(), code, h.ServerName())
}

// deadlinesOr returns ch when it holds a value, or a channel holding def
// (a lock lost already: its deadline is now).
func deadlinesOr(ch <-chan time.Time, def time.Time) <-chan time.Time {
	select {
	case d, ok := <-ch:
		if ok {
			def = d
		}
	default:
	}
	out := make(chan time.Time, 1)
	out <- def
	return out
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

// KillSignalNames are the signals --kill-signal is usually given
// (completion); [ParseSignal] takes more.
func KillSignalNames() []string { return []string{"TERM", "INT", "HUP", "KILL"} }

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
