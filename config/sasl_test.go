package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/zkview/sasl"
)

const saslConfig = `
[contexts.digest]
servers = "zk1:2181"
[contexts.digest.sasl]
mechanism = "DIGEST-MD5"
user = "bob"
password_file = "~/zk-password"

[contexts.kerberos]
servers = "zk1:2181"
sasl = { principal = "zkscope@EXAMPLE.COM", keytab = "~/zkscope.keytab", service = "zk/zk.example.com" }
`

func TestResolveSASL(t *testing.T) {
	env := configHome(t, saslConfig)
	getenv := func(k string) string { return env[k] }
	pw := filepath.Join(env["HOME"], "zk-password")
	if err := os.WriteFile(pw, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	cfg, err := ResolveZooKeeper(Flags{Context: "digest"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.SASL; s == nil || s.Mechanism != sasl.DigestMD5 || s.User != "bob" || s.Password != "s3cret" || s.Service != "" {
		t.Errorf("digest context: %+v", s)
	}
	// Flags win over the context's table.
	cfg, err = ResolveZooKeeper(Flags{Context: "digest", SASLUser: "alice"}, getenv)
	if err != nil || cfg.SASL.User != "alice" {
		t.Errorf("--sasl-user over the context: %+v %v", cfg.SASL, err)
	}
	cfg, err = ResolveZooKeeper(Flags{Context: "kerberos"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.SASL; s == nil || s.Mechanism != sasl.GSSAPI || s.Principal != "zkscope@EXAMPLE.COM" ||
		s.Keytab != filepath.Join(env["HOME"], "zkscope.keytab") || s.Service != "zk" || s.ServiceHost != "zk.example.com" {
		t.Errorf("kerberos context: %+v", s)
	}
	// The password from the environment; a mechanism implied by the flags.
	env["ZKSCOPE_SASL_PASSWORD"] = "from-env"
	cfg, err = ResolveZooKeeper(Flags{SASLUser: "carol"}, getenv)
	if err != nil || cfg.SASL.Mechanism != sasl.DigestMD5 || cfg.SASL.Password != "from-env" {
		t.Errorf("env password: %+v %v", cfg.SASL, err)
	}
	delete(env, "ZKSCOPE_SASL_PASSWORD")
	if cfg, err := ResolveZooKeeper(Flags{}, getenv); err != nil || cfg.SASL != nil {
		t.Errorf("no SASL asked: %+v %v", cfg.SASL, err)
	}

	loose := filepath.Join(env["HOME"], "loose")
	os.WriteFile(loose, []byte("pw"), 0o644)
	for _, c := range []struct {
		f    Flags
		want string
	}{
		{Flags{SASLUser: "carol"}, "--sasl-password-file"},
		{Flags{SASLUser: "carol", SASLPasswordFile: loose}, "chmod 600"},
		{Flags{SASLMechanism: "PLAIN", SASLUser: "x"}, "DIGEST-MD5 or GSSAPI"},
		{Flags{SASLMechanism: "DIGEST-MD5"}, "--sasl-user"},
		{Flags{Principal: "p", SASLUser: "x"}, "not --sasl-user"},
	} {
		if _, err := ResolveZooKeeper(c.f, getenv); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.f, err, c.want)
		}
	}
}
