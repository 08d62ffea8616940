package evict

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/lockops/take/taketest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestEvictHolderHandsOver: the preview names the holder and the waiter
// that gets the lock; the evicted holder's handle goes Lost; the waiter
// acquires; the audit log has the force-delete.
func TestEvictHolderHandsOver(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a, b, op := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	lockPath := zktest.Path(t)
	h, err := take.Take(ctx, a, lockPath, take.Options{Library: lockops.Curator, Note: "stuck job"})
	if err != nil {
		t.Fatal(err)
	}
	w := taketest.TakeAsync(ctx, b, lockPath, take.Options{})
	w.WaitingOn(t, h.Node)
	var waiterNode string
	for _, k := range locktest.Children(t, op, lockPath) {
		if zkview.Join(lockPath, k) != h.Node {
			waiterNode = zkview.Join(lockPath, k)
		}
	}
	p, err := PreviewEvict(ctx, op, h.Node, Options{})
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
	if !strings.Contains(FormatPreview(p), waiterNode) {
		t.Fatalf("formatted preview lacks the next holder:\n%s", FormatPreview(p))
	}
	if err := Evict(ctx, op, h.Node, p.Expect, Options{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.LostCh():
	case <-time.After(30 * time.Second):
		t.Fatal("the evicted holder did not notice")
	}
	h2, err := w.Wait(t)
	if err != nil {
		t.Fatal(err)
	}
	h2.Release(ctx)
	if !audittest.Has(audittest.Read(t, auditLog), lockops.OpForceDelete, audit.OK, h.Node) {
		t.Fatal("audit log lacks the force-delete")
	}
}

// TestEvictRefusesChangedNode: a node deleted and re-created between the
// preview and the confirmation (same name, same session, new czxid) is not
// deleted; nor is one that changed owner or version; nor anything in
// read-only mode. (The node is no lock node: --any-node.)
func TestEvictRefusesChangedNode(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	anyNode := Options{AnyNode: true}
	cl := zktest.Shared(t)
	ctx := context.Background()
	a, op := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	dir := zktest.Path(t)
	zktest.MakePath(t, a.Conn(), dir)
	node := dir + "/holder"
	if _, err := a.Conn().Create(node, []byte("v1"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	p, err := PreviewEvict(ctx, op, node, anyNode)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Conn().Delete(node, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Conn().Create(node, []byte("v2"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	err = Evict(ctx, op, node, p.Expect, anyNode)
	var ce *ChangedError
	if !errors.As(err, &ce) || !strings.HasPrefix(ce.What, "czxid") {
		t.Fatalf("got %v, want a czxid ChangedError", err)
	}
	if ok, _, _ := op.Conn().Exists(node); !ok {
		t.Fatal("the re-created node was deleted")
	}

	// Version moved (someone wrote to it).
	p, err = PreviewEvict(ctx, op, node, anyNode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Conn().Set(node, []byte("v3"), -1); err != nil {
		t.Fatal(err)
	}
	if err := Evict(ctx, op, node, p.Expect, anyNode); !errors.As(err, &ce) || ce.What != "data version" {
		t.Fatalf("got %v, want a version ChangedError", err)
	}
	// Wrong session.
	want := p.Expect
	want.Session++
	if err := Evict(ctx, op, node, want, anyNode); !errors.As(err, &ce) || ce.What != "session" {
		t.Fatalf("got %v, want a session ChangedError", err)
	}
	// Read-only.
	ro := locktest.NewClient(t, cl.Addrs(), func(c *zkview.Config) { c.ReadOnly = true })
	p, err = PreviewEvict(ctx, ro, node, anyNode)
	if err != nil {
		t.Fatalf("preview must work read-only: %v", err)
	}
	if err := Evict(ctx, ro, node, p.Expect, anyNode); !errors.Is(err, zkview.ErrReadOnly) {
		t.Fatalf("got %v, want ErrReadOnly", err)
	}
	if ok, _, _ := op.Conn().Exists(node); !ok {
		t.Fatal("a refused force-delete deleted the node")
	}
	entries := audittest.Read(t, auditLog)
	if !audittest.Has(entries, lockops.OpForceDelete, audit.Failed, node) || !audittest.Has(entries, lockops.OpForceDelete, audit.Refused, node) {
		t.Fatalf("audit log lacks the failed and refused force-deletes: %+v", entries)
	}
	// Gone.
	if err := a.Conn().Delete(node, -1); err != nil {
		t.Fatal(err)
	}
	if err := Evict(ctx, op, node, p.Expect, anyNode); !errors.As(err, &ce) || ce.What != "gone" {
		t.Fatalf("got %v, want a gone ChangedError", err)
	}
}

// TestRevoke: a holder that honours revocation (as `zkscope lock
// --revocable` does) lets go; one that does not keeps the lock.
func TestRevoke(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a, op := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	h, err := take.Take(ctx, a, zktest.Path(t), take.Options{Library: lockops.Curator})
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
	if h.State() != hold.StateHeld {
		t.Fatalf("a revocation request must not change the state: %s", h.State())
	}
	h.Release(ctx)
	// Revocable: release on request. Release must cope with the version
	// the request moved.
	h2, err := take.Take(ctx, a, h.Path, take.Options{Library: lockops.Curator})
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
	locktest.WaitFor(t, "the holder to be released", 30*time.Second, func() bool { return h2.State() == hold.StateReleased })
	if !audittest.Has(audittest.Read(t, auditLog), lockops.OpRevoke, audit.OK, h.Node) {
		t.Fatal("audit log lacks the revoke")
	}
}

// refusalOf returns err's [*lockops.Refusal], failing t when it is none.
func refusalOf(t testing.TB, err error, what string) *lockops.Refusal {
	t.Helper()
	var r *lockops.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("%s: got %v, want a refusal", what, err)
	}
	return r
}

// TestRevokeRefuses: revoke writes nothing and says why on a plain config
// node, a real kazoo holder (kazoo has no revocation), a Curator waiter, a
// persistent Curator-format node and a Curator semaphore's node; each
// refusal is audited as refused.
func TestRevokeRefuses(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a, b, op := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	dir := zktest.Path(t)

	config := locktest.MkNode(t, op, dir+"/app/config", []byte("x=1"), 0)
	locktest.MkNode(t, op, dir+"/app/flags", []byte("on"), 0)
	_, err := Revoke(ctx, op, config, time.Second)
	r := refusalOf(t, err, "revoke of a config node")
	if r.Op != lockops.OpRevoke || r.Path != config || !strings.Contains(r.Reason, "not a lock node") {
		t.Fatalf("refusal %+v", r)
	}
	locktest.Unchanged(t, op, config, []byte("x=1"), 0)

	kz := zktest.StartKazoo(t, cl.ConnectString())
	kazooLock := dir + "/kazoo"
	kz.Acquire(t, "k1", "lock", kazooLock)
	kz.Await(t, "k1", "acquired")
	kids := locktest.Children(t, op, kazooLock)
	if len(kids) != 1 {
		t.Fatalf("kazoo lock children %v, want the holder's", kids)
	}
	kazooHolder := zkview.Join(kazooLock, kids[0])
	data, st, err := op.Conn().Get(kazooHolder)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Revoke(ctx, op, kazooHolder, time.Second)
	r = refusalOf(t, err, "revoke of a kazoo holder")
	if want := "refused to revoke " + kazooHolder + ": it is a kazoo.lock holder: kazoo locks cannot be revoked"; !strings.HasPrefix(err.Error(), want) || !strings.Contains(r.Reason, "zkscope evict") {
		t.Fatalf("refusal reads %q, want it to start %q and point to evict", err, want)
	}
	locktest.Unchanged(t, op, kazooHolder, data, st.Version)
	kz.Release(t, "k1")

	mutex := dir + "/mutex"
	h, err := take.Take(ctx, a, mutex, take.Options{Library: lockops.Curator, Note: "holder"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release(ctx)
	w := taketest.TakeAsync(ctx, b, mutex, take.Options{Library: lockops.Curator, Note: "waiter"})
	pr := w.WaitingOn(t, h.Node)
	data, st, err = op.Conn().Get(pr.Node)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Revoke(ctx, op, pr.Node, time.Second)
	if r = refusalOf(t, err, "revoke of a Curator waiter"); !strings.Contains(r.Reason, "curator.mutex waiter, not the holder") {
		t.Fatalf("refusal %q", r.Reason)
	}
	locktest.Unchanged(t, op, pr.Node, data, st.Version)

	persistent := locktest.MkNode(t, op, dir+"/stuck/_c_0b7e54c2-7d33-4f6a-9a0e-5f8e2c1d3a01-lock-0000000000", []byte("10.0.0.7"), 0)
	_, err = Revoke(ctx, op, persistent, time.Second)
	if r = refusalOf(t, err, "revoke of a persistent node"); !strings.Contains(r.Reason, "PERSISTENT") {
		t.Fatalf("refusal %q", r.Reason)
	}
	locktest.Unchanged(t, op, persistent, []byte("10.0.0.7"), 0)

	// The head of a Curator semaphore's locks/ reads as a mutex holder on
	// its own; the semaphore layout says otherwise.
	const uuid = "_c_0b7e54c2-7d33-4f6a-9a0e-5f8e2c1d3a02-"
	locktest.MkNode(t, a, dir+"/sem/leases/"+uuid+"lease-", nil, zk.FlagEphemeral|zk.FlagSequence)
	semHead := locktest.MkNode(t, a, dir+"/sem/locks/"+uuid+"lock-", nil, zk.FlagEphemeral|zk.FlagSequence)
	_, err = Revoke(ctx, op, semHead, time.Second)
	if r = refusalOf(t, err, "revoke of a semaphore's mutex head"); !strings.Contains(r.Reason, "Curator semaphores cannot be revoked") {
		t.Fatalf("refusal %q", r.Reason)
	}
	locktest.Unchanged(t, op, semHead, nil, 0)

	entries := audittest.Read(t, auditLog)
	for _, n := range []string{config, kazooHolder, pr.Node, persistent, semHead} {
		if !audittest.Has(entries, lockops.OpRevoke, audit.Refused, n) {
			t.Fatalf("audit log lacks the refused revoke of %s: %+v", n, entries)
		}
	}
	for _, e := range entries {
		if e.Operation == lockops.OpRevoke && e.Result != audit.Refused {
			t.Fatalf("a refused revoke is audited as %q: %+v", e.Result, e)
		}
	}
}

// TestEvictRefusesNonParticipant: a node that is no participant of a
// recognised lock (a config node; a child kazoo ignores in a kazoo lock)
// is refused, by the preview and by Evict itself, unless AnyNode.
func TestEvictRefusesNonParticipant(t *testing.T) {
	auditLog := audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	a, op := locktest.NewClient(t, cl.Addrs()), locktest.NewClient(t, cl.Addrs())
	dir := zktest.Path(t)
	config := locktest.MkNode(t, op, dir+"/app/config", []byte("x=1"), 0)
	_, err := PreviewEvict(ctx, op, config, Options{})
	if r := refusalOf(t, err, "preview of a config node"); !strings.Contains(r.Reason, "not a lock node") || !strings.Contains(r.Reason, "--any-node") {
		t.Fatalf("refusal %q", r.Reason)
	}
	refusalOf(t, Evict(ctx, op, config, Expect{}, Options{}), "evict of a config node")
	locktest.Unchanged(t, op, config, []byte("x=1"), 0)

	kazooLock := dir + "/kazoo"
	locktest.MkNode(t, a, kazooLock+"/0f3e5b2a9c8d4e6f8a1b2c3d4e5f6a7b__lock__", nil, zk.FlagEphemeral|zk.FlagSequence)
	notes := locktest.MkNode(t, op, kazooLock+"/notes", []byte("ops"), 0)
	_, err = PreviewEvict(ctx, op, notes, Options{})
	if r := refusalOf(t, err, "preview of a node kazoo ignores"); !strings.Contains(r.Reason, "no participant of the kazoo.lock") {
		t.Fatalf("refusal %q", r.Reason)
	}
	if !audittest.Has(audittest.Read(t, auditLog), lockops.OpForceDelete, audit.Refused, config) || !audittest.Has(audittest.Read(t, auditLog), lockops.OpForceDelete, audit.Refused, notes) {
		t.Fatal("audit log lacks the refused force-deletes")
	}

	p, err := PreviewEvict(ctx, op, config, Options{AnyNode: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Participant || p.Recipe != "unknown" || !strings.Contains(FormatPreview(p), "does not know this node") {
		t.Fatalf("--any-node preview:\n%s", FormatPreview(p))
	}
	if err := Evict(ctx, op, config, p.Expect, Options{AnyNode: true}); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := op.Conn().Exists(config); ok {
		t.Fatal("--any-node did not delete the node")
	}
}

// TestEvictNextToApplicationLeases: an application's own locks/ directory
// next to a leases/ one is no Curator semaphore (it holds other nodes than
// Curator's): a real kazoo lock in it is previewed as the kazoo lock it
// is, as `lock` plans one there (TestPlanTakeInsideSemaphore), not read as
// the semaphore's internal lock.
func TestEvictNextToApplicationLeases(t *testing.T) {
	audittest.ToTemp(t)
	cl := zktest.Shared(t)
	ctx := context.Background()
	op := locktest.NewClient(t, cl.Addrs())
	app := zktest.Path(t) + "/app"
	locktest.MkNode(t, op, app+"/leases", nil, 0)
	kz := zktest.StartKazoo(t, cl.ConnectString())
	kz.Acquire(t, "k", "lock", app+"/locks")
	kz.Await(t, "k", "acquired")
	node := app + "/locks/" + locktest.Children(t, op, app+"/locks")[0]
	p, err := PreviewEvict(ctx, op, node, Options{})
	if err != nil {
		t.Fatalf("preview of the kazoo holder %s next to an application's leases/: %v", node, err)
	}
	if !p.Participant || p.Recipe != string(lockops.KindKazooLock) || !p.Holding || p.LockPath != app+"/locks" {
		t.Fatalf("preview of the kazoo holder: participant %v recipe %s holding %v lock %s, want the holder of the kazoo.lock %s", p.Participant, p.Recipe, p.Holding, p.LockPath, app+"/locks")
	}
}

// TestSequenceSuffix: the sequence a node's name ends with, as the server
// wrote it (negative after an overflow too): what the CLI asks the
// operator to type to confirm.
func TestSequenceSuffix(t *testing.T) {
	if got := (&Preview{Node: "/l/_c_11111111-1111-4111-8111-111111111111-lock-0000000042"}).SequenceSuffix(); got != "0000000042" {
		t.Fatalf("sequence suffix %q", got)
	}
	if got := (&Preview{Node: "/l/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa__lock__-000000001"}).SequenceSuffix(); got != "-000000001" {
		t.Fatalf("negative sequence suffix %q", got)
	}
}
