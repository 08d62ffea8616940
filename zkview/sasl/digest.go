package sasl

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// digestMD5 is RFC 2831's client: an empty first token, the digest-response
// to the server's challenge, then the server's rspauth checked.
type digestMD5 struct {
	user, password, uri string

	step   int
	expect string // the rspauth the server must send
}

func (d *digestMD5) Start() ([]byte, error) { return []byte{}, nil }

func (d *digestMD5) Step(challenge []byte) ([]byte, bool, error) {
	d.step++
	switch d.step {
	case 1:
		resp, err := d.respond(challenge)
		return resp, false, err
	case 2:
		got, ok := parseDirectives(string(challenge))["rspauth"]
		if !ok {
			return nil, true, fmt.Errorf("DIGEST-MD5: the server's last answer has no rspauth (%q)", truncate(challenge))
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(d.expect)) != 1 {
			return nil, true, errors.New("DIGEST-MD5: the server's rspauth does not prove it knows the password")
		}
		return nil, true, nil
	}
	return nil, true, errors.New("DIGEST-MD5: the server sent a token after the exchange was complete")
}

// respond answers the server's digest-challenge.
func (d *digestMD5) respond(challenge []byte) ([]byte, error) {
	ch := parseDirectives(string(challenge))
	nonce := ch["nonce"]
	if nonce == "" {
		return nil, fmt.Errorf("DIGEST-MD5: the server's challenge has no nonce (%q)", truncate(challenge))
	}
	if qops := ch["qop"]; qops != "" && !hasToken(qops, "auth") {
		return nil, fmt.Errorf("DIGEST-MD5: the server offers no qop zkscope speaks (qop=%q; zkscope uses auth)", qops)
	}
	utf8On := strings.EqualFold(ch["charset"], "utf-8")
	realm := ch["realm"]
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	cnonce := base64.RawStdEncoding.EncodeToString(raw[:])
	const nc = "00000001"
	ha1 := digestHA1(latin1(d.user, utf8On), latin1(realm, utf8On), latin1(d.password, utf8On), nonce, cnonce)
	resp := digestKD(ha1, nonce, nc, cnonce, "AUTHENTICATE:"+d.uri)
	d.expect = digestKD(ha1, nonce, nc, cnonce, ":"+d.uri)

	var b strings.Builder
	if utf8On {
		b.WriteString("charset=utf-8,")
	}
	fmt.Fprintf(&b, "username=%s,", quote(d.user))
	if realm != "" {
		fmt.Fprintf(&b, "realm=%s,", quote(realm))
	}
	fmt.Fprintf(&b, "nonce=%s,nc=%s,cnonce=%s,digest-uri=%s,maxbuf=65536,response=%s,qop=auth",
		quote(nonce), nc, quote(cnonce), quote(d.uri), resp)
	return []byte(b.String()), nil
}

// digestHA1 is HEX(H(A1)) for A1 = H(user:realm:password):nonce:cnonce.
func digestHA1(user, realm, password []byte, nonce, cnonce string) string {
	secret := md5.New()
	secret.Write(user)
	secret.Write([]byte{':'})
	secret.Write(realm)
	secret.Write([]byte{':'})
	secret.Write(password)
	a1 := append(secret.Sum(nil), ":"+nonce+":"+cnonce...)
	sum := md5.Sum(a1)
	return hex.EncodeToString(sum[:])
}

// digestKD is the response value: HEX(KD(HA1, nonce:nc:cnonce:qop:HEX(H(A2)))).
func digestKD(ha1, nonce, nc, cnonce, a2 string) string {
	h2 := md5.Sum([]byte(a2))
	sum := md5.Sum([]byte(ha1 + ":" + nonce + ":" + nc + ":" + cnonce + ":auth:" + hex.EncodeToString(h2[:])))
	return hex.EncodeToString(sum[:])
}

// latin1 is s as RFC 2831 hashes it: ISO 8859-1 when every character fits
// (always without charset=utf-8), else UTF-8.
func latin1(s string, utf8On bool) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff || r == utf8.RuneError {
			if utf8On {
				return []byte(s)
			}
			r = '?'
		}
		out = append(out, byte(r))
	}
	return out
}

// parseDirectives reads a digest-challenge's comma-separated key=value
// pairs (values quoted or not, backslash escapes in quotes); of repeated
// keys the first is kept.
func parseDirectives(s string) map[string]string {
	out := map[string]string{}
	for s != "" {
		s = strings.TrimLeft(s, " \t,")
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			break
		}
		key := strings.ToLower(strings.TrimSpace(s[:eq]))
		s = strings.TrimLeft(s[eq+1:], " \t")
		var val string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
			val, s = b.String(), s[min(i+1, len(s)):]
		} else {
			end := strings.IndexByte(s, ',')
			if end < 0 {
				end = len(s)
			}
			val, s = strings.TrimSpace(s[:end]), s[end:]
		}
		if _, seen := out[key]; !seen {
			out[key] = val
		}
	}
	return out
}

// hasToken says whether the comma-separated list holds tok.
func hasToken(list, tok string) bool {
	for _, t := range strings.Split(list, ",") {
		if strings.EqualFold(strings.TrimSpace(t), tok) {
			return true
		}
	}
	return false
}

// quote is a quoted-string with '"' and '\' escaped.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// truncate is a server's token shortened for an error message.
func truncate(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}
