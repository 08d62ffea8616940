package zktest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// SASLServer describes a ZooKeeper server that requires SASL: the JAAS file
// it runs with and the options that made it.
type SASLServer struct {
	JAASFile string
	Options  Options
}

// DigestSASL is the options of a server whose JAAS Server section holds
// users (DIGEST-MD5, DigestLoginModule) and which refuses every client that
// did not authenticate with SASL (enforce.auth.enabled=true). The JAAS file
// is written in dir.
func DigestSASL(dir string, users map[string]string) (SASLServer, error) {
	names := make([]string, 0, len(users))
	for u := range users {
		names = append(names, u)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule required")
	for _, u := range names {
		fmt.Fprintf(&b, "\n  user_%s=%q", u, users[u])
	}
	b.WriteString(";\n};\n")
	return saslServer(dir, b.String())
}

// saslServer writes the JAAS file and the options that enforce SASL.
func saslServer(dir, jaas string) (SASLServer, error) {
	path := filepath.Join(dir, "jaas.conf")
	if err := os.WriteFile(path, []byte(jaas), 0o600); err != nil {
		return SASLServer{}, err
	}
	return SASLServer{JAASFile: path, Options: Options{
		JVMFlags: []string{"-Djava.security.auth.login.config=" + path},
		Extra: []string{
			"authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
			"enforce.auth.enabled=true",
			"enforce.auth.schemes=sasl",
		},
	}}, nil
}

// StartDigestSASL starts a standalone server requiring SASL with the
// DIGEST-MD5 users given, stopped when t ends.
func StartDigestSASL(t testing.TB, users map[string]string) *Cluster {
	t.Helper()
	s, err := DigestSASL(t.TempDir(), users)
	if err != nil {
		t.Fatal(err)
	}
	return StartStandalone(t, s.Options)
}
