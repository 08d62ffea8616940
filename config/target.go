package config

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/zkview"
)

// Target is the servers a command talks to, resolved once from the flags,
// the environment and the config file: ZooKeeper's, or Redis's when the
// server list names redis:// or rediss:// URLs, or a database's when it
// names a postgres:// or mysql:// URL. Commands switch on it.
type Target struct {
	// Redis is set when the servers are Redis's.
	Redis *Redis
	// DB is set when the server is a database's (postgres://, mysql://).
	DB *DB
	// ZooKeeper is the connection to make when they are ZooKeeper's.
	ZooKeeper zkview.Config
	// Err is why the settings could not be resolved (a bad server list,
	// context or credentials file): input, refused before connecting.
	Err error
}

// IsRedis reports whether the servers are Redis's.
func (t Target) IsRedis() bool { return t.Redis != nil }

// Redis is what a command against Redis servers needs: the servers and
// credentials, the context's name (for the audit log) and whether changes
// are refused.
type Redis struct {
	Config   redisview.Config
	Context  string
	ReadOnly bool // --read-only or the context's read_only
}

// redisDialTimeout bounds connecting to a Redis server when
// --connect-timeout does not.
const redisDialTimeout = 5 * time.Second

// Resolve is the target f, the environment (getenv, os.Getenv outside
// tests) and the config file name.
func Resolve(f Flags, getenv func(string) string) Target {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d, ok, err := ResolveDB(f, getenv); ok {
		return Target{DB: &d, Err: err}
	}
	if r, ok, err := ResolveRedis(f, getenv); ok {
		return Target{Redis: &r, Err: err}
	}
	cfg, err := ResolveZooKeeper(f, getenv)
	return Target{ZooKeeper: cfg, Err: err}
}

// ResolveRedis is the Redis servers of the --server value (else
// ZKSCOPE_SERVER, else the context's servers) with the credentials; ok is
// false when the servers are ZooKeeper's. TLS (rediss://) takes --tls-ca,
// --tls-cert, --tls-key, --tls-server-name and the context's tls table,
// as ZooKeeper does.
func ResolveRedis(f Flags, getenv func(string) string) (r Redis, ok bool, err error) {
	ctx, auth, err := contextSettings(f, getenv)
	server := cmp.Or(strings.TrimSpace(f.Server), getenv("ZKSCOPE_SERVER"))
	if server == "" && err == nil {
		server = ctx.Servers
	}
	if !redisview.IsRedisServer(server) {
		return r, false, nil
	}
	if err != nil {
		return r, true, err
	}
	eps, err := redisview.ParseServers(server)
	if err != nil {
		return r, true, err
	}
	if f.Server != "" && redisview.HasCredentials(eps) {
		return r, true, fmt.Errorf("--server holds credentials, which other users can read in the process list: put user:password in --auth-file (or ZKSCOPE_AUTH, or the context)")
	}
	cfg := redisview.Config{Servers: eps, DialTimeout: cmp.Or(f.ConnectTimeout, redisDialTimeout)}
	if auth != "" {
		cfg.Username, cfg.Password, _ = strings.Cut(auth, ":")
		if cfg.Username == "default" {
			cfg.Username = ""
		}
	}
	if cfg.TLS, err = redisTLS(f, eps, ctx, getenv); err != nil {
		return r, true, err
	}
	return Redis{Config: cfg, Context: redisContextName(f, getenv), ReadOnly: f.ReadOnly || ctx.ReadOnly}, true, nil
}

// redisTLS is the TLS configuration of rediss:// servers from the same
// flags and context table as ZooKeeper's; TLS settings given for plain
// redis:// servers are refused rather than ignored.
func redisTLS(f Flags, eps []redisview.Endpoint, ctx Context, getenv func(string) string) (*tls.Config, error) {
	t, err := ResolveTLS(f, ctx, getenv)
	if err != nil || t == nil {
		return nil, err
	}
	for _, e := range eps {
		if !e.TLS {
			return nil, fmt.Errorf("TLS settings (--tls* or the context's tls table) given, but redis://%s is plain: write rediss://%s", e.Addr, e.Addr)
		}
	}
	return t.ClientConfig()
}

// redisContextName is the context in use (--context, ZKSCOPE_CONTEXT, the
// config file's current_context), "" when none, for the audit log.
func redisContextName(f Flags, getenv func(string) string) string {
	if name := cmp.Or(f.Context, getenv("ZKSCOPE_CONTEXT")); name != "" {
		return name
	}
	if fc, err := LoadFile(FilePath(f, getenv)); err == nil {
		return fc.CurrentContext
	}
	return ""
}
