// Package redisview is everything that talks to Redis: the servers' URLs,
// connections, and reading lock keys (SCAN, then pipelined TYPE, PTTL, GET,
// HGETALL and the Redisson fair lock's queue and timeouts) into plain
// values. It is the Redis sibling of zkview; it imports neither zkview nor
// lockops nor ui.
package redisview

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Endpoint is one Redis server as a URL names it:
// redis://[user:pass@]host:port[/db], rediss:// for TLS.
type Endpoint struct {
	Addr     string // host:port
	DB       int
	TLS      bool
	Username string // from the URL (a context's server); "" when none
	Password string
}

// IsRedisServer reports whether a --server value names Redis servers
// (redis:// or rediss:// URLs) rather than a ZooKeeper connect string.
func IsRedisServer(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "redis://") || strings.HasPrefix(s, "rediss://")
}

// ParseServers parses a comma-separated list of redis:// or rediss://
// URLs: one server, or the masters of a Redlock.
func ParseServers(s string) ([]Endpoint, error) {
	var out []Endpoint
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		e, err := parseURL(part)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, errors.New("no Redis server given: want redis://host:port[/db][,redis://…]")
	}
	return out, nil
}

func parseURL(s string) (Endpoint, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Endpoint{}, fmt.Errorf("Redis server %q: %w", redact(s), err)
	}
	var e Endpoint
	switch strings.ToLower(u.Scheme) {
	case "redis":
	case "rediss":
		e.TLS = true
	default:
		return Endpoint{}, fmt.Errorf("Redis server %q: scheme %q, want redis:// or rediss://", redact(s), u.Scheme)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		return Endpoint{}, fmt.Errorf("Redis server %q: no host", redact(s))
	}
	if port == "" {
		port = "6379"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return Endpoint{}, fmt.Errorf("Redis server %q: port %q", redact(s), port)
	}
	e.Addr = net.JoinHostPort(host, port)
	if db := strings.Trim(u.Path, "/"); db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 {
			return Endpoint{}, fmt.Errorf("Redis server %q: database %q is not a number", redact(s), db)
		}
		e.DB = n
	}
	if u.User != nil {
		e.Username = u.User.Username()
		e.Password, _ = u.User.Password()
	}
	return e, nil
}

// HasCredentials reports whether any of es carries a user or password in
// its URL.
func HasCredentials(es []Endpoint) bool {
	for _, e := range es {
		if e.Username != "" || e.Password != "" {
			return true
		}
	}
	return false
}

// redact is s with the URL's password replaced, for error messages.
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
