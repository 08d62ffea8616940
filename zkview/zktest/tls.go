package zktest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// TLSMaterial is a throw-away PKI made by [GenerateTLS]: a CA, a server
// certificate it signed and a client certificate it signed, as PEM files.
type TLSMaterial struct {
	CAFile string // CA certificate (the clients' and the server's trust store)
	// ServerPEM holds the server's PKCS#8 key followed by its certificate:
	// ZooKeeper's PEM key store (ssl.keyStore.type=PEM).
	ServerPEM string
	// ClientCert and ClientKey are a client certificate and its key.
	ClientCert, ClientKey string
	// ServerName is the DNS name in the server certificate (also valid:
	// "localhost" and the IP 127.0.0.1).
	ServerName string
}

// TLSServerName is the DNS name [GenerateTLS] puts in the server certificate.
const TLSServerName = "zk.zkscope.test"

// GenerateTLS writes a fresh CA, server and client certificate (ECDSA P-256,
// valid for a day) under dir.
func GenerateTLS(dir string) (*TLSMaterial, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ca, err := newTestCA(time.Now())
	if err != nil {
		return nil, err
	}
	srvCert, srvKey, err := ca.issue(2, TLSServerName, x509.ExtKeyUsageServerAuth,
		[]string{TLSServerName, "localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	cliCert, cliKey, err := ca.issue(3, "zkscope test client", x509.ExtKeyUsageClientAuth, nil, nil)
	if err != nil {
		return nil, err
	}
	m := &TLSMaterial{
		CAFile:     filepath.Join(dir, "ca.pem"),
		ServerPEM:  filepath.Join(dir, "server.pem"),
		ClientCert: filepath.Join(dir, "client.pem"),
		ClientKey:  filepath.Join(dir, "client-key.pem"),
		ServerName: TLSServerName,
	}
	files := map[string][]byte{
		m.CAFile:     pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.der}),
		m.ServerPEM:  append(srvKey, srvCert...),
		m.ClientCert: cliCert,
		m.ClientKey:  cliKey,
	}
	for name, b := range files {
		if err := os.WriteFile(name, b, 0o600); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// testCA is a throw-away certificate authority: its certificate and key.
type testCA struct {
	cert *x509.Certificate
	der  []byte
	key  *ecdsa.PrivateKey
	now  time.Time
}

// newTestCA makes a CA valid from an hour before now for a day.
func newTestCA(now time.Time) (*testCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "zkscope test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &testCA{cert: cert, der: der, key: key, now: now}, nil
}

// issue makes a certificate the CA signed, for usage, with a fresh key:
// both as PEM (the key PKCS#8).
func (ca *testCA) issue(serial int64, cn string, usage x509.ExtKeyUsage, dns []string, ips []net.IP) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    ca.now.Add(-time.Hour),
		NotAfter:     ca.now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		DNSNames:     dns,
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, fmt.Errorf("create %s certificate: %w", cn, err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}), nil
}

// ServerFiles returns the [TLSFiles] that make a server use this material
// (PEM key and trust stores); clientAuth is "need", "want" or "none".
func (m *TLSMaterial) ServerFiles(clientAuth string) *TLSFiles {
	return &TLSFiles{
		KeyStore: m.ServerPEM, KeyStoreType: "PEM",
		TrustStore: m.CAFile, TrustStoreType: "PEM",
		ClientAuth: clientAuth,
	}
}
