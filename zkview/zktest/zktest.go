// Package zktest runs real Apache ZooKeeper servers (the Debian `zookeeper`
// package) for tests, through zkview/zkserver: a standalone server or an
// N-member ensemble on free loopback ports, each with its own temporary
// data directory, stopped when the test ends.
//
// When Java or the ZooKeeper jars are missing, tests are skipped with the
// install command — except under CI=true, where they fail: a suite that needs
// a real server must never pass by skipping it.
//
// This package is for tests only and imports nothing from zkscope but
// zkserver.
package zktest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/zkserver"
)

// InstallHint is the command that installs every real part the tests use.
const InstallHint = "sudo apt-get update && sudo apt-get install -y zookeeper libcurator-recipes-java python3-kazoo"

// JavaDir is where Debian installs the ZooKeeper, Curator and helper jars.
const JavaDir = zkserver.JavaDir

// The servers' types, as zkserver defines them.
type (
	// Options tune a started server or ensemble ([zkserver.Options]).
	Options = zkserver.Options
	// TLSFiles describe a TLS client port ([zkserver.TLSFiles]).
	TLSFiles = zkserver.TLSFiles
	// Server is one running ZooKeeper process ([zkserver.Server]).
	Server = zkserver.Server
	// Cluster is a standalone server or an ensemble ([zkserver.Cluster]).
	Cluster = zkserver.Cluster
)

// InCI reports whether the tests run under CI (CI=true), where missing real
// parts are a failure, not a skip.
func InCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

// Unavailable skips t with why and the install command, or fails it under CI.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	msg := fmt.Sprintf("%s; install with: %s", why, InstallHint)
	if InCI() {
		t.Fatalf("CI=true and a real part is missing: %s", msg)
	}
	t.Skip(msg)
}

// Require checks that Java and the ZooKeeper jars are installed (see [Unavailable]).
func Require(t testing.TB) {
	t.Helper()
	if _, err := zkserver.InstallDir(); err != nil {
		Unavailable(t, err.Error())
	}
}

// StartStandalone starts a standalone server for t and stops it (deleting
// its files) when t ends.
func StartStandalone(t testing.TB, opts Options) *Cluster {
	t.Helper()
	Require(t)
	c, err := Launch(1, opts, t.TempDir())
	if err != nil {
		t.Fatalf("start ZooKeeper: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// StartEnsemble starts an n-member ensemble for t (n ≥ 3 for failover tests),
// waits until it has a leader, and stops it when t ends.
func StartEnsemble(t testing.TB, n int, opts Options) *Cluster {
	t.Helper()
	Require(t)
	c, err := Launch(n, opts, t.TempDir())
	if err != nil {
		t.Fatalf("start %d-member ZooKeeper ensemble: %v", n, err)
	}
	t.Cleanup(c.Stop)
	return c
}

// Launch is [zkserver.Launch], a missing install naming the command that
// installs it. The caller must call [Cluster.Stop].
func Launch(n int, opts Options, dir string) (*Cluster, error) {
	c, err := zkserver.Launch(n, opts, dir)
	if errors.Is(err, zkserver.ErrNotInstalled) {
		return nil, fmt.Errorf("%w (install with: %s)", err, InstallHint)
	}
	return c, err
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) { return zkserver.FreePort() }

// FourLetterWord sends word to addr and reads the reply to EOF: the tests'
// own minimal client, independent of zkview's ([zkserver.FourLetterWord]).
func FourLetterWord(addr, word string, timeout time.Duration) (string, error) {
	return zkserver.FourLetterWord(addr, word, timeout)
}

// Mode returns the "Mode:" value of a srvr/stat reply ("" when absent).
func Mode(srvr string) string { return zkserver.Mode(srvr) }

// ClassPath returns the Java class path of the ZooKeeper install the test
// servers run from, to run its other tools (TxnLogToolkit and the like)
// against the same version.
func ClassPath() (string, error) { return zkserver.ClassPath() }
