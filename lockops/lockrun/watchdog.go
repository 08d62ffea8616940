package lockrun

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The guard stops the command of `zkscope lock -- CMD` on schedule: its
// kill signal at the lock's deadline less the grace, SIGKILL at the
// deadline, unless the deadline moved on meanwhile (every answer from the
// servers extends it). Timers in a stopped zkscope cannot fire, and CMD runs
// in its own process group, so the schedule runs in a watchdog: zkscope
// re-executed with [WatchdogEnv] set, in its own process group. zkscope
// feeds it the deadline through a pipe; if zkscope dies or freezes, the
// watchdog still stops CMD at the last deadline it was given. When the
// watchdog cannot start, the same schedule runs inside zkscope (and a
// frozen zkscope then cannot keep it).

// WatchdogEnv, set to "1", makes the zkscope binary (or a test binary that
// calls [WatchdogMain] first in TestMain) run as a lock command's watchdog.
const WatchdogEnv = "ZKSCOPE_LOCK_WATCHDOG"

// WatchdogMain runs the watchdog and exits when the process was started as
// one ([WatchdogEnv] set); otherwise it returns at once. Call it first in
// main (and in TestMain of tests that run `zkscope lock` in-process).
func WatchdogMain() {
	if os.Getenv(WatchdogEnv) != "1" {
		return
	}
	// Terminal signals are for zkscope and CMD; a write to a zkscope that
	// has gone must fail, not kill the watchdog.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTSTP, syscall.SIGTTOU, syscall.SIGTTIN)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(runWatchdog(os.Stdin, os.Stdout))
}

// planCmd is one instruction to a stop plan.
type planCmd struct {
	kind     string // "arm", "extend", "stop", "disarm"
	pgid     int
	sig      syscall.Signal
	grace    time.Duration
	deadline time.Time
}

// guardEvent is a signal the plan sent ("disarmed" acknowledges a disarm).
type guardEvent struct {
	kind string // "sent" or "disarmed"
	sig  syscall.Signal
	at   time.Time
	why  string
}

// stopPlan is when CMD's process group gets which signal.
type stopPlan struct {
	armed              bool
	pgid               int
	sig                syscall.Signal
	grace              time.Duration
	deadline           time.Time // SIGKILL at the latest then
	stopAt             time.Time // a stop was asked for then (zero: none)
	termSent, killSent bool
}

// next is the plan's next signal and its time (ok false: none left).
func (p *stopPlan) next() (at time.Time, sig syscall.Signal, why string, ok bool) {
	if !p.armed || p.killSent {
		return time.Time{}, 0, "", false
	}
	stopping := !p.stopAt.IsZero()
	if !p.termSent && p.sig != syscall.SIGKILL {
		at, why = p.deadline.Add(-p.grace), "the lock's deadline is near"
		if stopping && p.stopAt.Before(at) {
			at, why = p.stopAt, "stopping"
		}
		return at, p.sig, why, true
	}
	at, why = p.deadline, "the lock's deadline has come: the servers may expire the session from now on"
	if stopping && p.stopAt.Add(p.grace).Before(at) {
		at, why = p.stopAt.Add(p.grace), "the grace after the stop signal is over"
		if p.sig == syscall.SIGKILL {
			at, why = p.stopAt, "stopping"
		}
	}
	return at, syscall.SIGKILL, why, true
}

// runPlan applies cmds to a plan and sends its signals on time, reporting
// each through report. It returns after a disarm, after SIGKILL, or when
// cmds is closed with nothing armed; a closed cmds (zkscope is gone) does
// not cancel an armed plan.
func runPlan(cmds <-chan planCmd, report func(guardEvent)) {
	var p stopPlan
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		at, sig, why, pending := p.next()
		var fire <-chan time.Time
		if pending {
			timer.Reset(time.Until(at))
			fire = timer.C
		}
		select {
		case c, ok := <-cmds:
			if !ok {
				if !pending {
					return
				}
				cmds = nil
				continue
			}
			switch c.kind {
			case "arm":
				p = stopPlan{armed: true, pgid: c.pgid, sig: c.sig, grace: c.grace, deadline: c.deadline}
			case "extend":
				p.deadline = c.deadline
			case "stop":
				if p.stopAt.IsZero() {
					p.stopAt = time.Now()
				}
			case "disarm":
				report(guardEvent{kind: "disarmed", at: time.Now()})
				return
			}
		case <-fire:
			syscall.Kill(-p.pgid, sig)
			report(guardEvent{kind: "sent", sig: sig, at: time.Now(), why: why})
			if sig == syscall.SIGKILL {
				p.killSent = true
				return
			}
			p.termSent = true
		}
	}
}

// runWatchdog is the watchdog process: instructions as lines on in,
// events as lines on out. It returns the exit status.
func runWatchdog(in io.Reader, out io.Writer) int {
	cmds := make(chan planCmd)
	go func() {
		defer close(cmds)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			c, err := parsePlanCmd(sc.Text())
			if err != nil {
				fmt.Fprintf(out, "error %s\n", err)
				continue
			}
			cmds <- c
		}
	}()
	fmt.Fprintln(out, "ready")
	runPlan(cmds, func(ev guardEvent) {
		switch ev.kind {
		case "sent":
			fmt.Fprintf(out, "sent %d %d %s\n", int(ev.sig), ev.at.UnixNano(), ev.why)
		case "disarmed":
			fmt.Fprintln(out, "disarmed")
		}
	})
	return 0
}

// Deadlines cross the pipe as CLOCK_MONOTONIC nanoseconds (shared by every
// process of the machine; wall clocks can jump). Conversions round towards
// the earlier moment: the clock read first makes the remaining time shorter.

func toMono(t time.Time) int64 {
	m := monoNow()
	return m + int64(time.Until(t))
}

func fromMono(ns int64) time.Time {
	now := time.Now()
	return now.Add(time.Duration(ns - monoNow()))
}

func (c planCmd) line() string {
	switch c.kind {
	case "arm":
		return fmt.Sprintf("arm %d %d %d %d", c.pgid, int(c.sig), int64(c.grace), toMono(c.deadline))
	case "extend":
		return fmt.Sprintf("extend %d", toMono(c.deadline))
	}
	return c.kind
}

func parsePlanCmd(s string) (planCmd, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return planCmd{}, errors.New("empty instruction")
	}
	n := make([]int64, len(f)-1)
	for i, x := range f[1:] {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return planCmd{}, fmt.Errorf("bad number %q in %q", x, s)
		}
		n[i] = v
	}
	c := planCmd{kind: f[0]}
	switch {
	case c.kind == "arm" && len(n) == 4:
		c.pgid, c.sig, c.grace, c.deadline = int(n[0]), syscall.Signal(n[1]), time.Duration(n[2]), fromMono(n[3])
	case c.kind == "extend" && len(n) == 1:
		c.deadline = fromMono(n[0])
	case (c.kind == "stop" || c.kind == "disarm") && len(n) == 0:
	default:
		return planCmd{}, fmt.Errorf("unknown instruction %q", s)
	}
	return c, nil
}

// guard is zkscope's side of a stop plan: a watchdog process, or (when it
// could not start) a goroutine.
type guard struct {
	send     func(planCmd) // never blocks for long
	events   chan guardEvent
	disarmed chan struct{} // closed on the "disarmed" acknowledgement
	gone     chan struct{} // closed when the plan has ended (after SIGKILL, or the watchdog exited)
	once     sync.Once
	close    func()
	// Local: the schedule runs inside zkscope.
	Local bool
}

// Events delivers the signals the plan sent.
func (g *guard) Events() <-chan guardEvent { return g.events }

func (g *guard) arm(pgid int, sig syscall.Signal, grace time.Duration, deadline time.Time) {
	g.send(planCmd{kind: "arm", pgid: pgid, sig: sig, grace: grace, deadline: deadline})
}
func (g *guard) extend(deadline time.Time) { g.send(planCmd{kind: "extend", deadline: deadline}) }
func (g *guard) stopNow()                  { g.send(planCmd{kind: "stop"}) }

// disarm cancels the plan and waits (a second at most) for the
// acknowledgement: after it, no signal can reach CMD's process group.
func (g *guard) disarm() {
	g.send(planCmd{kind: "disarm"})
	select {
	case <-g.disarmed:
	case <-g.gone:
	case <-time.After(time.Second):
	}
	g.once.Do(g.close)
}

// startGuard starts the watchdog process, or the in-process schedule when
// it cannot start (why says so).
func startGuard() (g *guard, why error) {
	g, err := startWatchdog()
	if err == nil {
		return g, nil
	}
	return startLocalGuard(), err
}

func newGuard() *guard {
	return &guard{events: make(chan guardEvent, 16), disarmed: make(chan struct{}), gone: make(chan struct{})}
}

// deliver hands an event to zkscope without ever blocking the plan.
func (g *guard) deliver(ev guardEvent) {
	if ev.kind == "disarmed" {
		close(g.disarmed)
		return
	}
	select {
	case g.events <- ev:
	default:
	}
}

func startLocalGuard() *guard {
	g := newGuard()
	g.Local = true
	cmds := make(chan planCmd)
	quit := make(chan struct{})
	g.send = func(c planCmd) {
		select {
		case cmds <- c:
		case <-g.gone:
		case <-quit:
		}
	}
	g.close = func() { close(quit) }
	go func() {
		defer close(g.gone)
		runPlan(cmds, g.deliver)
	}()
	return g
}

func startWatchdog() (*guard, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find zkscope's own binary: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), WatchdogEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the watchdog: %w", err)
	}
	lines := bufio.NewScanner(stdout)
	ready := make(chan bool, 1)
	go func() { ready <- lines.Scan() && lines.Text() == "ready" }()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, errors.New("the watchdog did not start")
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, errors.New("the watchdog did not answer within 10s")
	}
	g := newGuard()
	var mu sync.Mutex
	g.send = func(c planCmd) {
		mu.Lock()
		defer mu.Unlock()
		io.WriteString(stdin, c.line()+"\n")
	}
	g.close = func() {
		stdin.Close()
		go cmd.Wait()
	}
	go func() {
		defer close(g.gone)
		for lines.Scan() {
			f := strings.SplitN(lines.Text(), " ", 4)
			switch {
			case f[0] == "disarmed":
				g.deliver(guardEvent{kind: "disarmed"})
			case f[0] == "sent" && len(f) == 4:
				sig, _ := strconv.Atoi(f[1])
				ns, _ := strconv.ParseInt(f[2], 10, 64)
				g.deliver(guardEvent{kind: "sent", sig: syscall.Signal(sig), at: time.Unix(0, ns), why: f[3]})
			}
		}
	}()
	return g, nil
}
