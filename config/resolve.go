package config

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/zkscope/zkscope/zkview"
)

// ResolveZooKeeper merges, in rising order of precedence: defaults, the config
// file's selected context, ZKSCOPE_* environment variables and flags.
// getenv is os.Getenv outside tests.
//
// Servers: --server > ZKSCOPE_SERVER > the context's servers > 127.0.0.1:2181.
// Context: --context > ZKSCOPE_CONTEXT > the file's current_context.
// Digest credentials: --auth-file > ZKSCOPE_AUTH > the context's auth_file.
func ResolveZooKeeper(f Flags, getenv func(string) string) (zkview.Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	fc, err := LoadFile(FilePath(f, getenv))
	if err != nil {
		return zkview.Config{}, err
	}

	name := f.Context
	if name == "" {
		name = getenv("ZKSCOPE_CONTEXT")
	}
	if name == "" {
		name = fc.CurrentContext
	}
	var ctx Context
	if name != "" {
		c, ok := fc.Contexts[name]
		if !ok {
			where := fc.Path
			if where == "" {
				path, _ := FilePath(f, getenv)
				where = path + " (missing)"
			}
			return zkview.Config{}, fmt.Errorf("unknown context %q in %s (known: %s)", name, where, knownList(fc))
		}
		ctx = c
	}

	cfg := zkview.Config{
		Context:        name,
		ReadOnly:       f.ReadOnly || ctx.ReadOnly,
		DefaultRecipe:  ctx.DefaultRecipe,
		SessionTimeout: f.SessionTimeout,
		AdminPort:      ctx.AdminPort,
	}
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = ctx.SessionTimeout
	}
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = zkview.DefaultSessionTimeout
	}

	server := f.Server
	if server == "" {
		server = getenv("ZKSCOPE_SERVER")
	}
	if server == "" {
		server = ctx.Servers
	}
	if server == "" {
		server = zkview.DefaultServer
	}
	servers, chroot, err := zkview.ParseConnectString(server)
	if err != nil {
		return zkview.Config{}, fmt.Errorf("server list %q: %w", server, err)
	}
	cfg.Servers, cfg.Chroot = servers, chroot

	auth, err := resolveAuth(f, ctx, getenv)
	if err != nil {
		return zkview.Config{}, err
	}
	cfg.Auth = auth

	t, err := ResolveTLS(f, ctx, getenv)
	if err != nil {
		return zkview.Config{}, err
	}
	cfg.TLS = t

	sc, err := ResolveSASL(f, ctx, getenv)
	if err != nil {
		return zkview.Config{}, err
	}
	cfg.SASL = sc
	return cfg, nil
}

// ResolveTLS merges the context's tls table and the --tls* flags (flags
// win); nil when neither asks for TLS. Redis servers (rediss://) take the
// same settings as ZooKeeper's.
func ResolveTLS(f Flags, ctx Context, getenv func(string) string) (*zkview.TLSConfig, error) {
	var t zkview.TLSConfig
	if ctx.TLS != nil {
		t = zkview.TLSConfig{
			CAFile: expandHome(ctx.TLS.CA, getenv), CertFile: expandHome(ctx.TLS.Cert, getenv),
			KeyFile: expandHome(ctx.TLS.Key, getenv), ServerName: ctx.TLS.ServerName, Insecure: ctx.TLS.Insecure,
		}
	}
	override := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	override(&t.CAFile, expandHome(f.TLSCA, getenv))
	override(&t.CertFile, expandHome(f.TLSCert, getenv))
	override(&t.KeyFile, expandHome(f.TLSKey, getenv))
	override(&t.ServerName, f.TLSServerName)
	if f.TLS || ctx.TLS != nil || t != (zkview.TLSConfig{}) {
		if (t.CertFile == "") != (t.KeyFile == "") {
			return nil, errors.New("TLS client certificate and key go together: give both --tls-cert and --tls-key (or cert and key in the context's tls table)")
		}
		return &t, nil
	}
	return nil, nil
}

// ResolveContext resolves the named context as `:ctx name` switches to it:
// like [ResolveZooKeeper] with --context name, but neither --server nor
// ZKSCOPE_SERVER/ZKSCOPE_CONTEXT override the context's servers.
func ResolveContext(f Flags, name string, getenv func(string) string) (zkview.Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	f.Context, f.Server = name, ""
	return ResolveZooKeeper(f, func(k string) string {
		if k == "ZKSCOPE_SERVER" || k == "ZKSCOPE_CONTEXT" {
			return ""
		}
		return getenv(k)
	})
}

// resolveAuth finds digest credentials: --auth-file, else ZKSCOPE_AUTH, else
// the context's auth_file.
func resolveAuth(f Flags, ctx Context, getenv func(string) string) ([]zkview.Auth, error) {
	switch {
	case f.AuthFile != "":
		return readAuthFile(expandHome(f.AuthFile, getenv))
	case getenv("ZKSCOPE_AUTH") != "":
		a, err := parseDigest(getenv("ZKSCOPE_AUTH"))
		if err != nil {
			return nil, fmt.Errorf("ZKSCOPE_AUTH: %w", err)
		}
		return []zkview.Auth{a}, nil
	case ctx.AuthFile != "":
		return readAuthFile(expandHome(ctx.AuthFile, getenv))
	}
	return nil, nil
}

// readAuthFile reads "user:password" from a file that only its owner may read.
func readAuthFile(path string) ([]zkview.Auth, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("auth file: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("auth file %s is readable by group or others (mode %#o): run `chmod 600 %s`", path, st.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth file: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, err := parseDigest(line)
		if err != nil {
			return nil, fmt.Errorf("auth file %s: %w", path, err)
		}
		return []zkview.Auth{a}, nil
	}
	return nil, fmt.Errorf("auth file %s holds no user:password line", path)
}

// parseDigest accepts "user:password" or "digest:user:password".
func parseDigest(s string) (zkview.Auth, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "digest:"); ok && strings.Contains(rest, ":") {
		s = rest
	}
	user, pass, ok := strings.Cut(s, ":")
	if !ok || user == "" || pass == "" {
		return zkview.Auth{}, errors.New(`want "user:password"`)
	}
	return zkview.Auth{Scheme: "digest", Secret: []byte(s)}, nil
}

// contextSettings is the named context's settings as [ResolveZooKeeper]
// chooses the context (--context, ZKSCOPE_CONTEXT, the file's
// current_context), and its credentials (--auth-file, ZKSCOPE_AUTH, the
// context's auth_file) as "user:password" ("" when none): for a backend
// other than ZooKeeper that shares contexts and credentials.
func contextSettings(f Flags, getenv func(string) string) (Context, string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	fc, err := LoadFile(FilePath(f, getenv))
	if err != nil {
		return Context{}, "", err
	}
	name := cmp.Or(f.Context, getenv("ZKSCOPE_CONTEXT"), fc.CurrentContext)
	var ctx Context
	if name != "" {
		c, ok := fc.Contexts[name]
		if !ok {
			return Context{}, "", fmt.Errorf("unknown context %q (known: %s)", name, knownList(fc))
		}
		ctx = c
	}
	auth, err := resolveAuth(f, ctx, getenv)
	if err != nil || len(auth) == 0 {
		return ctx, "", err
	}
	return ctx, string(auth[0].Secret), nil
}
