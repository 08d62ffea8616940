package version_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
)

// TestManAndVersion: the hidden man command writes a page per command;
// version names the Go version.
func TestManAndVersion(t *testing.T) {
	dir := t.TempDir()
	if out, err := cmdtest.Run(t, "man", dir); err != nil {
		t.Fatalf("man: %v\n%s", err, out)
	}
	for _, page := range []string{"zkscope.1", "zkscope-locks.1", "zkscope-create.1", "zkscope-config-use-context.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil || !strings.Contains(string(b), ".TH") {
			t.Errorf("man page %s: %v", page, err)
		}
	}
	out, err := cmdtest.Run(t, "version")
	if err != nil || !strings.HasPrefix(out, "zkscope ") || !strings.Contains(out, "go: go1.") {
		t.Errorf("version: %v\n%s", err, out)
	}
	if out, err := cmdtest.Run(t, "version", "-o", "json"); err != nil || !strings.Contains(out, `"go":"go1.`) {
		t.Errorf("version -o json: %v\n%s", err, out)
	}
}
