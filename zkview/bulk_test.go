package zkview

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/wire"

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
	zktest.MakePath(t, conn, root)
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
	// ~1 MB: its batch's reply exceeds jute.maxbuffer, its own does not.
	big := bytes.Repeat([]byte("0123456789abcdef"), 1046000/16)
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
	// The batch holding the 1 MB node was drained once, then split so that
	// node was read alone.
	m := anon.multiRead()
	m.mu.Lock()
	drained := m.sess.Drained()
	m.mu.Unlock()
	if drained != 1 {
		t.Errorf("%d replies drained, want 1", drained)
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
	zktest.MakePath(t, c.Conn(), root)
	var paths []string
	for i := 0; i < 31; i++ {
		size := 20000
		if i == 30 {
			size = 100000 // bigger than a reply may be: read alone
		}
		p := fmt.Sprintf("%s/k%02d", root, i)
		if _, err := c.Conn().Create(p, bytes.Repeat([]byte{byte(i)}, size), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	// 30 × 20 kB and one 100 kB in batches of 7 with replies limited to
	// 64 kB: every batch is too big once and split.
	m := c.multiRead()
	m.lim.maxOps, m.lim.maxReply = 7, 64<<10
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	multi, err := c.getManyMulti(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	// Each of the five batches was too big, drained once and split exactly
	// by its ops' sizes.
	m.mu.Lock()
	drained := m.sess.Drained()
	m.mu.Unlock()
	if drained != 5 {
		t.Errorf("%d replies drained, want 5 (one per batch)", drained)
	}
	piped, err := c.getManyPipelined(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	sameNodes(t, multi, piped)
}

func TestSplitBatch(t *testing.T) {
	const limit = 1000
	for _, tc := range []struct {
		name  string
		big   wire.ReplyTooLarge
		lo    int
		hi    int
		parts string
	}{
		{"exact", wire.ReplyTooLarge{Size: 1425, OpSizes: []int{300, 300, 300, 300, 200}}, 10, 15, "10-12 12-15"},
		{"one too big alone", wire.ReplyTooLarge{Size: 1600, OpSizes: []int{100, 1200, 100}}, 0, 3, "0-1 1! 2-3"},
		{"too big first and last", wire.ReplyTooLarge{Size: 2500, OpSizes: []int{1200, 100, 1200}}, 0, 3, "0! 1-2 2!"},
		{"sizes unknown: equal parts", wire.ReplyTooLarge{Size: 2600}, 0, 8, "0-3 3-6 6-8"},
	} {
		var got []string
		for _, p := range splitBatch(tc.lo, tc.hi, tc.big, limit) {
			if p.alone {
				got = append(got, fmt.Sprintf("%d!", p.lo))
			} else {
				got = append(got, fmt.Sprintf("%d-%d", p.lo, p.hi))
			}
		}
		if strings.Join(got, " ") != tc.parts {
			t.Errorf("%s: %v, want %s", tc.name, got, tc.parts)
		}
	}
}

func TestMultiReadChroot(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	raw := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, raw.Conn(), root+"/app/dir")
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
	zktest.MakePath(t, c.Conn(), root)
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
	first.Conn().Close()
	waitFor(t, "the sidecar to notice its closed connection", 5*time.Second, first.Dead)
	if _, err := c.getManyMulti(ctx, paths); err != nil {
		t.Fatalf("read after the sidecar broke: %v", err)
	}
	// Client.Close closes the sidecar session too.
	m.mu.Lock()
	second := m.sess
	m.mu.Unlock()
	c.Close()
	waitFor(t, "the sidecar to close with the client", 5*time.Second, func() bool { return second == nil || second.Dead() })
}

// TestMultiReadUnsupportedFallsBack makes the real server refuse the
// request as unimplemented (what a server older than 3.6 answers to op code
// 22) by sending an op code no version knows: GetMany falls back to
// pipelined Gets and remembers it.
func TestMultiReadUnsupportedFallsBack(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root)
	var paths []string
	for i := 0; i < 20; i++ {
		p := fmt.Sprintf("%s/n%02d", root, i)
		if _, err := c.Conn().Create(p, []byte(p), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	c.multiRead().lim.opCode = 99
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.getManyMulti(ctx, paths); !errors.Is(err, errMultiReadUnsupported) {
		t.Fatalf("multi-read with an unknown op code: %v, want unsupported", err)
	}
	if ok, known := c.MultiReadSupported(); ok || !known {
		t.Fatalf("MultiReadSupported = %v, %v; want remembered as unsupported", ok, known)
	}
	nodes, err := c.GetMany(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if n.Err != nil || string(n.Data) != paths[i] {
			t.Errorf("fallback read %d: %+v", i, n)
		}
	}
	m := c.multiRead()
	m.mu.Lock()
	s := m.sess
	m.mu.Unlock()
	if s != nil && !s.Dead() {
		t.Error("a sidecar session is open although multi-read is unsupported")
	}
	// The main session is untouched by the sidecar's refusal.
	if c.State().State != StateConnected {
		t.Errorf("main connection: %v", c.State().State)
	}
}

// TestMultiReadTLS reads through a secure client port: the sidecar uses the
// client's TLS dialer (CA, client certificate, server name).
func TestMultiReadTLS(t *testing.T) {
	zktest.Require(t)
	mat, err := zktest.GenerateTLS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cl := zktest.StartStandalone(t, zktest.Options{Secure: mat.ServerFiles("need")})
	c := dial(t, Config{Servers: []string{cl.Servers[0].SecureAddr},
		TLS: &TLSConfig{CAFile: mat.CAFile, CertFile: mat.ClientCert, KeyFile: mat.ClientKey, ServerName: mat.ServerName}})
	zktest.MakePath(t, c.Conn(), "/tls")
	var paths []string
	for i := 0; i < 12; i++ {
		p := fmt.Sprintf("/tls/n%02d", i)
		if _, err := c.Conn().Create(p, []byte(p), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nodes, err := c.getManyMulti(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if n.Err != nil || string(n.Data) != paths[i] {
			t.Errorf("multi-read over TLS %d: %+v", i, n)
		}
	}
	m := c.multiRead()
	m.mu.Lock()
	defer m.mu.Unlock()
	conn := m.sess.Conn()
	if pc, ok := conn.(interface{ NetConn() net.Conn }); ok {
		conn = pc.NetConn() // under peer.WatchZooKeeper's wrapper
	}
	if _, ok := conn.(*tls.Conn); !ok {
		t.Errorf("sidecar connection is %T, want *tls.Conn", conn)
	}
}

// TestMultiReadFollowsMember: on a 3-member ensemble the sidecar sits on
// the member the main connection uses and follows it when that member dies.
func TestMultiReadFollowsMember(t *testing.T) {
	cl := zktest.StartEnsemble(t, 3, zktest.Options{})
	c := dial(t, Config{Servers: cl.Addrs(), SessionTimeout: 4 * time.Second})
	zktest.MakePath(t, c.Conn(), "/follow")
	var paths []string
	for i := 0; i < 10; i++ {
		p := fmt.Sprintf("/follow/n%d", i)
		if _, err := c.Conn().Create(p, []byte(p), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	read := func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		nodes, err := c.getManyMulti(ctx, paths)
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range nodes {
			if n.Err != nil || string(n.Data) != paths[i] {
				t.Errorf("read %d: %+v", i, n)
			}
		}
	}
	sidecarAddr := func() string {
		m := c.multiRead()
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.sess == nil {
			return ""
		}
		return m.sess.Addr()
	}
	read()
	first := c.Server()
	if got := sidecarAddr(); got != first {
		t.Fatalf("sidecar on %s, main connection on %s", got, first)
	}
	cl.ByAddr(first).Kill()
	waitFor(t, "the main connection to move to another member", 20*time.Second, func() bool {
		s := c.Server()
		return s != "" && s != first
	})
	read()
	if got, now := sidecarAddr(), c.Server(); got != now {
		t.Errorf("after the kill: sidecar on %s, main connection on %s", got, now)
	}
}

// TestMultiReadSessionPingedAndClosed: the sidecar's session outlives
// several session timeouts while the pinger runs, is reused, and is closed
// on the server (not left to expire) when the client closes.
func TestMultiReadSessionPingedAndClosed(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs(), SessionTimeout: time.Second})
	zktest.MakePath(t, c.Conn(), root)
	paths := []string{root, root, root}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.getManyMulti(ctx, paths); err != nil {
		t.Fatal(err)
	}
	m := c.multiRead()
	m.mu.Lock()
	s := m.sess
	m.mu.Unlock()
	sid := fmt.Sprintf("sid=0x%x,", s.ID())
	cons := func() string {
		out, err := zktest.FourLetterWord(cl.Addrs()[0], "cons", 3*time.Second)
		if err != nil {
			t.Fatalf("cons: %v", err)
		}
		return out
	}
	if !strings.Contains(cons(), sid) {
		t.Fatalf("the server does not list the sidecar session %s:\n%s", sid, cons())
	}
	// Pinged every timeout/3: six answers span two session timeouts.
	waitFor(t, "six pings answered", 10*time.Second, func() bool { return s.Pongs() >= 6 })
	if _, err := c.getManyMulti(ctx, paths); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	same := m.sess == s
	m.mu.Unlock()
	if !same || s.Dead() {
		t.Errorf("the pinged sidecar session was not reused (dead: %v)", s.Dead())
	}
	c.Close()
	waitFor(t, "the sidecar session to be closed on the server", 5*time.Second, func() bool {
		return s.Dead() && !strings.Contains(cons(), sid)
	})
	if !s.ClosedOK() {
		t.Error("the server did not answer closeSession (the session was left to expire)")
	}
}

// ListChildren (through the bulk-read session) lists what Children lists,
// with the same stat, and fails like it on a missing node.
func TestListChildrenMatchesChildren(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs(), BulkSoon: true})
	zktest.FillChildren(t, c.Conn(), root, 500, func(i int) string { return fmt.Sprintf("n%03d-", i) },
		func(i int) []byte { return nil }, zk.FlagSequence)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got, gst, err := c.ListChildren(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	want, wst, err := c.Children(root)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || gst != wst {
		t.Errorf("ListChildren: %d names, stat %+v; Children: %d names, stat %+v", len(got), gst, len(want), wst)
	}
	_, _, err = c.ListChildren(ctx, root+"/missing")
	if !errors.Is(err, zk.ErrNoNode) || !strings.Contains(err.Error(), "list children of "+root+"/missing") {
		t.Errorf("missing node: %v", err)
	}
}
