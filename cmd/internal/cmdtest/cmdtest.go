// Package cmdtest is what the commands' tests share, imported by tests
// only: zkscope's command line run in-process ([Run]) or as the real
// binary ([RunBinary]), a client of the test servers, the terminal UI in
// tmux, and small waiting and buffering helpers.
package cmdtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/cmd/root"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// NewRoot is zkscope's command tree as the binary builds it, without the
// process tuning of one-shot reads (the test binary keeps its garbage
// collector).
func NewRoot() *cobra.Command {
	f := cmdutil.NewFactory("")
	f.Tune = nil
	return root.NewCmdRoot(f)
}

// Run executes the zkscope command line in-process and returns what it
// printed (stdout and stderr).
func Run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := root.ExecuteContext(ctx)
	return out.String(), err
}

// Binary is the real zkscope binary, built once ([zktest.Zkscope]).
func Binary(t testing.TB) string { return zktest.Zkscope(t) }

// RunBinary runs zkscope with args (stdin empty, not a terminal) and
// returns its exit status, stdout and stderr.
func RunBinary(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("zkscope %v did not finish within 60s; stderr:\n%s", args, errOut.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// Dial is a plain client of the server at addr, closed when t ends.
func Dial(t *testing.T, addr string) *zk.Conn {
	t.Helper()
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// SyncBuffer is a bytes.Buffer safe for one writer and one reader.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitUntil polls cond until it holds, failing after a minute.
func WaitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute", what)
		}
	}
}

// Must is v, panicking on err.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
