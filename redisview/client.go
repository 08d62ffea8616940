package redisview

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config is how to reach the servers: one, or the masters of a Redlock.
type Config struct {
	Servers []Endpoint
	// Username and Password, when set (from --auth-file or the context),
	// apply to every server; otherwise each URL's own are used.
	Username, Password string
	// TLS is the TLS configuration for rediss:// servers (nil: the
	// system's roots, each server's host verified).
	TLS         *tls.Config
	DialTimeout time.Duration // default 5s
}

// Client reads from every configured server. It connects lazily: an
// unreachable master shows up as that master's read error, so a Redlock
// with one master down still reads from the others.
type Client struct {
	eps     []Endpoint
	clients []*redis.Client
}

// Open prepares a client for cfg's servers (no I/O yet).
func Open(cfg Config) (*Client, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("no Redis server given")
	}
	timeout := cfg.DialTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	c := &Client{eps: cfg.Servers}
	for _, e := range cfg.Servers {
		o := &redis.Options{
			Addr: e.Addr, DB: e.DB, Username: e.Username, Password: e.Password,
			DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout,
			MaxRetries: 1, PoolSize: 3, DisableIdentity: true,
			ContextTimeoutEnabled: true, // a lock's requests are bounded by their context
			DialerRetries:         1,    // a server that refuses fails now, not after 5 dials
		}
		if cfg.Username != "" || cfg.Password != "" {
			o.Username, o.Password = cfg.Username, cfg.Password
		}
		if e.TLS {
			t := &tls.Config{MinVersion: tls.VersionTLS12}
			if cfg.TLS != nil {
				t = cfg.TLS.Clone()
			}
			if t.ServerName == "" {
				t.ServerName = e.Addr[:strings.LastIndexByte(e.Addr, ':')]
			}
			o.TLSConfig = t
		}
		base := redis.NewDialer(o)
		o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := base(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return watchPeer(conn, addr, func(ctx context.Context, addr string) (net.Conn, error) {
				return base(ctx, network, addr)
			}), nil // not Redis: named (peer.go)
		}
		c.clients = append(c.clients, redis.NewClient(o))
	}
	return c, nil
}

// Servers are the servers' host:port, in the order given.
func (c *Client) Servers() []string {
	out := make([]string, len(c.eps))
	for i, e := range c.eps {
		out[i] = e.Addr
	}
	return out
}

// Close closes every connection.
func (c *Client) Close() error {
	var errs []error
	for _, r := range c.clients {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// ReadLocks reads, from every server at once, the keys matching pattern
// (SCAN MATCH, never KEYS) with their type, remaining time and value, and
// each Redisson lock's fair-lock queue and deadlines. One Read per server,
// in the order given; a server that fails has its Err set.
func (c *Client) ReadLocks(ctx context.Context, pattern string) []Read {
	out := make([]Read, len(c.clients))
	var wg sync.WaitGroup
	for i, r := range c.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys, err := readLocks(ctx, r, pattern)
			out[i] = Read{Addr: c.eps[i].Addr, Keys: keys, At: time.Now(), Err: err}
			if err != nil {
				out[i].Err = fmt.Errorf("read %s from %s: %w", pattern, c.eps[i].Addr, err)
			}
		}()
	}
	wg.Wait()
	return out
}
