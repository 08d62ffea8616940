package config

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/zkscope/zkscope/dbview"
)

// DB is what a command against a database server (PostgreSQL, MySQL)
// needs: the server and credentials, the context's name (for the audit
// log) and whether changes are refused.
type DB struct {
	Config   dbview.Config
	Context  string
	ReadOnly bool // --read-only or the context's read_only
}

// IsDB reports whether the server is a database's.
func (t Target) IsDB() bool { return t.DB != nil }

// ResolveDB is the database server of the --server value (else
// ZKSCOPE_SERVER, else the context's servers) with the credentials; ok is
// false when the server is not a postgres://, postgresql:// or mysql://
// URL. The password comes from --auth-file, ZKSCOPE_AUTH or the context's
// auth_file ("user:password"), never from --server; TLS from --tls-* and
// the context's tls table.
func ResolveDB(f Flags, getenv func(string) string) (d DB, ok bool, err error) {
	ctx, auth, err := contextSettings(f, getenv)
	server := cmp.Or(strings.TrimSpace(f.Server), getenv("ZKSCOPE_SERVER"))
	if server == "" && err == nil {
		server = ctx.Servers
	}
	if !dbview.IsDBServer(server) {
		return d, false, nil
	}
	if err != nil {
		return d, true, err
	}
	cfg, err := dbview.ParseURL(server)
	if err != nil {
		return d, true, err
	}
	if f.Server != "" && cfg.URLPassword {
		return d, true, fmt.Errorf("--server holds a password, which other users can read in the process list: put user:password in --auth-file (or ZKSCOPE_AUTH, or the context)")
	}
	if auth != "" {
		user, pass, _ := strings.Cut(auth, ":")
		if cfg.User != "" && cfg.User != user {
			return d, true, fmt.Errorf("the server URL names user %q, the credentials user %q: give one user", cfg.User, user)
		}
		cfg.User, cfg.Password = user, pass
	}
	cfg.DialTimeout = cmp.Or(f.ConnectTimeout, redisDialTimeout)
	t, err := ResolveTLS(f, ctx, getenv)
	if err != nil {
		return d, true, err
	}
	if t != nil {
		if cfg.SSLMode == "disable" || cfg.SSLMode == "false" {
			return d, true, fmt.Errorf("TLS settings (--tls* or the context's tls table) given, but the server URL turns TLS off (%s)", cfg.SSLMode)
		}
		if cfg.TLS, err = t.ClientConfig(); err != nil {
			return d, true, err
		}
	}
	return DB{Config: cfg, Context: redisContextName(f, getenv), ReadOnly: f.ReadOnly || ctx.ReadOnly}, true, nil
}
