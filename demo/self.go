package demo

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// The command a second terminal runs to watch the demo: this very zkscope.

// WatchCommand is the command that watches the demo's locks (on the
// servers addrs) from another terminal.
func WatchCommand(addrs string) string {
	return selfCommand() + " -s " + addrs + " locks /app --watch"
}

// WatchCommandAt is [WatchCommand] for the locks at or below path.
func WatchCommandAt(addrs, path string) string {
	return selfCommand() + " -s " + addrs + " locks " + path + " --watch"
}

// selfCommand is how a second terminal runs this zkscope: the name
// when PATH finds this very binary, else its absolute path; under `go
// run` (a binary in a go-build directory, gone when the demo ends) the
// `go -C MODULE run .` that builds it again.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "zkscope"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		if dir := moduleDir(); dir != "" {
			return "go -C " + shellQuote(dir) + " run ."
		}
	}
	if p, err := exec.LookPath("zkscope"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && real == exe {
			return "zkscope"
		}
	}
	return shellQuote(exe)
}

// moduleDir is the directory of zkscope's go.mod at or above the working
// directory ("" when there is none).
func moduleDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	module := "github.com/zkscope/zkscope"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != "" {
		module = bi.Main.Path
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modfileModule(b) == module {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// modfileModule is the module path a go.mod declares.
func modfileModule(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
