package zkview

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/go-zookeeper/zk"
)

// tlsDialer builds a go-zookeeper dialer that speaks TLS.
func tlsDialer(t *TLSConfig) (zk.Dialer, error) {
	conf, err := t.ClientConfig()
	if err != nil {
		return nil, err
	}
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		cc := conf.Clone()
		if cc.ServerName == "" {
			host, _, _ := net.SplitHostPort(address)
			cc.ServerName = host
		}
		d := &net.Dialer{Timeout: timeout}
		return tls.DialWithDialer(d, network, address, cc)
	}, nil
}

// addAuth sends one credential, bounded by ctx (go-zookeeper's AddAuth has
// no timeout of its own).
func (c *Client) addAuth(ctx context.Context, conn *zk.Conn, a Auth) error {
	done := make(chan error, 1)
	go func() { done <- conn.AddAuth(a.Scheme, a.Secret) }()
	select {
	case err := <-done:
		switch {
		case errors.Is(err, zk.ErrAuthFailed):
			c.publish(ConnEvent{State: StateAuthFailed, Server: conn.Server(), SessionID: conn.SessionID(), Time: time.Now(), Err: err})
			return fmt.Errorf("the server refused the %s credentials (authentication failed; for digest give user:password)", a.Scheme)
		case err != nil:
			return fmt.Errorf("add %s credentials: %w", a.Scheme, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("add %s credentials: %w", a.Scheme, ctx.Err())
	}
}

// ClientConfig is the TLS client configuration t describes: its CA bundle
// (else the system's roots), its client certificate, the name to verify
// (empty: the caller sets each server's host).
func (t *TLSConfig) ClientConfig() (*tls.Config, error) {
	conf := &tls.Config{ServerName: t.ServerName, InsecureSkipVerify: t.Insecure, MinVersion: tls.VersionTLS12}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA file %s holds no PEM certificate", t.CAFile)
		}
		conf.RootCAs = pool
	}
	if t.CertFile != "" || t.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load TLS client certificate: %w", err)
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	return conf, nil
}
