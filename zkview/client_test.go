package zkview

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// dial connects to cl with cfg's other settings, closing the client when t ends.
func dial(t testing.TB, cfg Config) *Client {
	t.Helper()
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = 6 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

func waitFor(t testing.TB, what string, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestParseConnectString(t *testing.T) {
	for _, tc := range []struct {
		in      string
		servers []string
		chroot  string
		bad     bool
	}{
		{in: "zk1:2181,zk2:2182/app", servers: []string{"zk1:2181", "zk2:2182"}, chroot: "/app"},
		{in: "zk1,zk2", servers: []string{"zk1:2181", "zk2:2181"}},
		{in: "zk1:2181/", servers: []string{"zk1:2181"}},
		{in: "zk1:2181/a/b/", servers: []string{"zk1:2181"}, chroot: "/a/b"},
		{in: "[::1]:2181", servers: []string{"[::1]:2181"}},
		{in: "", bad: true},
		{in: "/app", bad: true},
		{in: "host:notaport", bad: true},
		{in: ":99999", bad: true},
		{in: "zk1:0", bad: true},
		{in: ":2181", bad: true},
		{in: "   ", bad: true},
	} {
		s, c, err := ParseConnectString(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: want an error", tc.in)
			}
			continue
		}
		if err != nil || strings.Join(s, ",") != strings.Join(tc.servers, ",") || c != tc.chroot {
			t.Errorf("%q: got %v %q %v, want %v %q", tc.in, s, c, err, tc.servers, tc.chroot)
		}
	}
}

func TestChroot(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	raw := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, raw.Conn(), root+"/app/a/b")
	if _, err := raw.Conn().Create(root+"/app/x", []byte("hello"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	servers, chroot, err := ParseConnectString(cl.ConnectString() + root + "/app")
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, Config{Servers: servers, Chroot: chroot})
	if got := c.Abs("/"); got != root+"/app" {
		t.Errorf("Abs(/) = %q", got)
	}
	if got := c.Abs("/a/b"); got != root+"/app/a/b" {
		t.Errorf("Abs(/a/b) = %q", got)
	}
	if got := c.Rel(root + "/app"); got != "/" {
		t.Errorf("Rel(chroot) = %q", got)
	}
	if got := c.Rel(root + "/app/a/b"); got != "/a/b" {
		t.Errorf("Rel = %q", got)
	}
	kids, _, err := c.Children("/")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sortedCopy(kids), ",") != "a,x" {
		t.Errorf("children of chroot / = %v, want a,x", kids)
	}
	n, err := c.Get("/x")
	if err != nil || string(n.Data) != "hello" || n.Path != "/x" {
		t.Errorf("Get(/x) = %+v, %v", n, err)
	}
	nodes, err := c.GetMany(context.Background(), []string{"/a", "/a/b", "/x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Err != nil || strings.HasPrefix(n.Path, root) {
			t.Errorf("GetMany node %+v: paths must be shown relative to the chroot", n)
		}
	}
}

func TestDigestAuthNoAuth(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	owner := dial(t, Config{Servers: cl.Addrs(), Auth: []Auth{{Scheme: "digest", Secret: []byte("alice:s3cret")}}})
	zktest.MakePath(t, owner.Conn(), root)
	secret := root + "/secret"
	if _, err := owner.Conn().Create(secret, []byte("classified"), 0, zk.DigestACL(zk.PermAll, "alice", "s3cret")); err != nil {
		t.Fatal(err)
	}
	// With the credentials: readable.
	n, err := owner.Get(secret)
	if err != nil || string(n.Data) != "classified" {
		t.Fatalf("owner read: %+v %v", n, err)
	}
	// Without: NoAuth, as a clear error that still matches zk.ErrNoAuth.
	anon := dial(t, Config{Servers: cl.Addrs()})
	_, err = anon.Get(secret)
	if !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("anonymous read: err = %v, want zk.ErrNoAuth", err)
	}
	if !strings.Contains(err.Error(), "--auth-file") || !strings.Contains(err.Error(), secret) {
		t.Errorf("error does not say what to do: %v", err)
	}
	// Wrong password: NoAuth too (digest auth itself always "succeeds").
	wrong := dial(t, Config{Servers: cl.Addrs(), Auth: []Auth{{Scheme: "digest", Secret: []byte("alice:guess")}}})
	if _, err := wrong.Get(secret); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("wrong password read: %v, want NoAuth", err)
	}
	// Bulk reads put NoAuth on the node, not the call.
	nodes, err := anon.GetMany(context.Background(), []string{root, secret})
	if err != nil {
		t.Fatal(err)
	}
	if nodes[0].Err != nil || !errors.Is(nodes[1].Err, zk.ErrNoAuth) {
		t.Errorf("GetMany: %v / %v", nodes[0].Err, nodes[1].Err)
	}
}

func TestNodeDeletedBetweenListAndRead(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, c.Conn(), root)
	for _, n := range []string{"a", "b", "c"} {
		if _, err := c.Conn().Create(root+"/"+n, []byte(n), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	kids, _, err := c.Children(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Conn().Delete(root+"/b", -1); err != nil {
		t.Fatal(err)
	}
	paths := make([]string, 0, len(kids))
	for _, k := range sortedCopy(kids) {
		paths = append(paths, Join(root, k))
	}
	nodes, err := c.GetMany(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		gone := n.Name() == "b"
		if gone != errors.Is(n.Err, zk.ErrNoNode) {
			t.Errorf("%s: err %v", n.Path, n.Err)
		}
	}
	if _, err := c.Get(root + "/b"); !errors.Is(err, zk.ErrNoNode) || !strings.Contains(err.Error(), "node does not exist") || strings.Count(err.Error(), "does not exist") != 1 {
		t.Errorf("Get of a deleted node: %v", err)
	}
}

func TestConnectUnreachableFailsClearly(t *testing.T) {
	port, err := zktest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	_, err = Connect(ctx, Config{Servers: []string{"127.0.0.1:" + itoa(port)}})
	if err == nil {
		t.Fatal("connected to nothing")
	}
	msg := err.Error()
	if !strings.Contains(msg, "connection refused") || !strings.Contains(msg, "--server") || strings.Count(msg, "\n") > 0 {
		t.Errorf("unclear error: %s", msg)
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }
