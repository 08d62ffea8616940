package lockops

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestMutationsAudited: the UI's create/edit/delete go to the audit log and
// are refused read-only.
func TestMutationsAudited(t *testing.T) {
	audit := auditToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	m := Mutations{Client: locktest.NewClient(t, cl.Addrs())}
	ro := Mutations{Client: locktest.NewClient(t, cl.Addrs(), func(c *zkview.Config) { c.ReadOnly = true })}
	dir := zktest.Path(t)
	zktest.MakePath(t, m.Client.Conn(), dir)
	p, err := m.Create(ctx, dir+"/n", []byte("a"), zk.FlagPersistent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Set(ctx, p, []byte("b"), 0); !errors.Is(err, zkview.ErrReadOnly) {
		t.Fatalf("read-only set: %v", err)
	}
	if _, err := m.Set(ctx, p, []byte("b"), 0); err != nil {
		t.Fatal(err)
	}
	if err := m.Delete(ctx, p, 0); err == nil {
		t.Fatal("delete with a stale version must fail")
	}
	if err := m.Delete(ctx, p, 1); err != nil {
		t.Fatal(err)
	}
	e := readAudit(t, audit)
	for _, want := range []struct{ op, result string }{
		{OpCreate, AuditOK}, {OpSet, AuditRefused}, {OpSet, AuditOK}, {OpDelete, AuditFailed}, {OpDelete, AuditOK},
	} {
		if !hasAudit(e, want.op, want.result, p) {
			t.Fatalf("audit log lacks %s/%s: %+v", want.op, want.result, e)
		}
	}
	fi, err := os.Stat(audit)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("audit log mode %v (%v), want 0600", fi.Mode(), err)
	}
	if di, err := os.Stat(filepath.Dir(audit)); err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("audit log directory mode %v (%v), want 0700", di.Mode(), err)
	}
	if e[0].User == "" || e[0].Host == "" || len(e[0].Servers) == 0 || e[0].Time.IsZero() {
		t.Fatalf("audit entry lacks who/where/when: %+v", e[0])
	}
}

// auditToTemp points the audit log at a fresh directory and returns the
// log's path.
func auditToTemp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	p, err := AuditLogPath()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readAudit(t testing.TB, p string) []AuditEntry {
	t.Helper()
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []AuditEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func hasAudit(entries []AuditEntry, op, result, pathPrefix string) bool {
	for _, e := range entries {
		if e.Operation == op && e.Result == result && strings.HasPrefix(e.Path, pathPrefix) {
			return true
		}
	}
	return false
}
