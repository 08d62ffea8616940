package zkview

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/sasl"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestSASLKerberos runs a KDC with a realm of its own and a server that
// requires SASL, logged in as zookeeper/localhost from a keytab; zkscope
// authenticates with GSSAPI from a keytab and from kinit's credential cache.
func TestSASLKerberos(t *testing.T) {
	kdc := zktest.StartKDC(t)
	serverKT := kdc.Principal(t, "zookeeper/localhost")
	clientKT := kdc.Principal(t, "zkscope")
	opts, err := kdc.KerberosSASL(t.TempDir(), "zookeeper/localhost", serverKT)
	if err != nil {
		t.Fatal(err)
	}
	srv := zktest.StartStandalone(t, opts.Options)
	_, port, _ := strings.Cut(srv.Servers[0].ClientAddr, ":")
	addr := "localhost:" + port
	connect := func(s *sasl.Config) (*Client, error) {
		s.Mechanism, s.Krb5Conf = sasl.GSSAPI, kdc.Krb5Conf
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return Connect(ctx, Config{Servers: []string{addr}, SASL: s})
	}

	t.Run("keytab", func(t *testing.T) {
		c, err := connect(&sasl.Config{Principal: "zkscope", Keytab: clientKT})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		acl := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "zkscope@" + kdc.Realm}}
		if _, err := c.Conn().Create("/krb", []byte("k"), 0, acl); err != nil {
			t.Fatal(err)
		}
		if n, err := c.Get("/krb"); err != nil || string(n.Data) != "k" {
			t.Fatalf("read with GSSAPI: %+v %v", n, err)
		}
		if got := c.Identity(); got != "GSSAPI zkscope@"+kdc.Realm {
			t.Errorf("identity %q", got)
		}
	})
	t.Run("credential cache", func(t *testing.T) {
		cc := kdc.Kinit(t, "zkscope", clientKT, "")
		c, err := connect(&sasl.Config{CCache: cc})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if n, err := c.Get("/krb"); err != nil || string(n.Data) != "k" {
			t.Fatalf("read with kinit's ticket: %+v %v", n, err)
		}
	})
	t.Run("unknown service principal", func(t *testing.T) {
		c, err := connect(&sasl.Config{Principal: "zkscope", Keytab: clientKT, Service: "nosuch"})
		if err == nil {
			c.Close()
			t.Fatal("connected with a ticket for a service the KDC does not know")
		}
		t.Logf("unknown service: %v", err)
		var se *SASLError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "nosuch/localhost") || !strings.Contains(err.Error(), "zkscope@"+kdc.Realm) {
			t.Errorf("error: %v", err)
		}
	})
	t.Run("expired ticket", func(t *testing.T) {
		cc := kdc.Kinit(t, "zkscope", clientKT, "2s")
		// The condition is the clock itself: the ticket ends 2 s after kinit.
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
		}
		c, err := connect(&sasl.Config{CCache: cc})
		if err == nil {
			c.Close()
			t.Fatal("connected with an expired ticket")
		}
		t.Logf("expired: %v", err)
		if !strings.Contains(err.Error(), "expired") || !strings.Contains(err.Error(), "kinit") {
			t.Errorf("error does not say the ticket expired: %v", err)
		}
	})
}
