package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview"
)

const sampleConfig = `
current_context = "dev"
theme = "high-contrast"

[contexts.dev]
servers = "127.0.0.1:2181"

[contexts.prod]
servers = "zk1:2181,zk2:2181/app"
session_timeout = "7s"
read_only = true
auth_file = "~/prod-auth"
tls = { ca = "~/ca.pem", cert = "/etc/c.pem", key = "/etc/k.pem", server_name = "zk.prod" }
admin_port = 8080
`

// configHome writes a config file under a fresh XDG_CONFIG_HOME and HOME and
// returns the environment that points at them.
func configHome(t *testing.T, content string) map[string]string {
	t.Helper()
	home := t.TempDir()
	xdg := filepath.Join(home, "xdg")
	if err := os.MkdirAll(filepath.Join(xdg, "zkscope"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(xdg, "zkscope", "config.toml"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg}
}

func TestResolveZooKeeperPrecedence(t *testing.T) {
	env := configHome(t, sampleConfig)
	home := env["HOME"]
	if err := os.WriteFile(filepath.Join(home, "prod-auth"), []byte("# prod\nops:hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		flags   Flags
		env     map[string]string
		servers string
		chroot  string
		context string
	}{
		{name: "current_context", servers: "127.0.0.1:2181", context: "dev"},
		{name: "--context", flags: Flags{Context: "prod"}, servers: "zk1:2181,zk2:2181", chroot: "/app", context: "prod"},
		{name: "ZKSCOPE_CONTEXT", env: map[string]string{"ZKSCOPE_CONTEXT": "prod"}, servers: "zk1:2181,zk2:2181", chroot: "/app", context: "prod"},
		{name: "ZKSCOPE_SERVER beats the context", flags: Flags{Context: "prod"}, env: map[string]string{"ZKSCOPE_SERVER": "env:1"}, servers: "env:1", context: "prod"},
		{name: "--server beats everything", flags: Flags{Context: "prod", Server: "flag:2/x"}, env: map[string]string{"ZKSCOPE_SERVER": "env:1"}, servers: "flag:2", chroot: "/x", context: "prod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := map[string]string{}
			for k, v := range env {
				e[k] = v
			}
			for k, v := range tc.env {
				e[k] = v
			}
			cfg, err := ResolveZooKeeper(tc.flags, envOf(e))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(cfg.Servers, ","); got != tc.servers || cfg.Chroot != tc.chroot || cfg.Context != tc.context {
				t.Errorf("got %s %q ctx %q; want %s %q ctx %q", got, cfg.Chroot, cfg.Context, tc.servers, tc.chroot, tc.context)
			}
			// The UI's settings come from the same file, not the Config.
			fc, err := LoadFile(FilePath(tc.flags, envOf(e)))
			if err != nil {
				t.Fatal(err)
			}
			if fc.Theme != "high-contrast" || strings.Join(fc.ContextNames(), ",") != "dev,prod" {
				t.Errorf("theme %q contexts %v", fc.Theme, fc.ContextNames())
			}
		})
	}

	prod, err := ResolveZooKeeper(Flags{Context: "prod"}, envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	if !prod.ReadOnly || prod.SessionTimeout != 7*time.Second || prod.AdminPort != 8080 {
		t.Errorf("prod: read-only %v timeout %s admin %d", prod.ReadOnly, prod.SessionTimeout, prod.AdminPort)
	}
	if len(prod.Auth) != 1 || string(prod.Auth[0].Secret) != "ops:hunter2" || prod.Auth[0].Scheme != "digest" {
		t.Errorf("prod auth = %+v", prod.Auth)
	}
	want := zkview.TLSConfig{CAFile: filepath.Join(home, "ca.pem"), CertFile: "/etc/c.pem", KeyFile: "/etc/k.pem", ServerName: "zk.prod"}
	if prod.TLS == nil || *prod.TLS != want {
		t.Errorf("prod TLS = %+v, want %+v", prod.TLS, want)
	}
	// Flags override single TLS fields and the session timeout.
	o, err := ResolveZooKeeper(Flags{Context: "prod", TLSServerName: "other", SessionTimeout: 3 * time.Second}, envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	if o.TLS.ServerName != "other" || o.TLS.CAFile != want.CAFile || o.SessionTimeout != 3*time.Second {
		t.Errorf("overrides: %+v %s", o.TLS, o.SessionTimeout)
	}
	// ZKSCOPE_AUTH beats the context's auth file; --auth-file beats both.
	e2 := map[string]string{"ZKSCOPE_AUTH": "digest:env:pw"}
	for k, v := range env {
		e2[k] = v
	}
	a, err := ResolveZooKeeper(Flags{Context: "prod"}, envOf(e2))
	if err != nil || string(a.Auth[0].Secret) != "env:pw" {
		t.Errorf("ZKSCOPE_AUTH: %+v %v", a.Auth, err)
	}
	flagFile := filepath.Join(home, "flag-auth")
	os.WriteFile(flagFile, []byte("flag:pw\n"), 0o400)
	a, err = ResolveZooKeeper(Flags{Context: "prod", AuthFile: flagFile}, envOf(e2))
	if err != nil || string(a.Auth[0].Secret) != "flag:pw" {
		t.Errorf("--auth-file: %+v %v", a.Auth, err)
	}
	// :ctx switching ignores --server and ZKSCOPE_SERVER.
	e3 := map[string]string{"ZKSCOPE_SERVER": "env:1"}
	for k, v := range env {
		e3[k] = v
	}
	sw, err := ResolveContext(Flags{Server: "flag:2"}, "prod", envOf(e3))
	if err != nil || strings.Join(sw.Servers, ",") != "zk1:2181,zk2:2181" || sw.Context != "prod" {
		t.Errorf("ResolveContext: %v %v", sw.Servers, err)
	}
}

func TestResolveZooKeeperDefaults(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()} // no config file at all
	cfg, err := ResolveZooKeeper(Flags{}, envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.Servers, ",") != zkview.DefaultServer || cfg.SessionTimeout != zkview.DefaultSessionTimeout || cfg.TLS != nil || cfg.Auth != nil || cfg.Context != "" {
		t.Errorf("defaults: %+v", cfg)
	}
	if got := DefaultPath(envOf(env)); got != filepath.Join(env["HOME"], ".config", "zkscope", "config.toml") {
		t.Errorf("default path %s", got)
	}
	cfg, err = ResolveZooKeeper(Flags{TLS: true}, envOf(env))
	if err != nil || cfg.TLS == nil {
		t.Errorf("--tls alone: %+v %v", cfg.TLS, err)
	}
}

func TestResolveZooKeeperErrors(t *testing.T) {
	good := configHome(t, sampleConfig)
	weak := filepath.Join(good["HOME"], "weak-auth")
	os.WriteFile(weak, []byte("u:p\n"), 0o644)
	empty := filepath.Join(good["HOME"], "empty-auth")
	os.WriteFile(empty, []byte("# nothing\n"), 0o600)
	for _, tc := range []struct {
		name  string
		env   map[string]string
		flags Flags
		want  []string
	}{
		{name: "unknown context", env: good, flags: Flags{Context: "staging"}, want: []string{`unknown context "staging"`, "known: dev, prod"}},
		{name: "unknown context without a file", env: map[string]string{"HOME": t.TempDir()}, flags: Flags{Context: "prod"}, want: []string{`unknown context "prod"`, "(missing)", "known: none"}},
		{name: "missing --config", env: good, flags: Flags{ConfigFile: "/nonexistent/zk.toml"}, want: []string{"read config file", "/nonexistent/zk.toml", "no such file"}},
		{name: "bad TOML", env: configHome(t, "theme = \"dark\"\n[contexts.a]\nservers = \n"), want: []string{"config.toml: line 3:"}},
		{name: "unknown key", env: configHome(t, "[contexts.a]\nserver = \"x\"\n"), want: []string{"unknown key contexts.a.server"}},
		{name: "bad current_context", env: configHome(t, "current_context = \"b\"\n[contexts.a]\n"), want: []string{`current_context "b" is not a context`}},
		{name: "bad duration", env: configHome(t, "[contexts.a]\nsession_timeout = \"ten\"\n"), want: []string{"line 2"}},
		{name: "world-readable auth file", env: good, flags: Flags{AuthFile: weak}, want: []string{"readable by group or others", "chmod 600"}},
		{name: "auth file without credentials", env: good, flags: Flags{AuthFile: empty}, want: []string{"no user:password line"}},
		{name: "missing auth file", env: good, flags: Flags{AuthFile: "/nonexistent/auth"}, want: []string{"auth file", "no such file"}},
		{name: "bad ZKSCOPE_AUTH", env: map[string]string{"HOME": t.TempDir(), "ZKSCOPE_AUTH": "justuser"}, want: []string{"ZKSCOPE_AUTH", "user:password"}},
		{name: "cert without key", env: map[string]string{"HOME": t.TempDir()}, flags: Flags{TLSCert: "/c.pem"}, want: []string{"--tls-key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ResolveZooKeeper(tc.flags, envOf(tc.env))
			if err == nil {
				t.Fatal("want an error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans lines: %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestResolveTarget: redis:// and rediss:// server lists are Redis's,
// anything else ZooKeeper's; credentials in --server are refused.
func TestResolveTarget(t *testing.T) {
	env := envOf(map[string]string{"HOME": t.TempDir()})
	for _, tc := range []struct {
		server  string
		isRedis bool
		err     string
	}{
		{server: "127.0.0.1:2181"},
		{server: "zk1:2181,zk2:2181/app"},
		{server: "redis://127.0.0.1:6379", isRedis: true},
		{server: "rediss://a:6380,rediss://b:6380", isRedis: true},
		{server: "redis://u:pw@127.0.0.1:6379", isRedis: true, err: "--server holds credentials"},
	} {
		got := Resolve(Flags{Server: tc.server}, env)
		if got.IsRedis() != tc.isRedis || (tc.err == "") != (got.Err == nil) || (got.Err != nil && !strings.Contains(got.Err.Error(), tc.err)) {
			t.Errorf("%s: redis %v, err %v; want redis %v, err %q", tc.server, got.IsRedis(), got.Err, tc.isRedis, tc.err)
		}
	}
}

func TestResolveDB(t *testing.T) {
	env := func(m map[string]string) func(string) string {
		return func(k string) string {
			if k == "XDG_CONFIG_HOME" {
				return "/nonexistent"
			}
			return m[k]
		}
	}
	tg := Resolve(Flags{Server: "postgres://app@127.0.0.1:5433/orders"}, env(map[string]string{"ZKSCOPE_AUTH": "app:pw"}))
	if tg.Err != nil || !tg.IsDB() || tg.DB.Config.Password != "pw" || tg.DB.Config.User != "app" || tg.DB.Config.Port != 5433 {
		t.Fatalf("resolved %+v", tg)
	}
	tg = Resolve(Flags{Server: "postgres://app:pw@127.0.0.1/orders"}, env(nil))
	if tg.Err == nil || !strings.Contains(tg.Err.Error(), "--server holds a password") {
		t.Fatalf("a password in --server: %v", tg.Err)
	}
	tg = Resolve(Flags{Server: "postgres://app@127.0.0.1/orders"}, env(map[string]string{"ZKSCOPE_AUTH": "other:pw"}))
	if tg.Err == nil || !strings.Contains(tg.Err.Error(), "give one user") {
		t.Fatalf("two users: %v", tg.Err)
	}
	tg = Resolve(Flags{Server: "postgres://app@127.0.0.1/orders?sslmode=disable", TLS: true}, env(nil))
	if tg.Err == nil || !strings.Contains(tg.Err.Error(), "turns TLS off") {
		t.Fatalf("TLS flags with sslmode=disable: %v", tg.Err)
	}
	tg = Resolve(Flags{Server: "postgres://app@127.0.0.1/orders?sslmode=verify-full", TLS: true}, env(nil))
	if tg.Err != nil || tg.DB.Config.TLS == nil {
		t.Fatalf("TLS flags: %+v", tg)
	}
}
