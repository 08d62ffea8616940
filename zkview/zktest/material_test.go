package zktest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
	"time"
)

func TestGenerateTLSChains(t *testing.T) {
	m, err := GenerateTLS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	caPEM, _ := os.ReadFile(m.CAFile)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("CA file holds no certificate")
	}
	// The server file is a PKCS#8 key followed by the certificate.
	b, _ := os.ReadFile(m.ServerPEM)
	key, rest := pem.Decode(b)
	crt, _ := pem.Decode(rest)
	if key == nil || key.Type != "PRIVATE KEY" || crt == nil || crt.Type != "CERTIFICATE" {
		t.Fatalf("server PEM layout: %v %v", key, crt)
	}
	cert, err := x509.ParseCertificate(crt.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{TLSServerName, "localhost", "127.0.0.1"} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: name}); err != nil {
			t.Errorf("server certificate for %s: %v", name, err)
		}
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: "other.example"}); err == nil {
		t.Error("server certificate verifies for a name it does not hold")
	}
	if _, err := tls.LoadX509KeyPair(m.ClientCert, m.ClientKey); err != nil {
		t.Errorf("client pair: %v", err)
	}
	for _, f := range []string{m.CAFile, m.ServerPEM, m.ClientCert, m.ClientKey} {
		if st, _ := os.Stat(f); st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", f, st.Mode().Perm())
		}
	}
}

func TestProxyBlocks(t *testing.T) {
	cl := StartStandalone(t, Options{})
	p, err := NewProxy(cl.Servers[0].ClientAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srvr := func() (string, error) { return FourLetterWord(p.Addr(), "srvr", time.Second) }
	if out, err := srvr(); err != nil || Mode(out) != "standalone" {
		t.Fatalf("through the proxy: %q %v", out, err)
	}
	p.Block()
	if out, _ := srvr(); out != "" {
		t.Fatalf("a blocked proxy relayed: %q", out)
	}
	p.Unblock()
	if out, err := srvr(); err != nil || Mode(out) != "standalone" {
		t.Fatalf("after unblock: %q %v", out, err)
	}
}
