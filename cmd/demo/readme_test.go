package demo_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// readmeRunCommand is the README's first command (the "Run the demo" one).
func readmeRunCommand(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```sh\n")
	if !ok {
		t.Fatal("README has no sh block")
	}
	cmd, _, _ := strings.Cut(rest, "\n```")
	return strings.TrimSpace(cmd)
}

// TestREADMERunCommand runs the README's first command as root on a
// machine without sudo, and as a normal user with sudo, with the
// ZooKeeper package "missing" (the check looks at a path that does not
// exist): apt-get is called directly as root, through sudo otherwise, and
// the demo starts. apt-get, sudo and id are stubs that record their
// calls; `go run . demo` runs the zkscope binary built from this tree.
func TestREADMERunCommand(t *testing.T) {
	zktest.Require(t)
	line := readmeRunCommand(t)
	const jar = "/usr/share/java/zookeeper.jar"
	if !strings.Contains(line, jar) || !strings.HasSuffix(line, "go run . demo") {
		t.Fatalf("the README's first command changed shape: %s", line)
	}
	line = strings.Replace(line, jar, filepath.Join(t.TempDir(), "missing.jar"), 1)
	bin := cmdtest.Binary(t)

	for _, tc := range []struct {
		name string
		uid  string
		sudo string // the sudo stub's body ("" : none on PATH)
	}{
		{name: "root without sudo", uid: "0"},
		{name: "user with sudo", uid: "1000", sudo: "echo \"sudo $*\" >> \"$LOG\"; exec \"$@\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stubs := t.TempDir()
			log := filepath.Join(t.TempDir(), "calls.log")
			write := func(name, body string) {
				if err := os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			write("apt-get", `echo "apt-get $*" >> "$LOG"`)
			write("id", `[ "$1" = -u ] && { echo `+tc.uid+`; exit 0; }; exec /usr/bin/id "$@"`)
			write("go", `[ "$*" = "run . demo" ] && exec "$ZKSCOPE_BIN" demo; echo "unexpected: go $*" >&2; exit 99`)
			if tc.sudo != "" {
				write("sudo", tc.sudo)
			} else {
				// A machine without sudo: the real one, if any, is hidden.
				write("sudo", `echo "sudo: command not found" >&2; echo "sudo $*" >> "$LOG"; exit 127`)
			}
			cmd := exec.Command("/bin/sh", "-c", line)
			cmd.Env = append(os.Environ(), "PATH="+stubs+":"+os.Getenv("PATH"), "LOG="+log,
				"ZKSCOPE_BIN="+bin, "XDG_STATE_HOME="+t.TempDir())
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out cmdtest.SyncBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			defer func() {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // the demo cleans up
				select {
				case <-exited:
				case <-time.After(30 * time.Second):
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					<-exited
				}
			}()
			for deadline := time.Now().Add(90 * time.Second); !strings.Contains(out.String(), "ZooKeeper serves on"); time.Sleep(50 * time.Millisecond) {
				select {
				case <-exited:
					t.Fatalf("the command ended before the demo started:\n%s", out.String())
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("the demo did not start within 90s:\n%s", out.String())
				}
			}
			b, _ := os.ReadFile(log)
			calls := string(b)
			want := "apt-get update\napt-get install -y zookeeper\n"
			if tc.sudo != "" {
				want = "sudo apt-get update\napt-get update\nsudo apt-get install -y zookeeper\napt-get install -y zookeeper\n"
			}
			if calls != want {
				t.Errorf("calls:\n%s\nwant:\n%s", calls, want)
			}
		})
	}
}
