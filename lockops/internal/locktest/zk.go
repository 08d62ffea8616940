package locktest

import (
	"context"
	"errors"
	"path"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// MustCreate creates p with data and flags on conn.
func MustCreate(t *testing.T, conn *zk.Conn, p string, data []byte, flags int32) string {
	t.Helper()
	got, err := conn.Create(p, data, flags, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatalf("create %s: %v", p, err)
	}
	return got
}

// ExistsWatch sets an exists watch on p from conn, as the candidates of
// Kafka, HDFS and HBase do.
func ExistsWatch(t *testing.T, conn *zk.Conn, p string) {
	t.Helper()
	if ok, _, _, err := conn.ExistsW(p); err != nil || !ok {
		t.Fatalf("exists watch on %s: %v %v", p, ok, err)
	}
}

// MkNode creates node with data and flags, and any missing parent as a
// persistent node; it returns the node's path (sequential: with its suffix).
func MkNode(t testing.TB, c *zkview.Client, node string, data []byte, flags int32) string {
	t.Helper()
	parts := strings.Split(strings.Trim(path.Dir(node), "/"), "/")
	cur := ""
	for _, p := range parts {
		cur += "/" + p
		if _, err := c.Conn().Create(cur, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			t.Fatalf("create %s: %v", cur, err)
		}
	}
	got, err := c.Conn().Create(node, data, flags, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatalf("create %s: %v", node, err)
	}
	return got
}

// Unchanged fails t unless node still has data at data version version.
func Unchanged(t testing.TB, c *zkview.Client, node string, data []byte, version int32) {
	t.Helper()
	got, st, err := c.Conn().Get(node)
	if err != nil {
		t.Fatalf("read %s: %v", node, err)
	}
	if string(got) != string(data) || st.Version != version {
		t.Fatalf("%s changed: data %q version %d, was %q version %d", node, got, st.Version, data, version)
	}
}

// WaitFor polls cond until it holds or the deadline passes.
func WaitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// NewClient connects a fresh session to servers; closed when t ends.
func NewClient(t testing.TB, servers []string, mut ...func(*zkview.Config)) *zkview.Client {
	t.Helper()
	cfg := zkview.Config{Servers: servers, SessionTimeout: 10 * time.Second}
	for _, m := range mut {
		m(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := zkview.Connect(ctx, cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// Children lists p's children (none when p does not exist), failing t on
// any other error.
func Children(t testing.TB, c *zkview.Client, p string) []string {
	t.Helper()
	kids, _, err := c.Conn().Children(c.Abs(p))
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		t.Fatalf("children of %s: %v", p, err)
	}
	return kids
}

// CloseSessionAs attaches to conn's session from a second TCP connection
// (session id and password, as a client re-attaching would) and sends
// closeSession: the server ends the session and deletes its ephemeral
// nodes, exactly as on expiry. go-zookeeper does not expose the session
// password, so it is read with reflection.
func CloseSessionAs(t *testing.T, addrs []string, conn *zk.Conn) {
	t.Helper()
	// A member that just restarted may still drop the re-attach (EOF):
	// try each member in turn until one closes the session.
	var errs []string
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		for _, addr := range addrs {
			err := tryCloseSession(addr, conn)
			if err == nil {
				return
			}
			errs = append(errs, addr+": "+err.Error())
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("could not close session 0x%x: %s", uint64(conn.SessionID()), strings.Join(errs, "; "))
}

func tryCloseSession(addr string, conn *zk.Conn) error {
	passwd := append([]byte(nil), reflect.ValueOf(conn).Elem().FieldByName("passwd").Bytes()...)
	s, err := zktest.DialSession(addr, conn.SessionID(), passwd, 10*time.Second)
	if err != nil {
		return err
	}
	return s.CloseSession()
}

// WaitChildren waits until p has n children.
func WaitChildren(t testing.TB, c *zkview.Client, p string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		kids := Children(t, c, p)
		if len(kids) == n {
			return kids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has %d children, want %d: %v", p, len(kids), n, kids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
