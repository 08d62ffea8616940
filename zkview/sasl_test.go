package zkview

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/sasl"
	"github.com/zkscope/zkscope/zkview/wire"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestSASLDigest runs one real server that requires SASL, with a JAAS
// Server section of DIGEST-MD5 users.
func TestSASLDigest(t *testing.T) {
	srv := zktest.StartDigestSASL(t, map[string]string{"bob": "bob-secret", "super": "admin-secret"})
	addr := srv.Servers[0].ClientAddr
	connect := func(s *sasl.Config) (*Client, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return Connect(ctx, Config{Servers: []string{addr}, SASL: s})
	}

	t.Run("right password", func(t *testing.T) {
		c, err := connect(&sasl.Config{Mechanism: sasl.DigestMD5, User: "bob", Password: "bob-secret"})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		acl := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "bob"}}
		if _, err := c.Conn().Create("/bobs", []byte("x"), 0, acl); err != nil {
			t.Fatal(err)
		}
		if n, err := c.Get("/bobs"); err != nil || string(n.Data) != "x" {
			t.Fatalf("read with SASL: %+v %v", n, err)
		}
		if got := c.Identity(); got != "DIGEST-MD5 bob" {
			t.Errorf("identity %q", got)
		}
		ids, err := c.WhoAmI(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ids, wire.ClientInfo{Scheme: "sasl", ID: "bob"}) {
			t.Errorf("whoAmI: %+v", ids)
		}
		// The multi-read session authenticates too.
		paths := make([]string, multiReadMin)
		for i := range paths {
			paths[i] = "/bobs"
		}
		nodes, err := c.GetMany(context.Background(), paths)
		if got := c.bulk.support.Load(); got != 1 {
			t.Errorf("the multi-read session did not serve the reads (support %d)", got)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			if n.Err != nil {
				t.Errorf("multi-read of %s: %v", n.Path, n.Err)
			}
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		start := time.Now()
		c, err := connect(nil)
		if err == nil {
			c.Close()
			t.Fatal("connected without SASL to a server that requires it")
		}
		if !strings.Contains(err.Error(), "--sasl-mechanism") || strings.Contains(err.Error(), "\n") {
			t.Errorf("error does not name the flags in one line: %v", err)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("took %s to fail", d)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		start := time.Now()
		c, err := connect(&sasl.Config{Mechanism: sasl.DigestMD5, User: "bob", Password: "wrong"})
		if err == nil {
			c.Close()
			t.Fatal("connected with a wrong password")
		}
		t.Logf("wrong password after %s: %v", time.Since(start), err)
		var se *SASLError
		if !errors.As(err, &se) || !se.Refused {
			t.Fatalf("want a refused SASLError, got %T %v", err, err)
		}
		for _, want := range []string{"DIGEST-MD5", "bob", addr, "AUTHFAILED", "--sasl-password-file"} {
			if !strings.Contains(err.Error(), want) && !strings.Contains(err.Error(), "SESSIONCLOSEDREQUIRESASLAUTH") {
				t.Errorf("error lacks %q: %v", want, err)
			}
		}
	})
	t.Run("again after a restart", func(t *testing.T) {
		c, err := connect(&sasl.Config{Mechanism: sasl.DigestMD5, User: "bob", Password: "bob-secret"})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		sid := c.SessionID()
		member := srv.Servers[0]
		member.Kill()
		if err := member.Start(); err != nil {
			t.Fatal(err)
		}
		if err := member.WaitServing(time.Minute); err != nil {
			t.Fatal(err)
		}
		// The session survives the restart; the new connection must have
		// authenticated again for the sasl:bob node to be readable.
		var last error
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if _, last = c.Get("/bobs"); last == nil {
				break
			}
		}
		if last != nil {
			t.Fatalf("no read after the restart: %v", last)
		}
		if c.SessionID() != sid {
			t.Logf("a new session after the restart (%#x, was %#x)", c.SessionID(), sid)
		}
	})
}
