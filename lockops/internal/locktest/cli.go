package locktest

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// ZkscopeBinary is the real binary, built once ([zktest.Zkscope]).
func ZkscopeBinary(t testing.TB) string { return zktest.Zkscope(t) }

// ZkscopeCmd prepares `zkscope -s servers args...` with the audit log in
// stateDir.
func ZkscopeCmd(t testing.TB, stateDir, servers string, args ...string) *exec.Cmd {
	cmd := exec.Command(ZkscopeBinary(t), append([]string{"-s", servers, "--session-timeout", "4s"}, args...)...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+stateDir)
	return cmd
}

// RunWithin runs cmd to completion, failing t if it takes longer than d.
func RunWithin(t testing.TB, cmd *exec.Cmd, d time.Duration) (exitCode int, stderr string) {
	t.Helper()
	var errBuf bytes.Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &errBuf
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not finish within %s; stderr:\n%s", cmd.Args, d, errBuf.String())
	}
	return cmd.ProcessState.ExitCode(), errBuf.String()
}

// LockedBuffer is a bytes.Buffer safe for a writer process and a reader test.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what was written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartCLI starts cmd and waits until its stderr contains want.
func StartCLI(t *testing.T, cmd *exec.Cmd, want string) (stderr *LockedBuffer, exited chan struct{}) {
	t.Helper()
	stderr = &LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited = make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	})
	WaitFor(t, "zkscope to print "+want, 60*time.Second, func() bool {
		select {
		case <-exited:
			t.Fatalf("zkscope exited early; stderr:\n%s", stderr.String())
		default:
		}
		return strings.Contains(stderr.String(), want)
	})
	return stderr, exited
}

// WaitExit waits until cmd, started by [StartCLI], exits and returns its
// exit status, failing t after a minute.
func WaitExit(t *testing.T, cmd *exec.Cmd, exited <-chan struct{}, stderr *LockedBuffer) int {
	t.Helper()
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("zkscope did not exit; stderr:\n%s", stderr.String())
	}
	return cmd.ProcessState.ExitCode()
}

// StartKilledAtEnd starts cmd and kills it when t ends if it still runs;
// done is closed once it has exited.
func StartKilledAtEnd(t *testing.T, cmd *exec.Cmd) (done <-chan struct{}) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{})
	go func() { cmd.Wait(); close(ch) }()
	t.Cleanup(func() {
		select {
		case <-ch:
		default:
			cmd.Process.Kill()
			<-ch
		}
	})
	return ch
}

// StartUnderLock starts a `zkscope lock … -- sh -c "echo started; …"`
// process and waits until the command under the lock prints "started". The
// process is killed at the end of the test if it is still running.
func StartUnderLock(t *testing.T, cmd *exec.Cmd) (stderr *LockedBuffer, exited <-chan struct{}) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr = &LockedBuffer{}
	cmd.Stderr = stderr
	done := StartKilledAtEnd(t, cmd)
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "started" {
				close(started)
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		t.Fatalf("the command did not start; stderr:\n%s", stderr.String())
	}
	return stderr, done
}
