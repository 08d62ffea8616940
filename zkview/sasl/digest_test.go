package sasl

import (
	"strings"
	"testing"
)

// TestDigestRFC2831Example computes the example exchange of RFC 2831
// section 4 (IMAP, user chris, password secret).
func TestDigestRFC2831Example(t *testing.T) {
	const nonce, cnonce, uri = "OA6MG9tEQGm2hh", "OA6MHXh6VqTrRk", "imap/elwood.innosoft.com"
	ha1 := digestHA1([]byte("chris"), []byte("elwood.innosoft.com"), []byte("secret"), nonce, cnonce)
	if got := digestKD(ha1, nonce, "00000001", cnonce, "AUTHENTICATE:"+uri); got != "d388dad90d4bbd760a152321f2143af7" {
		t.Errorf("response %s", got)
	}
	if got := digestKD(ha1, nonce, "00000001", cnonce, ":"+uri); got != "ea40f60335c427b5527b84dbabcdfffd" {
		t.Errorf("rspauth %s", got)
	}
}

func TestDigestExchange(t *testing.T) {
	d := &digestMD5{user: "bob", password: "pw", uri: "zookeeper/zk-sasl-md5"}
	first, err := d.Start()
	if err != nil || len(first) != 0 {
		t.Fatalf("first token %q %v", first, err)
	}
	resp, done, err := d.Step([]byte(`realm="zk-sasl-md5",nonce="n\"1",qop="auth",charset=utf-8,algorithm=md5-sess`))
	if err != nil || done {
		t.Fatalf("step 1: %v %v", done, err)
	}
	dir := parseDirectives(string(resp))
	for k, want := range map[string]string{"username": "bob", "realm": "zk-sasl-md5", "nonce": `n"1`, "qop": "auth", "digest-uri": "zookeeper/zk-sasl-md5", "nc": "00000001"} {
		if dir[k] != want {
			t.Errorf("%s = %q, want %q (%s)", k, dir[k], want, resp)
		}
	}
	if _, _, err := d.Step([]byte("rspauth=00")); err == nil || !strings.Contains(err.Error(), "rspauth") {
		t.Errorf("a wrong rspauth passed: %v", err)
	}
	d2 := &digestMD5{user: "bob", password: "pw", uri: "zookeeper/zk-sasl-md5"}
	d2.Step([]byte(`nonce="x",qop="auth"`))
	if tok, done, err := d2.Step([]byte("rspauth=" + d2.expect)); tok != nil || !done || err != nil {
		t.Errorf("right rspauth: %q %v %v", tok, done, err)
	}
	if _, _, err := (&digestMD5{}).Step([]byte(`nonce="x",qop="auth-conf"`)); err == nil {
		t.Error("a challenge without qop auth was answered")
	}
}

func TestLatin1(t *testing.T) {
	if got := string(latin1("café", true)); got != "caf\xe9" {
		t.Errorf("latin1 café = %q", got)
	}
	if got := string(latin1("日本", true)); got != "日本" {
		t.Errorf("utf-8 kept: %q", got)
	}
}
