package zktest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Zkscope builds the real zkscope binary once per test process (static,
// as the README installs it) and returns its path; tests of the command
// line and the terminal UI run it.
func Zkscope(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zkscope-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "zkscope")
		build := exec.Command("go", "build", "-o", binPath, "github.com/zkscope/zkscope")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			binErr = errors.New(string(out))
		}
	})
	if binErr != nil {
		tb.Fatalf("build zkscope: %v", binErr)
	}
	return binPath
}
