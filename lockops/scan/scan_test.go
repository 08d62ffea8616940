package scan

import (
	"context"
	"fmt"
	"path"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestScanFindsEveryLock builds a tree with locks of several recipes at
// different depths, in the libraries' exact names, and scans it.
func TestScanFindsEveryLock(t *testing.T) {
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	conn := c.Conn()
	base := zktest.Path(t)
	acl := zk.WorldACL(zk.PermAll)
	mk := func(p string, data string, flags int32) string {
		t.Helper()
		zktest.MakePath(t, conn, path.Dir(c.Abs(p)))
		got, err := conn.Create(c.Abs(p), []byte(data), flags, acl)
		if err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
		return c.Rel(got)
	}
	seqE := int32(zk.FlagEphemeral | zk.FlagSequence)
	mk(base+"/app/config", `{"a":1}`, 0)
	mk(base+"/app/locks/orders/_c_"+locktest.UUIDA+"-lock-", "10.0.0.1", seqE)
	mk(base+"/app/locks/orders/_c_"+locktest.UUIDB+"-lock-", "10.0.0.2", seqE)
	mk(base+"/app/locks/rw/_c_"+locktest.UUIDA+"-__WRIT__", "", seqE)
	mk(base+"/app/locks/rw/_c_"+locktest.UUIDB+"-__READ__", "", seqE)
	mk(base+"/deep/a/b/c/"+locktest.HexA+"__lock__", "worker-1", seqE)
	mk(base+"/sem/leases/_c_"+locktest.UUIDA+"-lease-", "", seqE)
	mk(base+"/sem/locks/_c_"+locktest.UUIDB+"-lock-", "", seqE)
	mk(base+"/ksem", "1", 0)
	mk(base+"/ksem/"+locktest.HexB, "holder", zk.FlagEphemeral)
	mk(base+"/ksem-__lock__/"+locktest.HexC+"__lock__", "b'id'", seqE)

	qs, err := Scan(context.Background(), c, base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, q := range qs {
		got[q.Path] = fmt.Sprintf("%s/%d", q.Kind, len(q.Participants))
	}
	want := map[string]string{
		base + "/app/locks/orders": "curator.mutex/2",
		base + "/app/locks/rw":     "curator.rwlock/2",
		base + "/deep/a/b/c":       "kazoo.lock/1",
		base + "/sem":              "curator.semaphore-v2/2",
		base + "/ksem":             "kazoo.semaphore/2",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("scan found %v\nwant %v", got, want)
	}
	for _, q := range qs {
		if q.Path == base+"/app/locks/orders" {
			if q.Participants[0].State != lockops.StateHolding || string(q.Participants[0].Data) != "10.0.0.1" || q.Participants[0].Session != c.SessionID() {
				t.Errorf("orders holder %+v", q.Participants[0])
			}
		}
		if q.Path == base+"/ksem" && (q.MaxLeases != 1 || q.Participants[1].WatchKind != lockops.WatchChildren) {
			t.Errorf("kazoo semaphore: max %d, %+v", q.MaxLeases, q.Participants)
		}
	}

	// A lock path itself, and a semaphore path itself.
	qs, err = Scan(context.Background(), c, base+"/app/locks/rw", Options{})
	if err != nil || len(qs) != 1 || qs[0].Kind != lockops.KindCuratorRW {
		t.Fatalf("scan of a lock: %v %+v", err, qs)
	}
	qs, err = Scan(context.Background(), c, base+"/ksem", Options{})
	if err != nil || len(qs) != 1 || qs[0].Kind != lockops.KindKazooSemaphore {
		t.Fatalf("scan of a kazoo semaphore: %v %+v", err, qs)
	}
	// Depth bound.
	qs, _ = Scan(context.Background(), c, base, Options{Depth: 2})
	for _, q := range qs {
		if q.Path == base+"/deep/a/b/c" {
			t.Errorf("depth 2 reached %s", q.Path)
		}
	}
	if _, err := Scan(context.Background(), c, base+"/missing", Options{}); err == nil {
		t.Error("scan of a missing path succeeded")
	}
}

// TestReadChildrenDropsNodesGoneMeanwhile: a child listed but deleted
// before the bulk read is not in the queue; the others keep their order.
func TestReadChildrenDropsNodesGoneMeanwhile(t *testing.T) {
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), c.Abs(base))
	names := []string{locktest.HexA + "__lock__0000000001", locktest.HexB + "__lock__0000000002", locktest.HexC + "__lock__0000000003"}
	for _, n := range []string{names[0], names[2]} {
		if _, err := c.Conn().Create(c.Abs(base+"/"+n), []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	d, err := readChildren(context.Background(), c, base, names, zk.Stat{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Children) != 2 || d.Children[0].Name != names[0] || d.Children[1].Name != names[2] || d.Children[1].Path != base+"/"+names[2] {
		t.Fatalf("children %+v, want %s and %s", d.Children, names[0], names[2])
	}
}

// TestReadDirAgainReadsOnlyNewChildren: a second read keeps what the
// first learnt of children still listed (their data is not read again),
// drops departed ones and reads the new one.
func TestReadDirAgainReadsOnlyNewChildren(t *testing.T) {
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	base := zktest.Path(t)
	conn := c.Conn()
	zktest.MakePath(t, conn, c.Abs(base))
	names := []string{locktest.HexA + "__lock__0000000001", locktest.HexB + "__lock__0000000002", locktest.HexC + "__lock__0000000003"}
	for _, n := range names[:2] {
		if _, err := conn.Create(c.Abs(base+"/"+n), []byte("first"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	list := func() ([]string, zk.Stat) {
		t.Helper()
		kids, st, err := c.Children(base)
		if err != nil {
			t.Fatal(err)
		}
		return kids, st
	}
	kids, st := list()
	d, cache, err := ReadDirAgain(context.Background(), c, base, kids, st, nil)
	if err != nil || len(d.Children) != 2 || len(cache.Children) != 2 {
		t.Fatalf("first read: %v, %+v", err, d.Children)
	}
	// names[0] leaves, names[2] arrives, names[1]'s data changes (a lock
	// node's never does: the change shows that it was not read again).
	if err := conn.Delete(c.Abs(base+"/"+names[0]), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Set(c.Abs(base+"/"+names[1]), []byte("changed"), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Create(c.Abs(base+"/"+names[2]), []byte("new"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	kids, st = list()
	d, cache, err = ReadDirAgain(context.Background(), c, base, kids, st, cache)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, k := range d.Children {
		got[k.Name] = string(k.Data)
	}
	want := map[string]string{names[1]: "first", names[2]: "new"}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(cache.Children) != 2 {
		t.Fatalf("second read %v, want %v", got, want)
	}
}
