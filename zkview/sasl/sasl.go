// Package sasl is the client side of the SASL mechanisms ZooKeeper servers
// accept: DIGEST-MD5 (RFC 2831, a JAAS DigestLoginModule's users) and
// GSSAPI (RFC 4752, Kerberos through gokrb5). It makes the tokens of one
// exchange; zkview/wire carries them (OpCode.sasl) and zkview runs the
// exchange on every connection it opens.
//
// It imports nothing of zkscope.
package sasl

import (
	"errors"
	"fmt"
	"strings"
)

// The mechanisms' names as the servers and the flags spell them.
const (
	DigestMD5 = "DIGEST-MD5"
	GSSAPI    = "GSSAPI"
)

// DefaultService is the service name the servers use: the protocol of
// DIGEST-MD5's digest-uri and the first part of the Kerberos service
// principal (zookeeper/<host>).
const DefaultService = "zookeeper"

// digestServerName is DIGEST-MD5's server name, fixed between ZooKeeper's
// client and server (the digest-uri is zookeeper/zk-sasl-md5).
const digestServerName = "zk-sasl-md5"

// Config says how to authenticate.
type Config struct {
	Mechanism string // DigestMD5 or GSSAPI
	Service   string // DefaultService when empty

	// DIGEST-MD5: the JAAS user and its password.
	User     string
	Password string

	// GSSAPI: the client principal (user or user/host, @REALM optional:
	// the default realm), a keytab, or else the credential cache (KRB5CCNAME
	// or /tmp/krb5cc_<uid>); krb5.conf (KRB5_CONFIG or /etc/krb5.conf when
	// empty). ServiceHost, when set, replaces each server's host in the
	// service principal.
	Principal   string
	Keytab      string
	CCache      string
	Krb5Conf    string
	ServiceHost string
}

// Mechanism is one exchange's client side: Start makes the first token
// (empty when the mechanism has no initial response); Step answers each
// server token. done says the exchange is complete on the client's side:
// resp, when not nil, is still sent and the server's last answer read.
type Mechanism interface {
	Start() ([]byte, error)
	Step(challenge []byte) (resp []byte, done bool, err error)
}

// Authenticator makes a [Mechanism] for each connection. A GSSAPI
// authenticator logs in to the KDC once and reuses its tickets.
type Authenticator struct {
	cfg Config
	krb *kerberos // GSSAPI only
}

// New checks cfg and, for GSSAPI, reads krb5.conf and the keytab or
// credential cache (the KDC is asked on the first exchange).
func New(cfg Config) (*Authenticator, error) {
	if cfg.Service == "" {
		cfg.Service = DefaultService
	}
	cfg.Mechanism = strings.ToUpper(cfg.Mechanism)
	a := &Authenticator{cfg: cfg}
	switch cfg.Mechanism {
	case DigestMD5:
		if cfg.User == "" {
			return nil, errors.New("SASL DIGEST-MD5 needs a user: give --sasl-user (or the context's sasl.user)")
		}
		if cfg.Password == "" {
			return nil, errors.New("SASL DIGEST-MD5 needs a password: give --sasl-password-file (or ZKSCOPE_SASL_PASSWORD, or the context's sasl.password_file)")
		}
	case GSSAPI:
		k, err := newKerberos(cfg)
		if err != nil {
			return nil, err
		}
		a.krb = k
	default:
		return nil, fmt.Errorf("unknown SASL mechanism %q: --sasl-mechanism takes DIGEST-MD5 or GSSAPI", cfg.Mechanism)
	}
	return a, nil
}

// Mechanism is the mechanism's name (DIGEST-MD5 or GSSAPI).
func (a *Authenticator) Mechanism() string { return a.cfg.Mechanism }

// Principal is who authenticates: the DIGEST-MD5 user or the Kerberos
// principal.
func (a *Authenticator) Principal() string {
	if a.krb != nil {
		return a.krb.principal()
	}
	return a.cfg.User
}

// Exchange starts one exchange with the server at host.
func (a *Authenticator) Exchange(host string) (Mechanism, error) {
	if a.krb != nil {
		return a.krb.exchange(host)
	}
	return &digestMD5{user: a.cfg.User, password: a.cfg.Password, uri: a.cfg.Service + "/" + digestServerName}, nil
}

// Close ends the Kerberos client's sessions, if any.
func (a *Authenticator) Close() {
	if a.krb != nil {
		a.krb.close()
	}
}
