package audit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestMutationsAudited: the UI's create/edit/delete go to the audit log and
// are refused read-only.
func TestMutationsAudited(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	m := audit.Mutations{Client: locktest.NewClient(t, cl.Addrs())}
	ro := audit.Mutations{Client: locktest.NewClient(t, cl.Addrs(), func(c *zkview.Config) { c.ReadOnly = true })}
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
	e := audittest.Read(t, auditLog)
	for _, want := range []struct{ op, result string }{
		{lockops.OpCreate, audit.OK}, {lockops.OpSet, audit.Refused}, {lockops.OpSet, audit.OK}, {lockops.OpDelete, audit.Failed}, {lockops.OpDelete, audit.OK},
	} {
		if !audittest.Has(e, want.op, want.result, p) {
			t.Fatalf("audit log lacks %s/%s: %+v", want.op, want.result, e)
		}
	}
	fi, err := os.Stat(auditLog)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("audit log mode %v (%v), want 0600", fi.Mode(), err)
	}
	if di, err := os.Stat(filepath.Dir(auditLog)); err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("audit log directory mode %v (%v), want 0700", di.Mode(), err)
	}
	if e[0].User == "" || e[0].Host == "" || len(e[0].Servers) == 0 || e[0].Time.IsZero() {
		t.Fatalf("audit entry lacks who/where/when: %+v", e[0])
	}
}
