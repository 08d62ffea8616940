package sasl

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/jcmturner/gokrb5/v8/client"
	krbconfig "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/spnego"
	"github.com/jcmturner/gokrb5/v8/types"
)

// kerberos is a GSSAPI authenticator's Kerberos client: logged in once
// (from the keytab, or the credential cache's ticket-granting ticket), its
// service tickets reused until they expire.
type kerberos struct {
	cfg      Config
	name     string // the client principal, user@REALM
	fromKT   bool   // logged in from a keytab (renewable at will)
	mu       sync.Mutex
	cl       *client.Client
	loggedIn bool
}

// newKerberos reads krb5.conf and the keytab or credential cache.
func newKerberos(cfg Config) (*kerberos, error) {
	confPath := cfg.Krb5Conf
	if confPath == "" {
		confPath = os.Getenv("KRB5_CONFIG")
	}
	if confPath == "" {
		confPath = "/etc/krb5.conf"
	}
	conf, err := krbconfig.Load(confPath)
	if err != nil {
		return nil, fmt.Errorf("SASL GSSAPI: read krb5.conf %s (KRB5_CONFIG names another): %w", confPath, err)
	}
	k := &kerberos{cfg: cfg}
	if cfg.Keytab != "" {
		if cfg.Principal == "" {
			return nil, errors.New("SASL GSSAPI with a keytab needs the principal it holds: give --principal (or the context's sasl.principal)")
		}
		kt, err := keytab.Load(cfg.Keytab)
		if err != nil {
			return nil, fmt.Errorf("SASL GSSAPI: read keytab %s: %w", cfg.Keytab, err)
		}
		user, realm, _ := strings.Cut(cfg.Principal, "@")
		if realm == "" {
			realm = conf.LibDefaults.DefaultRealm
		}
		k.name, k.fromKT = user+"@"+realm, true
		k.cl = client.NewWithKeytab(user, realm, kt, conf, client.DisablePAFXFAST(true))
		return k, nil
	}
	path := ccachePath(cfg.CCache)
	cc, err := credentials.LoadCCache(path)
	if err != nil {
		return nil, fmt.Errorf("SASL GSSAPI: no keytab (--keytab) and no credential cache at %s (run kinit, or set KRB5CCNAME): %w", path, err)
	}
	k.name = strings.Join(cc.DefaultPrincipal.PrincipalName.NameString, "/") + "@" + cc.DefaultPrincipal.Realm
	if cfg.Principal != "" && !samePrincipal(cfg.Principal, k.name, conf.LibDefaults.DefaultRealm) {
		return nil, fmt.Errorf("SASL GSSAPI: the credential cache %s holds %s, not --principal %s (run kinit %s, or give --keytab)", path, k.name, cfg.Principal, cfg.Principal)
	}
	k.cl, err = client.NewFromCCache(cc, conf, client.DisablePAFXFAST(true))
	if err != nil {
		return nil, fmt.Errorf("SASL GSSAPI: credential cache %s: %w (run kinit)", path, err)
	}
	return k, nil
}

// ccachePath is the credential cache: explicit, KRB5CCNAME (FILE: only),
// or /tmp/krb5cc_<uid>.
func ccachePath(explicit string) string {
	p := explicit
	if p == "" {
		p = os.Getenv("KRB5CCNAME")
	}
	if p == "" {
		return fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
	}
	return strings.TrimPrefix(p, "FILE:")
}

func samePrincipal(given, held, defaultRealm string) bool {
	if !strings.Contains(given, "@") {
		given += "@" + defaultRealm
	}
	return given == held
}

func (k *kerberos) principal() string { return k.name }

func (k *kerberos) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.cl.Destroy()
}

// ticket logs in when needed and gets a service ticket for spn.
func (k *kerberos) ticket(spn string) (spnego.KRB5Token, types.EncryptionKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fromKT && !k.loggedIn {
		if err := k.cl.Login(); err != nil {
			return spnego.KRB5Token{}, types.EncryptionKey{}, fmt.Errorf("Kerberos login as %s with keytab %s failed: %w", k.name, k.cfg.Keytab, err)
		}
		k.loggedIn = true
	}
	tkt, key, err := k.cl.GetServiceTicket(spn)
	if err != nil && k.fromKT {
		// The ticket-granting ticket may have expired: log in again, once.
		if lerr := k.cl.Login(); lerr == nil {
			tkt, key, err = k.cl.GetServiceTicket(spn)
		}
	}
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "expired") || strings.Contains(msg, "EXPIRED") || strings.Contains(msg, "no valid existing session") {
			return spnego.KRB5Token{}, key, fmt.Errorf("the Kerberos ticket of %s has expired (run kinit again, or give --keytab): %w", k.name, err)
		}
		return spnego.KRB5Token{}, key, fmt.Errorf("get a Kerberos service ticket for %s as %s: %w", spn, k.name, err)
	}
	tok, err := spnego.NewKRB5TokenAPREQ(k.cl, tkt, key, []int{gssapi.ContextFlagInteg, gssapi.ContextFlagConf}, nil)
	if err != nil {
		return tok, key, fmt.Errorf("build the Kerberos AP-REQ for %s: %w", spn, err)
	}
	return tok, key, nil
}

// exchange starts GSSAPI with the server at host (service principal
// service/host, or service/ServiceHost).
func (k *kerberos) exchange(host string) (Mechanism, error) {
	if k.cfg.ServiceHost != "" {
		host = k.cfg.ServiceHost
	}
	spn := k.cfg.Service + "/" + strings.ToLower(host)
	tok, key, err := k.ticket(spn)
	if err != nil {
		return nil, err
	}
	return &gssExchange{apreq: tok, key: key, spn: spn}, nil
}

// gssExchange is RFC 4752's client: the AP-REQ (no mutual
// authentication), then the server's security-layer offer unwrapped and
// answered with "no security layer".
type gssExchange struct {
	apreq spnego.KRB5Token
	key   types.EncryptionKey
	spn   string
	done  bool
}

func (g *gssExchange) Start() ([]byte, error) {
	b, err := g.apreq.Marshal()
	if err != nil {
		return nil, fmt.Errorf("encode the Kerberos AP-REQ: %w", err)
	}
	return b, nil
}

// Step answers the server: an AP-REP (a server that authenticated itself
// anyway) with an empty token, the wrapped security-layer offer with the
// wrapped choice of none.
func (g *gssExchange) Step(challenge []byte) ([]byte, bool, error) {
	if g.done {
		return nil, true, errors.New("GSSAPI: the server sent a token after the exchange was complete")
	}
	if len(challenge) > 0 && challenge[0] == 0x60 { // a GSS-API initial context token: the AP-REP
		return []byte{}, false, nil
	}
	var offer gssapi.WrapToken
	if err := offer.Unmarshal(challenge, true); err != nil {
		return nil, true, fmt.Errorf("GSSAPI: the server's security-layer offer: %w", err)
	}
	if ok, err := offer.Verify(g.key, keyusage.GSSAPI_ACCEPTOR_SEAL); !ok {
		return nil, true, fmt.Errorf("GSSAPI: the server's security-layer offer does not verify with the session key of %s: %w", g.spn, err)
	}
	if len(offer.Payload) != 4 || offer.Payload[0]&1 == 0 {
		return nil, true, fmt.Errorf("GSSAPI: the server offers no authentication-only layer (offer %x)", offer.Payload)
	}
	answer, err := gssapi.NewInitiatorWrapToken([]byte{1, 0, 0, 0}, g.key)
	if err != nil {
		return nil, true, fmt.Errorf("GSSAPI: wrap the answer: %w", err)
	}
	b, err := answer.Marshal()
	g.done = true
	return b, true, err
}
