package zkview

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// DefaultSessionTimeout is requested when neither a flag nor the context sets one.
const DefaultSessionTimeout = 10 * time.Second

// Flags are the connection settings a user can give on the command line.
// Secrets never come from argv: AuthFile names a file, and the environment
// variable ZKSCOPE_AUTH holds "user:password" (a "digest:" prefix is accepted).
type Flags struct {
	Server         string // --server (connect string, may end in /chroot)
	Context        string // --context (else ZKSCOPE_CONTEXT, else the file's current_context)
	ConfigFile     string // --config (default $XDG_CONFIG_HOME/zkscope/config.toml)
	AuthFile       string // --auth-file: a file holding "user:password" (digest)
	TLSCA          string // --tls-ca
	TLSCert        string // --tls-cert
	TLSKey         string // --tls-key
	TLSServerName  string // --tls-server-name
	TLS            bool   // --tls
	ReadOnly       bool   // --read-only
	SessionTimeout time.Duration
}

// FileConfig is the parsed config file (config.toml):
//
//	current_context = "prod"
//	theme = "dark"
//
//	[contexts.prod]
//	servers = "zk1:2181,zk2:2181/app"
//	session_timeout = "10s"
//	read_only = true
//	auth_file = "~/.zk-prod-auth"
//	tls = { ca = "~/prod-ca.pem", cert = "...", key = "...", server_name = "zk.prod" }
//	admin_port = 8080
type FileConfig struct {
	// Path is the file this was read from ("" when there is no file).
	Path           string                   `toml:"-"`
	CurrentContext string                   `toml:"current_context"`
	Theme          string                   `toml:"theme"`
	Contexts       map[string]ContextConfig `toml:"contexts"`
}

// ContextConfig is one named context of the config file.
type ContextConfig struct {
	Servers        string        `toml:"servers"`
	SessionTimeout time.Duration `toml:"session_timeout"`
	ReadOnly       bool          `toml:"read_only"`
	// DefaultRecipe is the lock library ("curator", "kazoo" or "go-zk")
	// zkscope takes a lock in when the lock has no contenders and the
	// locks next to it do not tell.
	DefaultRecipe string      `toml:"default_recipe"`
	AuthFile      string      `toml:"auth_file"`
	TLS           *ContextTLS `toml:"tls"`
	AdminPort     int         `toml:"admin_port"`
}

// ContextTLS is a context's TLS table.
type ContextTLS struct {
	CA         string `toml:"ca"`
	Cert       string `toml:"cert"`
	Key        string `toml:"key"`
	ServerName string `toml:"server_name"`
	Insecure   bool   `toml:"insecure"`
}

// ContextNames lists the file's contexts, sorted (for `:ctx name` completion).
func (f *FileConfig) ContextNames() []string {
	if f == nil {
		return nil
	}
	names := make([]string, 0, len(f.Contexts))
	for n := range f.Contexts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DefaultConfigPath is $XDG_CONFIG_HOME/zkscope/config.toml, or
// ~/.config/zkscope/config.toml when XDG_CONFIG_HOME is unset.
func DefaultConfigPath(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "zkscope", "config.toml")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".config", "zkscope", "config.toml")
}

// LoadConfigFile reads and checks a config file. When explicit is false a
// missing file is not an error (an empty FileConfig is returned).
func LoadConfigFile(path string, explicit bool) (*FileConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return &FileConfig{}, nil
		}
		return nil, fmt.Errorf("read config file: %w", err)
	}
	fc := &FileConfig{}
	md, err := toml.Decode(string(b), fc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("config file %s: line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		keys := make([]string, len(u))
		for i, k := range u {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("config file %s: unknown key %s (known: current_context, theme, contexts.NAME.{servers, session_timeout, read_only, auth_file, tls, admin_port})", path, strings.Join(keys, ", "))
	}
	fc.Path = path
	if fc.CurrentContext != "" {
		if _, ok := fc.Contexts[fc.CurrentContext]; !ok {
			return nil, fmt.Errorf("config file %s: current_context %q is not a context (known: %s)", path, fc.CurrentContext, knownList(fc))
		}
	}
	return fc, nil
}

func knownList(fc *FileConfig) string {
	names := fc.ContextNames()
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// ConfigFilePath is the config file f selects, for [LoadConfigFile]:
// --config (explicit: it must exist), else [DefaultConfigPath] (it may be
// missing). getenv is os.Getenv outside tests.
func ConfigFilePath(f Flags, getenv func(string) string) (path string, explicit bool) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if f.ConfigFile != "" {
		return expandHome(f.ConfigFile, getenv), true
	}
	return expandHome(DefaultConfigPath(getenv), getenv), false
}

// ResolveConfig merges, in rising order of precedence: defaults, the config
// file's selected context, ZKSCOPE_* environment variables and flags.
// getenv is os.Getenv outside tests.
//
// Servers: --server > ZKSCOPE_SERVER > the context's servers > 127.0.0.1:2181.
// Context: --context > ZKSCOPE_CONTEXT > the file's current_context.
// Digest credentials: --auth-file > ZKSCOPE_AUTH > the context's auth_file.
func ResolveConfig(f Flags, getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	fc, err := LoadConfigFile(ConfigFilePath(f, getenv))
	if err != nil {
		return Config{}, err
	}

	name := f.Context
	if name == "" {
		name = getenv("ZKSCOPE_CONTEXT")
	}
	if name == "" {
		name = fc.CurrentContext
	}
	var ctx ContextConfig
	if name != "" {
		c, ok := fc.Contexts[name]
		if !ok {
			where := fc.Path
			if where == "" {
				path, _ := ConfigFilePath(f, getenv)
				where = path + " (missing)"
			}
			return Config{}, fmt.Errorf("unknown context %q in %s (known: %s)", name, where, knownList(fc))
		}
		ctx = c
	}

	cfg := Config{
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
		cfg.SessionTimeout = DefaultSessionTimeout
	}

	server := f.Server
	if server == "" {
		server = getenv("ZKSCOPE_SERVER")
	}
	if server == "" {
		server = ctx.Servers
	}
	if server == "" {
		server = DefaultServer
	}
	servers, chroot, err := ParseConnectString(server)
	if err != nil {
		return Config{}, fmt.Errorf("server list %q: %w", server, err)
	}
	cfg.Servers, cfg.Chroot = servers, chroot

	auth, err := resolveAuth(f, ctx, getenv)
	if err != nil {
		return Config{}, err
	}
	cfg.Auth = auth

	t, err := ResolveTLS(f, ctx, getenv)
	if err != nil {
		return Config{}, err
	}
	cfg.TLS = t
	return cfg, nil
}

// ResolveTLS merges the context's tls table and the --tls* flags (flags
// win); nil when neither asks for TLS. Redis servers (rediss://) take the
// same settings as ZooKeeper's.
func ResolveTLS(f Flags, ctx ContextConfig, getenv func(string) string) (*TLSConfig, error) {
	var t TLSConfig
	if ctx.TLS != nil {
		t = TLSConfig{
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
	if f.TLS || ctx.TLS != nil || t != (TLSConfig{}) {
		if (t.CertFile == "") != (t.KeyFile == "") {
			return nil, errors.New("TLS client certificate and key go together: give both --tls-cert and --tls-key (or cert and key in the context's tls table)")
		}
		return &t, nil
	}
	return nil, nil
}

// ResolveContext resolves the named context as `:ctx name` switches to it:
// like [ResolveConfig] with --context name, but neither --server nor
// ZKSCOPE_SERVER/ZKSCOPE_CONTEXT override the context's servers.
func ResolveContext(f Flags, name string, getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	f.Context, f.Server = name, ""
	return ResolveConfig(f, func(k string) string {
		if k == "ZKSCOPE_SERVER" || k == "ZKSCOPE_CONTEXT" {
			return ""
		}
		return getenv(k)
	})
}

// resolveAuth finds digest credentials: --auth-file, else ZKSCOPE_AUTH, else
// the context's auth_file.
func resolveAuth(f Flags, ctx ContextConfig, getenv func(string) string) ([]Auth, error) {
	switch {
	case f.AuthFile != "":
		return readAuthFile(expandHome(f.AuthFile, getenv))
	case getenv("ZKSCOPE_AUTH") != "":
		a, err := parseDigest(getenv("ZKSCOPE_AUTH"))
		if err != nil {
			return nil, fmt.Errorf("ZKSCOPE_AUTH: %w", err)
		}
		return []Auth{a}, nil
	case ctx.AuthFile != "":
		return readAuthFile(expandHome(ctx.AuthFile, getenv))
	}
	return nil, nil
}

// readAuthFile reads "user:password" from a file that only its owner may read.
func readAuthFile(path string) ([]Auth, error) {
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
		return []Auth{a}, nil
	}
	return nil, fmt.Errorf("auth file %s holds no user:password line", path)
}

// parseDigest accepts "user:password" or "digest:user:password".
func parseDigest(s string) (Auth, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "digest:"); ok && strings.Contains(rest, ":") {
		s = rest
	}
	user, pass, ok := strings.Cut(s, ":")
	if !ok || user == "" || pass == "" {
		return Auth{}, errors.New(`want "user:password"`)
	}
	return Auth{Scheme: "digest", Secret: []byte(s)}, nil
}

// expandHome replaces a leading "~/" with the home directory.
func expandHome(p string, getenv func(string) string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		return filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	return p
}

// ResolveContextSettings is the named context's settings as [ResolveConfig]
// chooses the context (--context, ZKSCOPE_CONTEXT, the file's
// current_context), and its credentials (--auth-file, ZKSCOPE_AUTH, the
// context's auth_file) as "user:password" ("" when none): for a backend
// other than ZooKeeper that shares contexts and credentials.
func ResolveContextSettings(f Flags, getenv func(string) string) (ContextConfig, string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	fc, err := LoadConfigFile(ConfigFilePath(f, getenv))
	if err != nil {
		return ContextConfig{}, "", err
	}
	name := cmp.Or(f.Context, getenv("ZKSCOPE_CONTEXT"), fc.CurrentContext)
	var ctx ContextConfig
	if name != "" {
		c, ok := fc.Contexts[name]
		if !ok {
			return ContextConfig{}, "", fmt.Errorf("unknown context %q (known: %s)", name, knownList(fc))
		}
		ctx = c
	}
	auth, err := resolveAuth(f, ctx, getenv)
	if err != nil || len(auth) == 0 {
		return ctx, "", err
	}
	return ctx, string(auth[0].Secret), nil
}
