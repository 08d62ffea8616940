package zkview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// sameNodes fails t unless multi-read and pipelined results agree node by
// node (path, data, stat, error).
func sameNodes(t *testing.T, multi, piped []Node) {
	t.Helper()
	if len(multi) != len(piped) {
		t.Fatalf("multi-read gave %d nodes, pipelined %d", len(multi), len(piped))
	}
	for i := range multi {
		m, p := multi[i], piped[i]
		if m.Path != p.Path || !bytes.Equal(m.Data, p.Data) || m.Stat != p.Stat || !sameErr(m.Err, p.Err) {
			t.Errorf("node %d differs:\nmulti-read %s len=%d stat=%+v err=%v\npipelined  %s len=%d stat=%+v err=%v",
				i, m.Path, len(m.Data), m.Stat, m.Err, p.Path, len(p.Data), p.Stat, p.Err)
		}
	}
}

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	for _, e := range []error{zk.ErrNoNode, zk.ErrNoAuth} {
		if errors.Is(a, e) != errors.Is(b, e) {
			return false
		}
	}
	return true
}

func TestMultiReadMatchesPipelined(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	owner := dial(t, Config{Servers: cl.Addrs(), Auth: []Auth{{Scheme: "digest", Secret: []byte("bob:pw")}}})
	conn := owner.Conn()
	mkdirs(t, conn, root)
	open := zk.WorldACL(zk.PermAll)
	create := func(name string, data []byte, acl []zk.ACL) {
		t.Helper()
		if _, err := conn.Create(root+"/"+name, data, 0, acl); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	for i := 0; i < 40; i++ {
		create(fmt.Sprintf("n%03d", i), []byte(fmt.Sprintf("value %d", i)), open)
	}
	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	create("binary", binary, open)
	create("empty", []byte{}, open)
	create("null", nil, open)
	create("secret", []byte("classified"), zk.DigestACL(zk.PermAll, "bob", "pw"))
	big := bytes.Repeat([]byte("0123456789abcdef"), 1040000/16) // ~1 MB, under jute.maxbuffer
	create("big", big, open)
	create("gone", []byte("x"), open)

	anon := dial(t, Config{Servers: cl.Addrs()})
	kids, _, err := anon.Children(root)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(kids)
	paths := make([]string, len(kids))
	for i, k := range kids {
		paths[i] = Join(root, k)
	}
	if err := conn.Delete(root+"/gone", -1); err != nil { // deleted between list and read
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	multi, err := anon.getManyMulti(ctx, paths)
	if err != nil {
		t.Fatalf("multi-read: %v", err)
	}
	if ok, known := anon.MultiReadSupported(); !ok || !known {
		t.Errorf("MultiReadSupported = %v, %v after a multi-read on 3.8", ok, known)
	}
	piped, err := anon.getManyPipelined(ctx, paths)
	if err != nil {
		t.Fatalf("pipelined: %v", err)
	}
	sameNodes(t, multi, piped)
	byName := map[string]Node{}
	for _, n := range multi {
		byName[n.Name()] = n
	}
	if !errors.Is(byName["gone"].Err, zk.ErrNoNode) {
		t.Errorf("deleted node: err %v, want NoNode", byName["gone"].Err)
	}
	if !errors.Is(byName["secret"].Err, zk.ErrNoAuth) {
		t.Errorf("digest-protected node read without credentials: err %v, want NoAuth", byName["secret"].Err)
	}
	if n := byName["big"]; n.Err != nil || !bytes.Equal(n.Data, big) {
		t.Errorf("1 MB node: err %v, %d bytes", n.Err, len(n.Data))
	}
	if n := byName["binary"]; !bytes.Equal(n.Data, binary) {
		t.Errorf("binary node: % x", n.Data)
	}
	if n := byName["null"]; n.Err != nil || len(n.Data) != 0 {
		t.Errorf("null-data node: %+v", n)
	}

	// With the credentials, the secret is readable through multi-read too.
	mine, err := owner.getManyMulti(ctx, []string{root + "/secret", root + "/n000"})
	if err != nil {
		t.Fatal(err)
	}
	if mine[0].Err != nil || string(mine[0].Data) != "classified" {
		t.Errorf("owner's multi-read of its secret: %+v", mine[0])
	}

	// GetMany and ChildrenNodes pick multi-read and leave the deleted node out.
	_, nodes, err := anon.ChildrenNodes(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != len(kids)-1 {
		t.Errorf("ChildrenNodes: %d nodes, want %d", len(nodes), len(kids)-1)
	}
}

func TestMultiReadSmallBatchesAndSplits(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	mkdirs(t, c.Conn(), root)
	var paths []string
	for i := 0; i < 30; i++ {
		p := fmt.Sprintf("%s/k%02d", root, i)
		if _, err := c.Conn().Create(p, bytes.Repeat([]byte{byte(i)}, 20000), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	// 30 × 20 kB in batches of 7 with replies limited to 64 kB: every batch
	// is too big once and split.
	oldOps, oldReply := multiReadMaxOps, multiReadMaxReply
	multiReadMaxOps, multiReadMaxReply = 7, 64<<10
	t.Cleanup(func() { multiReadMaxOps, multiReadMaxReply = oldOps, oldReply })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	multi, err := c.getManyMulti(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	piped, err := c.getManyPipelined(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	sameNodes(t, multi, piped)
}

func TestMultiReadChroot(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	raw := dial(t, Config{Servers: cl.Addrs()})
	mkdirs(t, raw.Conn(), root+"/app/dir")
	var paths []string
	for i := 0; i < 10; i++ {
		name := fmt.Sprintf("c%d", i)
		if _, err := raw.Conn().Create(root+"/app/dir/"+name, []byte(name), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, "/dir/"+name)
	}
	c := dial(t, Config{Servers: cl.Addrs(), Chroot: root + "/app"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nodes, err := c.getManyMulti(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if n.Err != nil || n.Path != paths[i] || string(n.Data) != n.Name() {
			t.Errorf("chroot multi-read %d: %+v", i, n)
		}
	}
	piped, err := c.getManyPipelined(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	sameNodes(t, nodes, piped)
}

func TestMultiReadSessionReopens(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	mkdirs(t, c.Conn(), root)
	paths := []string{root, root, root}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.getManyMulti(ctx, paths); err != nil {
		t.Fatal(err)
	}
	m := c.multiRead()
	m.mu.Lock()
	first := m.sess
	m.mu.Unlock()
	if first == nil {
		t.Fatal("no sidecar session kept after a multi-read")
	}
	// Reused while alive.
	if _, err := c.getManyMulti(ctx, paths); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	same := m.sess == first
	m.mu.Unlock()
	if !same {
		t.Error("the sidecar session was not reused")
	}
	// Broken under it: the next read opens a new one.
	first.conn.Close()
	waitFor(t, "the sidecar to notice its closed connection", 5*time.Second, first.dead)
	if _, err := c.getManyMulti(ctx, paths); err != nil {
		t.Fatalf("read after the sidecar broke: %v", err)
	}
	// Client.Close closes the sidecar session too.
	m.mu.Lock()
	second := m.sess
	m.mu.Unlock()
	c.Close()
	waitFor(t, "the sidecar to close with the client", 5*time.Second, func() bool { return second == nil || second.dead() })
}

func FuzzDecodeMultiReadResponse(f *testing.F) {
	ok := &juteWriter{}
	ok.int32(opGetData)
	ok.bool(false)
	ok.int32(0)
	ok.buffer([]byte("hello"))
	ok.b = append(ok.b, make([]byte, statSize)...)
	ok.int32(opError)
	ok.bool(false)
	ok.int32(-101)
	ok.int32(-101)
	ok.int32(-1)
	ok.bool(true)
	ok.int32(-1)
	f.Add(ok.b, 2)
	f.Add(ok.b[:20], 2)
	f.Add([]byte{}, 0)
	f.Add([]byte{0, 0, 0, 4, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe}, 1)
	f.Fuzz(func(t *testing.T, b []byte, want int) {
		res, err := decodeMultiReadResponse(b, want)
		if err == nil && len(res) != want {
			t.Fatalf("%d results without error, %d asked for", len(res), want)
		}
	})
}
