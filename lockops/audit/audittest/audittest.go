// Package audittest reads the audit log in tests: one in a temporary
// directory, its lines, whether one is there.
//
// Tests only: no package but a test imports it.
package audittest

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/lockops/audit"
)

// ToTemp points the audit log at a fresh directory and returns the
// log's path.
func ToTemp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	p, err := audit.LogPath()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Read returns the lines of the audit log at p (none when there is none).
func Read(t testing.TB, p string) []audit.Entry {
	t.Helper()
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []audit.Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e audit.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// Has reports whether entries hold op with result on a path starting
// with pathPrefix.
func Has(entries []audit.Entry, op, result, pathPrefix string) bool {
	for _, e := range entries {
		if e.Operation == op && e.Result == result && strings.HasPrefix(e.Path, pathPrefix) {
			return true
		}
	}
	return false
}
