package zktest

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var (
	sharedOnce sync.Once
	shared     *Cluster
	sharedErr  error
	sharedDir  string
	pathSeq    atomic.Int64
)

// Main runs a package's tests and stops the shared server afterwards:
//
//	func TestMain(m *testing.M) { zktest.Main(m) }
func Main(m interface{ Run() int }) {
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

// Shared returns one standalone server shared by every test of the package
// (started on first use; stopped by [Main]). Tests that share it must work
// under their own [Path] and must not stop or restart it.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	Require(t)
	sharedOnce.Do(func() {
		sharedDir, sharedErr = os.MkdirTemp("", "zkscope-zktest-")
		if sharedErr != nil {
			return
		}
		shared, sharedErr = Launch(1, Options{}, sharedDir)
	})
	if sharedErr != nil {
		t.Fatalf("start shared ZooKeeper: %v", sharedErr)
	}
	return shared
}

// Path returns a fresh absolute znode path for t ("/zkscope-test/TestName-N"),
// so tests that share a server never see each other's nodes. The node itself
// is not created.
func Path(t testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_", "#", "_").Replace(t.Name())
	return fmt.Sprintf("/zkscope-test/%s-%d", name, pathSeq.Add(1))
}
