// Package config owns zkscope's configuration: the command line's
// connection flags, the config file (config.toml) and its named contexts,
// and what they resolve to: the ZooKeeper servers (a [zkview.Config]) or
// the Redis servers (a [redisview.Config]) a command talks to, as one
// [Target]. Every backend reads its settings here; zkview and redisview
// import nothing of it.
package config

import (
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

// Flags are the connection settings a user can give on the command line.
// Secrets never come from argv: AuthFile names a file, and the environment
// variable ZKSCOPE_AUTH holds "user:password" (a "digest:" prefix is accepted).
type Flags struct {
	Server        string // --server (connect string, may end in /chroot)
	Context       string // --context (else ZKSCOPE_CONTEXT, else the file's current_context)
	ConfigFile    string // --config (default $XDG_CONFIG_HOME/zkscope/config.toml)
	AuthFile      string // --auth-file: a file holding "user:password" (digest)
	TLSCA         string // --tls-ca
	TLSCert       string // --tls-cert
	TLSKey        string // --tls-key
	TLSServerName string // --tls-server-name
	TLS           bool   // --tls
	// SASL: --sasl-mechanism, --sasl-user, --sasl-password-file (else env
	// ZKSCOPE_SASL_PASSWORD), --sasl-service, --principal, --keytab.
	SASLMechanism    string
	SASLUser         string
	SASLPasswordFile string
	SASLService      string
	Principal        string
	Keytab           string
	ReadOnly         bool // --read-only
	SessionTimeout   time.Duration
	// ConnectTimeout is --connect-timeout: give up connecting after this
	// long (0: the session timeout; Redis: 5s).
	ConnectTimeout time.Duration
}

// File is the parsed config file (config.toml):
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
//	sasl = { mechanism = "DIGEST-MD5", user = "zkscope", password_file = "~/.zk-sasl-password" }
//	admin_port = 8080
type File struct {
	// Path is the file this was read from ("" when there is no file).
	Path           string             `toml:"-"`
	CurrentContext string             `toml:"current_context"`
	Theme          string             `toml:"theme"`
	Contexts       map[string]Context `toml:"contexts"`
}

// Context is one named context of the config file.
type Context struct {
	Servers        string        `toml:"servers"`
	SessionTimeout time.Duration `toml:"session_timeout"`
	ReadOnly       bool          `toml:"read_only"`
	// DefaultRecipe is the lock library ("curator", "kazoo" or "go-zk")
	// zkscope takes a lock in when the lock has no contenders and the
	// locks next to it do not tell.
	DefaultRecipe string `toml:"default_recipe"`
	AuthFile      string `toml:"auth_file"`
	TLS           *TLS   `toml:"tls"`
	SASL          *SASL  `toml:"sasl"`
	AdminPort     int    `toml:"admin_port"`
}

// SASL is a context's sasl table: the same settings as the --sasl-*,
// --principal and --keytab flags (flags win).
//
//	[contexts.kafka.sasl]
//	mechanism = "GSSAPI"
//	principal = "zkscope@EXAMPLE.COM"
//	keytab = "~/zkscope.keytab"
type SASL struct {
	Mechanism    string `toml:"mechanism"`
	User         string `toml:"user"`
	PasswordFile string `toml:"password_file"`
	Service      string `toml:"service"`
	Principal    string `toml:"principal"`
	Keytab       string `toml:"keytab"`
}

// TLS is a context's TLS table.
type TLS struct {
	CA         string `toml:"ca"`
	Cert       string `toml:"cert"`
	Key        string `toml:"key"`
	ServerName string `toml:"server_name"`
	Insecure   bool   `toml:"insecure"`
}

// ContextNames lists the file's contexts, sorted (for `:ctx name` completion).
func (f *File) ContextNames() []string {
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

// DefaultPath is $XDG_CONFIG_HOME/zkscope/config.toml, or
// ~/.config/zkscope/config.toml when XDG_CONFIG_HOME is unset.
func DefaultPath(getenv func(string) string) string {
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

// LoadFile reads and checks a config file. When explicit is false a
// missing file is not an error (an empty File is returned).
func LoadFile(path string, explicit bool) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return &File{}, nil
		}
		return nil, fmt.Errorf("read config file: %w", err)
	}
	fc := &File{}
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

func knownList(fc *File) string {
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
	return expandHome(DefaultPath(getenv), getenv), false
}

// FilePath is the config file f selects, for [LoadFile]: --config
// (explicit: it must exist), else [DefaultPath] (it may be missing).
// getenv is os.Getenv outside tests.
func FilePath(f Flags, getenv func(string) string) (path string, explicit bool) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if f.ConfigFile != "" {
		return expandHome(f.ConfigFile, getenv), true
	}
	return expandHome(DefaultPath(getenv), getenv), false
}

// ContextName is the context in use: --context, else ZKSCOPE_CONTEXT,
// else fc's current_context ("" when none).
func ContextName(f Flags, fc *File, getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case f.Context != "":
		return f.Context
	case getenv("ZKSCOPE_CONTEXT") != "":
		return getenv("ZKSCOPE_CONTEXT")
	case fc != nil:
		return fc.CurrentContext
	}
	return ""
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
