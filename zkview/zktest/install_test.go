package zktest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReleaseLayout: with ZOOKEEPER_HOME pointing at the Apache release
// tarball's layout (version-named jars in lib/), a server starts from it.
func TestReleaseLayout(t *testing.T) {
	Require(t)
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
		if err := os.Symlink(filepath.Join(JavaDir, jar), filepath.Join(lib, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ZOOKEEPER_HOME", home)
	in, err := findInstall()
	if err != nil || in.where != home {
		t.Fatalf("findInstall = %+v, %v; want the release at %s", in, err, home)
	}
	c := StartStandalone(t, Options{})
	if _, err := FourLetterWord(c.Addrs()[0], "srvr", 5*time.Second); err != nil {
		t.Fatalf("the server started from ZOOKEEPER_HOME does not answer: %v", err)
	}

	t.Setenv("ZOOKEEPER_HOME", t.TempDir())
	if _, err := findInstall(); err == nil {
		t.Error("an empty ZOOKEEPER_HOME was accepted")
	}
}
