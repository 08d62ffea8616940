package zkview

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestTLS runs one real server whose secure client port uses a CA, server
// and client certificates generated here (PEM key and trust stores) and
// requires a client certificate.
func TestTLS(t *testing.T) {
	zktest.Require(t)
	m, err := zktest.GenerateTLS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cl := zktest.StartStandalone(t, zktest.Options{Secure: m.ServerFiles("need")})
	srv := cl.Servers[0]
	good := TLSConfig{CAFile: m.CAFile, CertFile: m.ClientCert, KeyFile: m.ClientKey, ServerName: m.ServerName}

	// A connect that works, or fails for a reason it can name, needs no
	// deadline near its time: the patience is far above it.
	const patience = time.Minute
	tryConnectWithin := func(cfg Config, d time.Duration) (*Client, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		return Connect(ctx, cfg)
	}
	tryConnect := func(cfg Config) (*Client, error) { return tryConnectWithin(cfg, patience) }

	t.Run("CA and server name", func(t *testing.T) {
		tc := good
		c, err := tryConnect(Config{Servers: []string{srv.SecureAddr}, TLS: &tc})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Conn().Create("/tls-ok", []byte("secure"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		if n, err := c.Get("/tls-ok"); err != nil || string(n.Data) != "secure" {
			t.Errorf("read over TLS: %+v %v", n, err)
		}
	})
	t.Run("host name checked by default", func(t *testing.T) {
		tc := good
		tc.ServerName = "" // verified against 127.0.0.1, an IP SAN of the certificate
		c, err := tryConnect(Config{Servers: []string{srv.SecureAddr}, TLS: &tc})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	})
	t.Run("member host name checked", func(t *testing.T) {
		// go-zookeeper would resolve "localhost" to an IP before dialing;
		// zkview keeps the name so the certificate is checked against it.
		_, port, _ := strings.Cut(srv.SecureAddr, ":")
		tc := good
		tc.ServerName = ""
		c, err := tryConnect(Config{Servers: []string{"localhost:" + port}, TLS: &tc})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if got := c.Server(); got != "localhost:"+port {
			t.Errorf("Server() = %q, want the name as given", got)
		}
	})
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
		fast bool // fails at once, not at the connect deadline
	}{
		{
			name: "wrong server name",
			cfg:  Config{Servers: []string{srv.SecureAddr}, TLS: &TLSConfig{CAFile: m.CAFile, CertFile: m.ClientCert, KeyFile: m.ClientKey, ServerName: "wrong.example"}},
			want: []string{"certificate is valid for", "not wrong.example", "--tls-server-name"},
			fast: true,
		},
		{
			name: "unknown CA",
			cfg:  Config{Servers: []string{srv.SecureAddr}, TLS: &TLSConfig{ServerName: m.ServerName}},
			want: []string{"certificate signed by unknown authority", "--tls-ca"},
			fast: true,
		},
		{
			name: "no client certificate",
			cfg:  Config{Servers: []string{srv.SecureAddr}, TLS: &TLSConfig{CAFile: m.CAFile, ServerName: m.ServerName}},
			want: []string{"bad certificate", "--tls-cert"},
			fast: true,
		},
		{
			name: "plaintext client to the secure port",
			cfg:  Config{Servers: []string{srv.SecureAddr}},
			want: []string{"authentication failed", "is this a TLS (secure client) port", "--tls"},
		},
		{
			name: "TLS client to the plain port",
			cfg:  Config{Servers: []string{srv.ClientAddr}, TLS: &TLSConfig{CAFile: m.CAFile, ServerName: m.ServerName}},
			want: []string{"does not speak TLS"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			within := 3 * time.Second // these wait for the deadline, and say why
			if tc.fast {
				within = patience
			}
			c, err := tryConnectWithin(tc.cfg, within)
			if tc.fast && errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%v: a certificate problem must fail at once, not at the deadline", err)
			}
			if err == nil {
				c.Close()
				t.Fatal("connected; want a failure")
			}
			msg := err.Error()
			t.Log(msg)
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans lines")
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not contain %q", w)
				}
			}
		})
	}
}
