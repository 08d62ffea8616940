package zkview

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestCreateModes(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	other := dial(t, Config{Servers: cl.Addrs()})
	seq := regexp.MustCompile(`-\d{10}$`)
	for _, tc := range []struct {
		name      string
		opts      CreateOptions
		ephemeral bool
		sequence  bool
	}{
		{"persistent", CreateOptions{Mode: ModePersistent, MakeParents: true}, false, false},
		{"ephemeral", CreateOptions{Mode: ModeEphemeral}, true, false},
		{"seq-", CreateOptions{Mode: ModeSequential}, false, true},
		{"eseq-", CreateOptions{Mode: ModeEphemeralSequential}, true, true},
		{"container", CreateOptions{Mode: ModeContainer}, false, false},
		{"ttl", CreateOptions{Mode: ModeTTL, TTL: time.Hour}, false, false},
		{"ttlseq-", CreateOptions{Mode: ModePersistentSequentialTTL, TTL: time.Hour}, false, true},
	} {
		p := root + "/" + tc.name
		got, err := c.Create(p, []byte(tc.name), tc.opts)
		if err != nil {
			t.Errorf("create %s (%s): %v", tc.name, tc.opts.Mode, err)
			continue
		}
		if tc.sequence != seq.MatchString(got) || !strings.HasPrefix(got, p) {
			t.Errorf("%s: created %q", tc.opts.Mode, got)
		}
		n, err := other.Get(got)
		if err != nil || string(n.Data) != tc.name {
			t.Errorf("%s: read back %+v %v", tc.opts.Mode, n, err)
			continue
		}
		if eph := n.Stat.EphemeralOwner == c.SessionID(); eph != tc.ephemeral {
			t.Errorf("%s: ephemeral owner %x, session %x", tc.opts.Mode, n.Stat.EphemeralOwner, c.SessionID())
		}
	}
	// Refusals before the server is asked.
	if _, err := c.Create(root+"/x", nil, CreateOptions{Mode: ModeTTL}); err == nil {
		t.Error("a TTL node without a TTL was accepted")
	}
	if _, err := c.Create(root+"/x", nil, CreateOptions{TTL: time.Second}); err == nil {
		t.Error("a TTL on a persistent node was accepted")
	}
	// Errors say what happened and match go-zookeeper's values.
	if _, err := c.Create(root+"/persistent", nil, CreateOptions{}); !errors.Is(err, zk.ErrNodeExists) || !strings.Contains(err.Error(), root+"/persistent") {
		t.Errorf("create twice: %v", err)
	}
	if _, err := c.Create(root+"/no/such/parent", nil, CreateOptions{}); !errors.Is(err, zk.ErrNoNode) || !strings.Contains(err.Error(), "parent") {
		t.Errorf("create without parent: %v", err)
	}
	if _, err := c.Create(root+"/ephemeral/kid", nil, CreateOptions{}); !errors.Is(err, zk.ErrNoChildrenForEphemerals) {
		t.Errorf("child of an ephemeral: %v", err)
	}
	// MakeParents with an ACL: the leaf gets it, the parents stay open (an
	// ACL that does not let us create would lock us out of our own path).
	acl := zk.DigestACL(zk.PermAll, "carol", "pw")
	acl = append(acl, zk.WorldACL(zk.PermRead)...)
	if _, err := c.Create(root+"/deep/er/leaf", []byte("x"), CreateOptions{MakeParents: true, ACL: acl}); err != nil {
		t.Fatal(err)
	}
	if got, _, err := c.GetACL(root + "/deep/er/leaf"); err != nil || len(got) != 2 {
		t.Errorf("leaf ACL %v %v", got, err)
	}
	if got, _, err := c.GetACL(root + "/deep/er"); err != nil || len(got) != 1 || got[0].Scheme != "world" {
		t.Errorf("parent ACL %v %v", got, err)
	}
	// A chroot client creates under its chroot and returns its own view.
	zktest.MakePath(t, c.Conn(), root+"/chroot")
	cc := dial(t, Config{Servers: cl.Addrs(), Chroot: root + "/chroot"})
	p, err := cc.Create("/s-", nil, CreateOptions{Mode: ModeSequential})
	if err != nil || !strings.HasPrefix(p, "/s-") {
		t.Errorf("chroot create: %q %v", p, err)
	}
	if _, err := c.Get(root + "/chroot" + p); err != nil {
		t.Errorf("chroot create not under the chroot: %v", err)
	}
}

func TestTTLNodeExpires(t *testing.T) {
	// A server of its own: the reaper's interval is a JVM property
	// (znode.container.checkIntervalMs, 60 s by default).
	cl := zktest.StartStandalone(t, zktest.Options{JVMFlags: []string{"-Dznode.container.checkIntervalMs=100"}})
	c := dial(t, Config{Servers: cl.Addrs()})
	p := "/ttl/short"
	got, err := c.Create(p, []byte("x"), CreateOptions{Mode: ModeTTL, TTL: 200 * time.Millisecond, MakeParents: true})
	if err != nil || got != p {
		t.Fatalf("create TTL node: %q %v", got, err)
	}
	keep, err := c.Create("/ttl/keep", nil, CreateOptions{Mode: ModeTTL, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the TTL node to be reaped", 15*time.Second, func() bool {
		ok, _, err := c.Conn().Exists(p)
		return err == nil && !ok
	})
	if ok, _, err := c.Conn().Exists(keep); err != nil || !ok {
		t.Errorf("the one-hour TTL node is gone too: %v %v", ok, err)
	}
}

func TestVersionConflicts(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	p := root + "/x"
	if _, err := c.Create(p, []byte("0"), CreateOptions{MakeParents: true}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if _, err := c.Set(p, []byte(fmt.Sprint(i+1)), int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Set(p, []byte("stale"), 3)
	if !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("stale set: %v", err)
	}
	if want := "set " + p + ": the node changed meanwhile (version 4, expected 3)"; err.Error() != want {
		t.Errorf("stale set:\n got %s\nwant %s", err, want)
	}
	if err := c.Delete(p, 2); !errors.Is(err, zk.ErrBadVersion) || !strings.Contains(err.Error(), "version 4, expected 2") {
		t.Errorf("stale delete: %v", err)
	}
	st, err := c.Set(p, []byte("any"), AnyVersion)
	if err != nil || st.Version != 5 {
		t.Errorf("unconditional set: %+v %v", st, err)
	}
	// ACL versions.
	acl, ast, err := c.GetACL(p)
	if err != nil || len(acl) != 1 || ast.Aversion != 0 {
		t.Fatalf("GetACL: %v %+v %v", acl, ast, err)
	}
	if _, err := c.SetACL(p, zk.WorldACL(zk.PermRead|zk.PermWrite|zk.PermDelete|zk.PermAdmin), 0); err != nil {
		t.Fatal(err)
	}
	_, err = c.SetACL(p, zk.WorldACL(zk.PermAll), 0)
	if !errors.Is(err, zk.ErrBadVersion) || !strings.Contains(err.Error(), "ACL version 1, expected 0") {
		t.Errorf("stale SetACL: %v", err)
	}
	acl, _, _ = c.GetACL(p)
	if acl[0].Perms != zk.PermAll&^zk.PermCreate {
		t.Errorf("ACL now %+v", acl)
	}
	// Delete with the right version; a node with children says so.
	if err := c.Delete(p, 5); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(p, AnyVersion); !errors.Is(err, zk.ErrNoNode) {
		t.Errorf("delete of a gone node: %v", err)
	}
	if err := c.Delete(root, AnyVersion); err != nil {
		t.Errorf("delete emptied parent: %v", err)
	}
	if _, err := c.Create(root+"/a/b", nil, CreateOptions{MakeParents: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(root+"/a", AnyVersion); !errors.Is(err, zk.ErrNotEmpty) || !strings.Contains(err.Error(), "children") {
		t.Errorf("delete with children: %v", err)
	}
}

func TestDeleteRecursive(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	tree := root + "/tree"
	want := 1
	for i := 0; i < 5; i++ {
		for j := 0; j < 20; j++ {
			for k := 0; k < 3; k++ {
				p := fmt.Sprintf("%s/l1-%d/l2-%d/l3-%d", tree, i, j, k)
				if _, err := c.Create(p, []byte("x"), CreateOptions{MakeParents: true}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	want += 5 + 5*20 + 5*20*3
	// Someone else's ephemeral node in the tree is deleted too.
	other := dial(t, Config{Servers: cl.Addrs()})
	if _, err := other.Create(tree+"/l1-0/eph", nil, CreateOptions{Mode: ModeEphemeral}); err != nil {
		t.Fatal(err)
	}
	want++
	var calls []int
	var mu sync.Mutex
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	deleteBatchOps = 40 // several batches per level
	t.Cleanup(func() { deleteBatchOps = 500 })
	if err := c.DeleteRecursive(ctx, tree, func(n int) { mu.Lock(); calls = append(calls, n); mu.Unlock() }); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := c.Conn().Exists(c.Abs(tree)); ok {
		t.Fatal("tree still exists")
	}
	if len(calls) < 3 || calls[len(calls)-1] != want {
		t.Errorf("progress %v, want it to end at %d", calls, want)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i] <= calls[i-1] {
			t.Errorf("progress not increasing: %v", calls)
			break
		}
	}
	if err := c.DeleteRecursive(ctx, tree, nil); !errors.Is(err, zk.ErrNoNode) {
		t.Errorf("recursive delete of a gone node: %v", err)
	}
	for _, p := range []string{"/", "/zookeeper", "/zookeeper/quota"} {
		if err := c.DeleteRecursive(ctx, p, nil); err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("DeleteRecursive(%s): %v", p, err)
		}
	}
}

func TestDeleteRecursiveRootChanged(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	other := dial(t, Config{Servers: cl.Addrs()})
	for i := 0; i < 30; i++ {
		if _, err := c.Create(fmt.Sprintf("%s/k%02d", root, i), nil, CreateOptions{MakeParents: true}); err != nil {
			t.Fatal(err)
		}
	}
	// The root's data changes after the first batch: nothing more is deleted.
	deleteBatchOps, deleteInFlight = 10, 1
	t.Cleanup(func() { deleteBatchOps, deleteInFlight = 500, 8 })
	changed := false
	err := c.DeleteRecursive(context.Background(), root, func(n int) {
		if !changed {
			changed = true
			if _, err := other.Set(root, []byte("mine now"), AnyVersion); err != nil {
				t.Error(err)
			}
		}
	})
	if !errors.Is(err, zk.ErrBadVersion) || !strings.Contains(err.Error(), "changed meanwhile") {
		t.Fatalf("recursive delete under a changed root: %v", err)
	}
	kids, _, err := c.Children(root)
	if err != nil || len(kids) != 20 {
		t.Errorf("children left: %d %v, want 20 (one batch of 10 deleted)", len(kids), err)
	}
}

func TestDeleteRecursiveToleratesVanishing(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	var kids []string
	for i := 0; i < 50; i++ {
		p := fmt.Sprintf("%s/k%02d", root, i)
		if _, err := c.Create(p, nil, CreateOptions{MakeParents: true}); err != nil {
			t.Fatal(err)
		}
		kids = append(kids, c.Abs(p))
	}
	// Every other child vanishes after the listing, before its batch.
	rd := &recursiveDelete{c: c, p: root, abs: c.Abs(root), version: 0}
	for i := 0; i < len(kids); i += 2 {
		if err := c.Delete(c.Rel(kids[i]), AnyVersion); err != nil {
			t.Fatal(err)
		}
	}
	if err := rd.level(context.Background(), kids); err != nil {
		t.Fatalf("level with vanished nodes: %v", err)
	}
	if rd.deleted != 25 {
		t.Errorf("deleted %d, want 25", rd.deleted)
	}
	if err := c.DeleteRecursive(context.Background(), root, nil); err != nil {
		t.Fatal(err)
	}
}

func TestCRUDReadOnly(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	rw := dial(t, Config{Servers: cl.Addrs()})
	if _, err := rw.Create(root+"/x", []byte("keep"), CreateOptions{MakeParents: true}); err != nil {
		t.Fatal(err)
	}
	ro := dial(t, Config{Servers: cl.Addrs(), ReadOnly: true})
	ctx := context.Background()
	for name, err := range map[string]error{
		"create": func() error {
			_, err := ro.Create(root+"/y", nil, CreateOptions{})
			return err
		}(),
		"set": func() error {
			_, err := ro.Set(root+"/x", []byte("changed"), AnyVersion)
			return err
		}(),
		"delete":           ro.Delete(root+"/x", AnyVersion),
		"delete recursive": ro.DeleteRecursive(ctx, root, nil),
		"set ACL": func() error {
			_, err := ro.SetACL(root+"/x", zk.WorldACL(zk.PermRead), AnyVersion)
			return err
		}(),
	} {
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), root) {
			t.Errorf("read-only %s: %v", name, err)
		}
	}
	n, err := ro.Get(root + "/x")
	if err != nil || string(n.Data) != "keep" || n.Stat.Version != 0 {
		t.Errorf("the node changed under a read-only client: %+v %v", n, err)
	}
	if ok, _, _ := rw.Conn().Exists(root + "/y"); ok {
		t.Error("read-only create made a node")
	}
	if _, _, err := ro.GetACL(root + "/x"); err != nil {
		t.Errorf("GetACL is a read: %v", err)
	}
}

func TestDeleteRecursiveChroot(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	raw := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, raw.Conn(), root+"/app")
	c := dial(t, Config{Servers: cl.Addrs(), Chroot: root + "/app"})
	for _, p := range []string{"/d/a/x", "/d/a/y", "/d/b", "/keep"} {
		if _, err := c.Create(p, nil, CreateOptions{MakeParents: true}); err != nil {
			t.Fatal(err)
		}
	}
	last := 0
	if err := c.DeleteRecursive(context.Background(), "/d", func(n int) { last = n }); err != nil {
		t.Fatal(err)
	}
	if last != 5 {
		t.Errorf("deleted %d, want 5", last)
	}
	kids, _, err := raw.Children(root + "/app")
	if err != nil || strings.Join(kids, ",") != "keep" {
		t.Errorf("left under the chroot: %v %v", kids, err)
	}
	if err := c.Delete("/nope", AnyVersion); !errors.Is(err, zk.ErrNoNode) || !strings.Contains(err.Error(), "delete /nope:") {
		t.Errorf("errors name the caller's path: %v", err)
	}
}

func TestDeleteRecursiveRootDeletedMeanwhile(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	other := dial(t, Config{Servers: cl.Addrs()})
	for i := 0; i < 30; i++ {
		if _, err := c.Create(fmt.Sprintf("%s/k%02d", root, i), nil, CreateOptions{MakeParents: true}); err != nil {
			t.Fatal(err)
		}
	}
	deleteBatchOps, deleteInFlight = 10, 1
	t.Cleanup(func() { deleteBatchOps, deleteInFlight = 500, 8 })
	// After our first batch someone else deletes the rest, root included.
	var otherErr error
	once := false
	err := c.DeleteRecursive(context.Background(), root, func(int) {
		if !once {
			once = true
			otherErr = other.DeleteRecursive(context.Background(), root, nil)
		}
	})
	if otherErr != nil {
		t.Fatalf("the other client's delete: %v", otherErr)
	}
	if err != nil {
		t.Errorf("a subtree deleted by someone else meanwhile: %v, want success", err)
	}
}
