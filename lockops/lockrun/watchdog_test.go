package lockrun

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/lockops/take"
)

// TestStopPlanOrder: the kill signal comes grace before the deadline and
// SIGKILL at it; a stop asked for earlier sends the kill signal at once and
// SIGKILL a grace later, never after the deadline.
func TestStopPlanOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := stopPlan{armed: true, sig: syscall.SIGTERM, grace: 2 * time.Second, deadline: t0.Add(10 * time.Second)}
	if at, sig, _, _ := p.next(); sig != syscall.SIGTERM || !at.Equal(t0.Add(8*time.Second)) {
		t.Fatalf("first: %s at %s", sig, at)
	}
	p.termSent = true
	if at, sig, _, _ := p.next(); sig != syscall.SIGKILL || !at.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("second: %s at %s", sig, at)
	}
	p = stopPlan{armed: true, sig: syscall.SIGTERM, grace: 2 * time.Second, deadline: t0.Add(10 * time.Second), stopAt: t0.Add(time.Second)}
	if at, sig, why, _ := p.next(); sig != syscall.SIGTERM || !at.Equal(t0.Add(time.Second)) || why != "stopping" {
		t.Fatalf("stop: %s at %s (%s)", sig, at, why)
	}
	p.termSent = true
	if at, sig, _, _ := p.next(); sig != syscall.SIGKILL || !at.Equal(t0.Add(3*time.Second)) {
		t.Fatalf("stop then kill: %s at %s", sig, at)
	}
	p.stopAt = t0.Add(9 * time.Second) // a grace past the deadline: the deadline wins
	if at, _, _, _ := p.next(); !at.Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("kill after the deadline: %s", at)
	}
	p = stopPlan{armed: true, sig: syscall.SIGKILL, grace: 2 * time.Second, deadline: t0.Add(10 * time.Second)}
	if at, sig, _, _ := p.next(); sig != syscall.SIGKILL || !at.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("--kill-signal KILL: %s at %s", sig, at)
	}
	p.killSent = true
	if _, _, _, ok := p.next(); ok {
		t.Fatal("a signal after SIGKILL")
	}
}

// TestWatchdogOutlivesZkscope: the watchdog process (this test binary
// re-executed) kills the guarded process group at the deadline even after
// its zkscope side has gone (its pipe closed), and never before.
func TestWatchdogOutlivesZkscope(t *testing.T) {
	victim := exec.Command("sleep", "60")
	victim.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	exited, reap := watchExit(victim)
	t.Cleanup(func() { victim.Process.Kill(); reap() })
	g, err := startWatchdog()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(1500 * time.Millisecond)
	g.arm(victim.Process.Pid, syscall.SIGKILL, 0, time.Now().Add(300*time.Millisecond))
	g.extend(deadline)
	g.close() // zkscope is gone: no disarm, no further extension
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the watchdog did not kill the process group")
	}
	if at := time.Now(); at.Before(deadline) {
		t.Fatalf("killed %s before the deadline", deadline.Sub(at))
	} else {
		t.Logf("killed %s after the deadline", at.Sub(deadline).Round(time.Millisecond))
	}
	select {
	case ev := <-g.Events():
		if ev.sig != syscall.SIGKILL {
			t.Fatalf("reported %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watchdog did not report its SIGKILL")
	}
}

// TestWatchdogDisarm: a disarmed watchdog sends nothing.
func TestWatchdogDisarm(t *testing.T) {
	victim := exec.Command("sleep", "60")
	victim.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	exited, reap := watchExit(victim)
	t.Cleanup(func() { victim.Process.Kill(); reap() })
	g, err := startWatchdog()
	if err != nil {
		t.Fatal(err)
	}
	g.arm(victim.Process.Pid, syscall.SIGTERM, 100*time.Millisecond, time.Now().Add(400*time.Millisecond))
	start := time.Now()
	g.disarm()
	if time.Since(start) > 300*time.Millisecond {
		t.Fatal("the disarm was not acknowledged in time")
	}
	select {
	case <-exited:
		t.Fatal("a disarmed watchdog killed the process")
	case <-time.After(time.Second):
	}
}

// TestDefaultKillGraceRidesOutRestarts: without --kill-grace CMD gets its
// kill signal 4/5 of the session timeout after the last answer (a fifth
// of it, at most 10s, before the deadline): on a 10 s session a 3.5 s
// server restart (or any outage under ~7 s) does not stop it. A grace
// given is kept up to half the session timeout less the margin.
func TestDefaultKillGraceRidesOutRestarts(t *testing.T) {
	say := func(string, ...any) {}
	for _, tc := range []struct{ timeout, given, want time.Duration }{
		{10 * time.Second, 0, 2 * time.Second},
		{4 * time.Second, 0, 800 * time.Millisecond},
		{30 * time.Second, 0, 6 * time.Second},
		{2 * time.Minute, 0, DefaultKillGrace},
		{10 * time.Second, 3 * time.Second, 3 * time.Second},
		{10 * time.Second, 30 * time.Second, 4500 * time.Millisecond},
	} {
		if got := fitKillGrace(tc.given, tc.timeout, "the session timeout", say); got != tc.want {
			t.Errorf("session timeout %s, --kill-grace %s: grace %s, want %s", tc.timeout, tc.given, got, tc.want)
		}
	}
	const T = 10 * time.Second
	signalAfter := T - hold.LossMargin(T) - fitKillGrace(0, T, "", say)
	if signalAfter < 7*time.Second {
		t.Errorf("on a %s session CMD is signalled %s after the last answer: a restart of a few seconds stops it", T, signalAfter)
	}
}

// TestSuspendedLineSaysWhenAndWhy: the SUSPENDED line of `zkscope lock`
// says when CMD gets each signal (counted down, and as a time of day) and
// which flags move those moments.
func TestSuspendedLineSaysWhenAndWhy(t *testing.T) {
	now := time.Date(2026, 1, 1, 9, 14, 20, 0, time.Local)
	h := &take.Held{} // what its deadline rule says is what is checked, not its timeout
	ch := hold.Change{State: hold.StateSuspended, Reason: "disconnected from ZooKeeper (was on 127.0.0.1:2181)", Deadline: now.Add(9 * time.Second)}
	lc := LockCommand{Args: []string{"./deploy.sh"}, KillSignal: syscall.SIGTERM, KillGrace: 2 * time.Second}
	line := suspendedLine(ch, lc, h, true, now)
	for _, want := range []string{"SIGTERM in 7s (at 09:14:27.000)", "SIGKILL in 9s (at 09:14:29.000)", "--session-timeout", "--kill-grace 2s", "unless ZooKeeper answers first"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line lacks %q:\n%s", want, line)
		}
	}
	if line := suspendedLine(ch, lc, h, false, now); !strings.Contains(line, "lost in 9s (at 09:14:29.000)") || !strings.Contains(line, "--session-timeout") {
		t.Errorf("without CMD: %s", line)
	}
	r := &redislock.Held{TTL: 30 * time.Second}
	if line := suspendedLine(ch, lc, r, true, now); !strings.Contains(line, "--ttl") || !strings.Contains(line, "unless Redis answers first") {
		t.Errorf("Redis: %s", line)
	}
}

// TestParseSignal: --kill-signal takes a name, with or without SIG, any
// case, or a number.
func TestParseSignal(t *testing.T) {
	for in, want := range map[string]syscall.Signal{"TERM": syscall.SIGTERM, "sigkill": syscall.SIGKILL, "INT": syscall.SIGINT, "9": syscall.SIGKILL} {
		if got, err := ParseSignal(in); err != nil || got != want {
			t.Errorf("ParseSignal(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseSignal("NOPE"); err == nil {
		t.Fatal("unknown signal accepted")
	}
}
