package redistest

import (
	"testing"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// StartTLS starts a redis-server that speaks TLS only, with a server
// certificate (for 127.0.0.1 among others) signed by a new CA
// ([zktest.GenerateTLS]); caFile is that CA's PEM (what --tls-ca is
// given). Clients need no certificate of their own.
func StartTLS(t testing.TB) (s *Server, caFile string) {
	t.Helper()
	bin := Require(t)
	dir := t.TempDir()
	m, err := zktest.GenerateTLS(dir + "/pki")
	if err != nil {
		t.Fatalf("make TLS certificates: %v", err)
	}
	// ServerPEM holds the key and the certificate: both files in one.
	s, err = start(bin, dir, []string{m.ServerPEM, m.ServerPEM, m.CAFile})
	if err != nil {
		t.Fatalf("start redis-server with TLS: %v", err)
	}
	t.Cleanup(s.Stop)
	return s, m.CAFile
}
