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

// TestDocsConfigExample: the config file shown in the docs
// (docs/configuration.md) loads.
func TestDocsConfigExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```toml\n")
	if !ok {
		t.Fatal("docs/configuration.md has no toml example")
	}
	example, _, _ := strings.Cut(rest, "```")
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(example), 0o600); err != nil {
		t.Fatal(err)
	}
	fc, err := LoadFile(p, true)
	if err != nil {
		t.Fatalf("the config example of docs/configuration.md: %v", err)
	}
	prod := fc.Contexts["prod"]
	if fc.CurrentContext != "local" || !prod.ReadOnly || prod.SessionTimeout != 10*time.Second || prod.TLS == nil || prod.TLS.ServerName != "zk.prod.internal" || prod.AdminPort != 8080 {
		t.Errorf("parsed %+v / prod %+v", fc, prod)
	}
}
