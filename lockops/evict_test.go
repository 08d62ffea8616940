package lockops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestEvictHolderHandsOver: the preview names the holder and the waiter
// that gets the lock; the evicted holder's handle goes Lost; the waiter
// acquires; the audit log has the force-delete.
func TestEvictHolderHandsOver(t *testing.T) {
	audit := auditToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a, b, op := newClient(t, cl.Addrs()), newClient(t, cl.Addrs()), newClient(t, cl.Addrs())
	lockPath := zktest.Path(t)
	h, err := Take(ctx, a, lockPath, TakeOptions{Library: Curator, Note: "stuck job"})
	if err != nil {
		t.Fatal(err)
	}
	w := takeAsync(ctx, b, lockPath, TakeOptions{})
	w.waitingOn(t, h.Node)
	var waiterNode string
	for _, k := range children(t, op, lockPath) {
		if zkview.Join(lockPath, k) != h.Node {
			waiterNode = zkview.Join(lockPath, k)
		}
	}
	p, err := PreviewEvict(ctx, op, h.Node)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Holding || p.Session != a.SessionID() || p.Recipe != "curator.mutex" || !strings.Contains(string(p.Data), "stuck job") {
		t.Fatalf("preview %+v", p)
	}
	if len(p.NextHolders) != 1 || p.NextHolders[0] != waiterNode {
		t.Fatalf("next holders %v, want [%s]", p.NextHolders, waiterNode)
	}
	if len(p.Warnings) == 0 || !strings.Contains(p.Warnings[0], "NOT told") {
		t.Fatalf("warnings %q lack the not-told warning", p.Warnings)
	}
	if !strings.Contains(FormatEvictPreview(p), waiterNode) {
		t.Fatalf("formatted preview lacks the next holder:\n%s", FormatEvictPreview(p))
	}
	if err := Evict(ctx, op, h.Node, p.Expect); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.LostCh():
	case <-time.After(30 * time.Second):
		t.Fatal("the evicted holder did not notice")
	}
	h2, err := w.wait(t)
	if err != nil {
		t.Fatal(err)
	}
	h2.Release(ctx)
	if !hasAudit(readAudit(t, audit), OpForceDelete, AuditOK, h.Node) {
		t.Fatal("audit log lacks the force-delete")
	}
}

// TestEvictRefusesChangedNode: a node deleted and re-created between the
// preview and the confirmation (same name, same session, new czxid) is not
// deleted; nor is one that changed owner or version; nor anything in
// read-only mode.
func TestEvictRefusesChangedNode(t *testing.T) {
	audit := auditToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a, op := newClient(t, cl.Addrs()), newClient(t, cl.Addrs())
	dir := zktest.Path(t)
	if err := makeParents(a.Conn(), dir, false); err != nil {
		t.Fatal(err)
	}
	node := dir + "/holder"
	if _, err := a.Conn().Create(node, []byte("v1"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	p, err := PreviewEvict(ctx, op, node)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Conn().Delete(node, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Conn().Create(node, []byte("v2"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	err = Evict(ctx, op, node, p.Expect)
	var ce *ChangedError
	if !errors.As(err, &ce) || !strings.HasPrefix(ce.What, "czxid") {
		t.Fatalf("got %v, want a czxid ChangedError", err)
	}
	if ok, _, _ := op.Conn().Exists(node); !ok {
		t.Fatal("the re-created node was deleted")
	}

	// Version moved (someone wrote to it).
	p, err = PreviewEvict(ctx, op, node)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Conn().Set(node, []byte("v3"), -1); err != nil {
		t.Fatal(err)
	}
	if err := Evict(ctx, op, node, p.Expect); !errors.As(err, &ce) || ce.What != "data version" {
		t.Fatalf("got %v, want a version ChangedError", err)
	}
	// Wrong session.
	want := p.Expect
	want.Session++
	if err := Evict(ctx, op, node, want); !errors.As(err, &ce) || ce.What != "session" {
		t.Fatalf("got %v, want a session ChangedError", err)
	}
	// Read-only.
	ro := newClient(t, cl.Addrs(), func(c *zkview.Config) { c.ReadOnly = true })
	p, err = PreviewEvict(ctx, ro, node)
	if err != nil {
		t.Fatalf("preview must work read-only: %v", err)
	}
	if err := Evict(ctx, ro, node, p.Expect); !errors.Is(err, zkview.ErrReadOnly) {
		t.Fatalf("got %v, want ErrReadOnly", err)
	}
	if ok, _, _ := op.Conn().Exists(node); !ok {
		t.Fatal("a refused force-delete deleted the node")
	}
	entries := readAudit(t, audit)
	if !hasAudit(entries, OpForceDelete, AuditFailed, node) || !hasAudit(entries, OpForceDelete, AuditRefused, node) {
		t.Fatalf("audit log lacks the failed and refused force-deletes: %+v", entries)
	}
	// Gone.
	if err := a.Conn().Delete(node, -1); err != nil {
		t.Fatal(err)
	}
	if err := Evict(ctx, op, node, p.Expect); !errors.As(err, &ce) || ce.What != "gone" {
		t.Fatalf("got %v, want a gone ChangedError", err)
	}
}

// TestRevoke: a holder that honours revocation (as `zkscope lock
// --revocable` does) lets go; one that does not keeps the lock.
func TestRevoke(t *testing.T) {
	audit := auditToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a, op := newClient(t, cl.Addrs()), newClient(t, cl.Addrs())
	h, err := Take(ctx, a, zktest.Path(t), TakeOptions{Library: Curator})
	if err != nil {
		t.Fatal(err)
	}
	// Not revocable: nobody reacts.
	res, err := Revoke(ctx, op, h.Node, 300*time.Millisecond)
	if err != nil || res.Released || res.Session != a.SessionID() {
		t.Fatalf("revoke of a non-revocable holder: %+v %v", res, err)
	}
	select {
	case <-h.RevokeCh():
	case <-time.After(30 * time.Second):
		t.Fatal("the holder did not see the revocation request")
	}
	if h.State() != StateHeld {
		t.Fatalf("a revocation request must not change the state: %s", h.State())
	}
	h.Release(ctx)
	// Revocable: release on request. Release must cope with the version
	// the request moved.
	h2, err := Take(ctx, a, h.Path, TakeOptions{Library: Curator})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		<-h2.RevokeCh()
		h2.Release(ctx)
	}()
	res, err = Revoke(ctx, op, h2.Node, 30*time.Second)
	if err != nil || !res.Released {
		t.Fatalf("revoke of a revocable holder: %+v %v", res, err)
	}
	waitFor(t, "the holder to be released", 30*time.Second, func() bool { return h2.State() == StateReleased })
	if !hasAudit(readAudit(t, audit), OpRevoke, AuditOK, h.Node) {
		t.Fatal("audit log lacks the revoke")
	}
}

// TestMutationsAudited: the UI's create/edit/delete go to the audit log and
// are refused read-only.
func TestMutationsAudited(t *testing.T) {
	audit := auditToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	m := Mutations{Client: newClient(t, cl.Addrs())}
	ro := Mutations{Client: newClient(t, cl.Addrs(), func(c *zkview.Config) { c.ReadOnly = true })}
	dir := zktest.Path(t)
	if err := makeParents(m.Client.Conn(), dir, false); err != nil {
		t.Fatal(err)
	}
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
