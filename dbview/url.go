// Package dbview is everything that talks to databases holding locks:
// PostgreSQL advisory locks and MySQL/MariaDB GET_LOCK. It parses the
// servers' URLs, connects, reads the locks with the sessions behind them
// into driver-neutral rows (Snapshot), and holds or ends a lock's session.
// It is the sibling of zkview and redisview; it imports neither, nor
// lockops, ui, config or the commands.
package dbview

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The kinds of database server.
const (
	KindPostgres = "postgres"
	KindMySQL    = "mysql"
)

// Config is how to reach one database server.
type Config struct {
	Kind     string // KindPostgres or KindMySQL
	Host     string
	Port     int
	User     string
	Database string // PostgreSQL: the database connected to; MySQL: optional
	// SSLMode is PostgreSQL's sslmode (disable, allow, prefer, require,
	// verify-ca, verify-full; "" is libpq's default, prefer) or MySQL's
	// tls parameter (true, false, skip-verify, preferred).
	SSLMode string
	// TLS, when set (--tls-* flags or the context's tls table), replaces
	// the driver's own TLS settings.
	TLS *tls.Config
	// Password comes from the auth file or the environment, never from
	// the command line. URLPassword says the URL held one (refused in
	// --server by config).
	Password    string
	URLPassword bool
	DialTimeout time.Duration // default 5s
}

// Addr is host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// IsDBServer reports whether a --server value names a database server
// (postgres://, postgresql:// or mysql:// URL) rather than ZooKeeper or Redis.
func IsDBServer(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"postgres://", "postgresql://", "mysql://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// ParseURL parses postgres://user@host:port/db?sslmode=…,
// postgresql://… or mysql://user@host:port/[db]?tls=…. A password in the
// URL is kept (URLPassword set) for the caller to refuse or use.
func ParseURL(s string) (Config, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, ",") {
		return Config{}, fmt.Errorf("database server %q: one server only", redact(s))
	}
	u, err := url.Parse(s)
	if err != nil {
		return Config{}, fmt.Errorf("database server %q: %v", redact(s), errors.Unwrap(err))
	}
	var c Config
	switch strings.ToLower(u.Scheme) {
	case "postgres", "postgresql":
		c.Kind, c.Port = KindPostgres, 5432
	case "mysql":
		c.Kind, c.Port = KindMySQL, 3306
	default:
		return Config{}, fmt.Errorf("database server %q: scheme %q, want postgres://, postgresql:// or mysql://", redact(s), u.Scheme)
	}
	if c.Host = u.Hostname(); c.Host == "" {
		return Config{}, fmt.Errorf("database server %q: no host", redact(s))
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Config{}, fmt.Errorf("database server %q: port %q", redact(s), p)
		}
		c.Port = n
	}
	if u.User != nil {
		c.User = u.User.Username()
		c.Password, c.URLPassword = u.User.Password()
	}
	c.Database = strings.Trim(u.Path, "/")
	if strings.Contains(c.Database, "/") {
		return Config{}, fmt.Errorf("database server %q: database %q holds a /", redact(s), c.Database)
	}
	if err := c.params(u.Query()); err != nil {
		return Config{}, fmt.Errorf("database server %q: %w", redact(s), err)
	}
	return c, nil
}

// params takes the URL's query: sslmode for PostgreSQL, tls for MySQL;
// any other parameter is refused rather than ignored.
func (c *Config) params(q url.Values) error {
	want := map[string][]string{
		KindPostgres: {"sslmode", "disable", "allow", "prefer", "require", "verify-ca", "verify-full"},
		KindMySQL:    {"tls", "true", "false", "skip-verify", "preferred"},
	}[c.Kind]
	for k, vs := range q {
		if k != want[0] {
			return fmt.Errorf("parameter %q not understood (only %s)", k, want[0])
		}
		v := vs[len(vs)-1]
		ok := false
		for _, w := range want[1:] {
			ok = ok || v == w
		}
		if !ok {
			return fmt.Errorf("%s=%q, want one of %s", k, v, strings.Join(want[1:], ", "))
		}
		c.SSLMode = v
	}
	return nil
}

// String is the server as a URL without its password.
func (c Config) String() string {
	u := url.URL{Scheme: c.Kind, Host: c.Addr(), Path: "/" + c.Database}
	if c.User != "" {
		u.User = url.User(c.User)
	}
	return u.String()
}

// redact is s with a URL's password replaced, for error messages.
func redact(s string) string {
	at := strings.LastIndexByte(s, '@')
	scheme := strings.Index(s, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return s
	}
	user := s[scheme+3 : at]
	if i := strings.IndexByte(user, ':'); i >= 0 {
		user = user[:i] + ":xxxxx"
	}
	return s[:scheme+3] + user + s[at:]
}
