package zkserver_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/zkserver"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestReleaseLayout: with ZOOKEEPER_HOME pointing at the Apache release
// tarball's layout (version-named jars in lib/), a server starts from it.
func TestReleaseLayout(t *testing.T) {
	zktest.Require(t)
	home := t.TempDir()
	lib := filepath.Join(home, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	// The release names its jars with their versions.
	for name, jar := range map[string]string{
		"zookeeper-3.8.0.jar": "zookeeper.jar", "zookeeper-jute-3.8.0.jar": "zookeeper-jute.jar",
		"javax.servlet-api-3.1.0.jar": "servlet-api.jar", "slf4j-simple-1.7.36.jar": "slf4j-simple.jar",
	} {
		if err := os.Symlink(filepath.Join(zkserver.JavaDir, jar), filepath.Join(lib, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ZOOKEEPER_HOME", home)
	if where, err := zkserver.InstallDir(); err != nil || where != home {
		t.Fatalf("InstallDir = %q, %v; want the release at %s", where, err, home)
	}
	c := zktest.StartStandalone(t, zktest.Options{})
	if _, err := zkserver.FourLetterWord(c.Addrs()[0], "srvr", 5*time.Second); err != nil {
		t.Fatalf("the server started from ZOOKEEPER_HOME does not answer: %v", err)
	}

	t.Setenv("ZOOKEEPER_HOME", t.TempDir())
	if _, err := zkserver.InstallDir(); err == nil {
		t.Error("an empty ZOOKEEPER_HOME was accepted")
	}
}
