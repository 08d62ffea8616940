package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// TestResolvedCredentialsConnect: digest credentials resolved from the
// environment work end to end against a real server.
func TestResolvedCredentialsConnect(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	owner := dial(t, zkview.Config{Servers: cl.Addrs(), Auth: []zkview.Auth{{Scheme: "digest", Secret: []byte("alice:s3cret")}}})
	zktest.MakePath(t, owner.Conn(), root)
	secret := root + "/secret"
	if _, err := owner.Conn().Create(secret, []byte("classified"), 0, zk.DigestACL(zk.PermAll, "alice", "s3cret")); err != nil {
		t.Fatal(err)
	}
	_, err := ResolveZooKeeper(Flags{Server: cl.ConnectString(), ConfigFile: t.TempDir() + "/none.toml"}, func(k string) string {
		if k == "ZKSCOPE_AUTH" {
			return "alice:s3cret"
		}
		return ""
	})
	if err == nil {
		t.Fatal("an explicit --config that does not exist must be an error")
	}
	cfg, err := ResolveZooKeeper(Flags{Server: cl.ConnectString()}, envOf(map[string]string{"ZKSCOPE_AUTH": "alice:s3cret", "XDG_CONFIG_HOME": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	viaEnv := dial(t, cfg)
	if _, err := viaEnv.Get(secret); err != nil {
		t.Errorf("read with ZKSCOPE_AUTH credentials: %v", err)
	}
}

func dial(t testing.TB, cfg zkview.Config) *zkview.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := zkview.Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestDocsConfigExample: every config file shown in the docs
// (docs/configuration.md) loads: the contexts' example and SASL's.
func TestDocsConfigExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*File{}
	for rest, n := string(doc), 0; ; n++ {
		var ok bool
		_, rest, ok = strings.Cut(rest, "```toml\n")
		if !ok {
			break
		}
		var example string
		example, rest, _ = strings.Cut(rest, "```")
		p := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(p, []byte(example), 0o600); err != nil {
			t.Fatal(err)
		}
		fc, err := LoadFile(p, true)
		if err != nil {
			t.Fatalf("config example %d of docs/configuration.md: %v", n+1, err)
		}
		for name := range fc.Contexts {
			files[name] = fc
		}
	}
	fc := files["prod"]
	if fc == nil {
		t.Fatal("docs/configuration.md shows no prod context")
	}
	prod := fc.Contexts["prod"]
	if fc.CurrentContext != "local" || !prod.ReadOnly || prod.SessionTimeout != 10*time.Second || prod.TLS == nil || prod.TLS.ServerName != "zk.prod.internal" || prod.AdminPort != 8080 || prod.SASL == nil {
		t.Errorf("parsed %+v / prod %+v", fc, prod)
	}
	digest, krb := files["kafka-digest"], files["hbase"]
	if digest == nil || krb == nil {
		t.Fatal("docs/configuration.md shows no SASL contexts kafka-digest and hbase")
	}
	if s := digest.Contexts["kafka-digest"].SASL; s == nil || s.Mechanism != "DIGEST-MD5" || s.User == "" || s.PasswordFile == "" {
		t.Errorf("kafka-digest's sasl: %+v", s)
	}
	if s := krb.Contexts["hbase"].SASL; s == nil || s.Principal == "" || s.Keytab == "" {
		t.Errorf("hbase's sasl: %+v", s)
	}
}
