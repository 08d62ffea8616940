package zkserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// JavaDir is where Debian installs the ZooKeeper, Curator and helper jars.
const JavaDir = "/usr/share/java"

// serverJars are the jars on the server's class path. servlet-api is needed
// for the AdminServer (Debian's package omits it) and slf4j-simple makes the
// server log to its log file.
var serverJars = []string{"zookeeper.jar", "zookeeper-jute.jar", "servlet-api.jar", "slf4j-simple.jar"}

// nettyJars are added for a secure client port (Netty connection factory).
var nettyJars = []string{"netty-codec.jar", "netty-resolver.jar"}

// ErrNotInstalled is the error (wrapped, saying what is missing) of a
// server that cannot start because Java or ZooKeeper is not installed.
var ErrNotInstalled = errors.New("ZooKeeper is not installed")

// installError is what is missing for a server to start; it is
// [ErrNotInstalled].
type installError struct{ missing string }

func (e installError) Error() string        { return e.missing }
func (e installError) Is(target error) bool { return target == ErrNotInstalled }

// checkInstalled says what is missing for a server to start (nil when
// nothing).
func checkInstalled() error {
	if _, err := findInstall(); err != nil {
		return installError{err.Error()}
	}
	return nil
}

// InstallDir is the directory of the ZooKeeper install servers run from,
// or what is missing ([ErrNotInstalled]).
func InstallDir() (string, error) {
	in, err := findInstall()
	if err != nil {
		return "", installError{err.Error()}
	}
	return in.where, nil
}

// ClassPath returns the Java class path of the ZooKeeper install servers
// run from, to run its other tools (TxnLogToolkit and the like) against
// the same version.
func ClassPath() (string, error) {
	in, err := findInstall()
	if err != nil {
		return "", installError{err.Error()}
	}
	return strings.Join(in.classPath, ":"), nil
}

// install is a ZooKeeper installation found on this machine: the class
// path that runs its server (the AdminServer and logging included), and
// what a secure client port adds.
type install struct {
	where     string
	classPath []string
	netty     []string
}

// homebrewHomes are where Homebrew puts the zookeeper formula's release
// layout (Apple silicon, Intel).
var homebrewHomes = []string{"/opt/homebrew/opt/zookeeper/libexec", "/usr/local/opt/zookeeper/libexec"}

// findInstall finds ZooKeeper: $ZOOKEEPER_HOME (the Apache release
// tarball's layout, lib/*.jar), else Debian's package (JavaDir), else
// Homebrew's. Java must be on PATH.
func findInstall() (install, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return install{}, errors.New("java is not installed")
	}
	if home := os.Getenv("ZOOKEEPER_HOME"); home != "" {
		if in, ok := releaseLayout(home); ok {
			return in, nil
		}
		return install{}, fmt.Errorf("ZOOKEEPER_HOME=%s holds no lib/zookeeper-*.jar (want the Apache release's layout)", home)
	}
	debErr := func() error {
		for _, j := range serverJars {
			if _, err := os.Stat(filepath.Join(JavaDir, j)); err != nil {
				return fmt.Errorf("%s is missing", filepath.Join(JavaDir, j))
			}
		}
		return nil
	}()
	if debErr == nil {
		in := install{where: JavaDir, classPath: []string{"/etc/zookeeper/conf"}}
		for _, j := range serverJars {
			in.classPath = append(in.classPath, filepath.Join(JavaDir, j))
		}
		for _, j := range nettyJars {
			in.netty = append(in.netty, filepath.Join(JavaDir, j))
		}
		return in, nil
	}
	for _, home := range homebrewHomes {
		if in, ok := releaseLayout(home); ok {
			return in, nil
		}
	}
	return install{}, debErr
}

// releaseLayout is the install at home if it has the Apache release's
// layout (lib/zookeeper-*.jar; every jar the server needs is in lib/).
func releaseLayout(home string) (install, bool) {
	jars, _ := filepath.Glob(filepath.Join(home, "lib", "zookeeper-*.jar"))
	if len(jars) == 0 {
		return install{}, false
	}
	return install{where: home, classPath: []string{filepath.Join(home, "conf"), filepath.Join(home, "lib", "*")}}, true
}
