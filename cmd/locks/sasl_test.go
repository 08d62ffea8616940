package locks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/sasl"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestSASLDigestCommands: a server that requires SASL (DIGEST-MD5 users in
// its JAAS Server section, enforce.auth.enabled=true) holds a Curator-style
// lock whose nodes only the SASL user may read. locks, doctor and get work
// with --sasl-user and --sasl-password-file; without them each fails at
// once in one line naming the flags; a wrong password says so.
func TestSASLDigestCommands(t *testing.T) {
	srv := zktest.StartDigestSASL(t, map[string]string{"bob": "bob-secret"})
	addr := srv.Servers[0].ClientAddr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	holder, err := zkview.Connect(ctx, zkview.Config{Servers: []string{addr},
		SASL: &sasl.Config{Mechanism: sasl.DigestMD5, User: "bob", Password: "bob-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	acl := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "bob"}}
	for _, p := range []string{"/locks", "/locks/job"} {
		if _, err := holder.Conn().Create(p, nil, 0, acl); err != nil {
			t.Fatal(err)
		}
	}
	node, err := holder.Conn().Create("/locks/job/_c_3f2a9b1c-0d4e-4f5a-8b6c-7d8e9f0a1b2c-lock-", []byte("10.0.0.7"), zk.FlagEphemeral|zk.FlagSequence, acl)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	pw := filepath.Join(dir, "password")
	if err := os.WriteFile(pw, []byte("bob-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "wrong")
	if err := os.WriteFile(bad, []byte("not-it\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + dir, "ZKSCOPE_CONTEXT=", "ZKSCOPE_AUTH=", "ZKSCOPE_SASL_PASSWORD="}
	creds := []string{"-s", addr, "--sasl-user", "bob", "--sasl-password-file", pw}

	t.Run("with credentials", func(t *testing.T) {
		code, out, errOut := cmdtest.RunBinary(t, env, append(creds, "locks", "/locks")...)
		if code != 0 || !strings.Contains(out, "/locks/job") {
			t.Fatalf("locks: exit %d\n%s\n%s", code, out, errOut)
		}
		code, out, errOut = cmdtest.RunBinary(t, env, append(creds, "doctor", "/locks")...)
		if code != 0 {
			t.Fatalf("doctor: exit %d\n%s\n%s", code, out, errOut)
		}
		code, out, errOut = cmdtest.RunBinary(t, env, append(creds, "get", node)...)
		if code != 0 || !strings.Contains(out, "10.0.0.7") {
			t.Fatalf("get: exit %d\n%s\n%s", code, out, errOut)
		}
		// version --server says who zkscope is there, as the server says.
		code, out, errOut = cmdtest.RunBinary(t, env, append([]string{"version", "--server", addr}, creds[2:]...)...)
		if code != 0 || !strings.Contains(out, "(whoAmI)") || !strings.Contains(out, "sasl:bob") {
			t.Fatalf("version --server: exit %d\n%s\n%s", code, out, errOut)
		}
	})
	t.Run("terminal UI", func(t *testing.T) {
		s := cmdtest.StartTmux(t, "sasl", 140, 30, strings.Join(creds, " "))
		s.WaitFor("the tree read with SASL", cmdtest.Has("connected", "as DIGEST-MD5 bob", "locks"))
	})
	t.Run("without credentials", func(t *testing.T) {
		for _, args := range [][]string{{"locks", "/locks"}, {"doctor", "/locks"}, {"get", node}} {
			start := time.Now()
			code, out, errOut := cmdtest.RunBinary(t, env, append([]string{"-s", addr}, args...)...)
			msg := strings.TrimSpace(errOut)
			if code == 0 || strings.Count(msg, "\n") > 0 || !strings.Contains(msg, "--sasl-mechanism") {
				t.Errorf("%v without SASL: exit %d, want one line naming the flags:\n%s\n%s", args, code, out, errOut)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("%v took %s to fail", args, d)
			}
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		code, out, errOut := cmdtest.RunBinary(t, env, "-s", addr, "--sasl-user", "bob", "--sasl-password-file", bad, "locks", "/locks")
		msg := strings.TrimSpace(errOut)
		if code == 0 || strings.Count(msg, "\n") > 0 || !strings.Contains(msg, "DIGEST-MD5") || !strings.Contains(msg, "bob") || !strings.Contains(msg, "wrong user or password") {
			t.Errorf("wrong password: exit %d\n%s\n%s", code, out, errOut)
		}
	})
}

// TestSASLKerberosCommands: a KDC with a realm of its own, a server that
// requires SASL and logs in as zookeeper/localhost; locks and get work
// with --principal and --keytab (krb5.conf from KRB5_CONFIG), and fail in
// one line naming the flags without them.
func TestSASLKerberosCommands(t *testing.T) {
	kdc := zktest.StartKDC(t)
	serverKT := kdc.Principal(t, "zookeeper/localhost")
	clientKT := kdc.Principal(t, "zkscope")
	opts, err := kdc.KerberosSASL(t.TempDir(), "zookeeper/localhost", serverKT)
	if err != nil {
		t.Fatal(err)
	}
	srv := zktest.StartStandalone(t, opts.Options)
	_, port, _ := strings.Cut(srv.Servers[0].ClientAddr, ":")
	addr := "localhost:" + port
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	holder, err := zkview.Connect(ctx, zkview.Config{Servers: []string{addr},
		SASL: &sasl.Config{Mechanism: sasl.GSSAPI, Principal: "zkscope", Keytab: clientKT, Krb5Conf: kdc.Krb5Conf}})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	acl := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "zkscope@" + kdc.Realm}}
	for _, p := range []string{"/locks", "/locks/job"} {
		if _, err := holder.Conn().Create(p, nil, 0, acl); err != nil {
			t.Fatal(err)
		}
	}
	node, err := holder.Conn().Create("/locks/job/_c_3f2a9b1c-0d4e-4f5a-8b6c-7d8e9f0a1b2c-lock-", []byte("10.0.0.8"), zk.FlagEphemeral|zk.FlagSequence, acl)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "ZKSCOPE_CONTEXT=", "ZKSCOPE_AUTH=", "KRB5_CONFIG=" + kdc.Krb5Conf, "KRB5CCNAME=" + filepath.Join(t.TempDir(), "none")}
	creds := []string{"-s", addr, "--principal", "zkscope", "--keytab", clientKT}
	code, out, errOut := cmdtest.RunBinary(t, env, append(creds, "locks", "/locks")...)
	if code != 0 || !strings.Contains(out, "/locks/job") {
		t.Fatalf("locks: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = cmdtest.RunBinary(t, env, append(creds, "get", node)...)
	if code != 0 || !strings.Contains(out, "10.0.0.8") {
		t.Fatalf("get: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = cmdtest.RunBinary(t, env, "-s", addr, "locks", "/locks")
	if msg := strings.TrimSpace(errOut); code == 0 || strings.Contains(msg, "\n") || !strings.Contains(msg, "--principal") {
		t.Errorf("locks without SASL: exit %d\n%s\n%s", code, out, errOut)
	}
	// kinit's cache is enough; a cache that does not exist says to run kinit.
	code, out, errOut = cmdtest.RunBinary(t, env, "-s", addr, "--sasl-mechanism", "GSSAPI", "locks", "/locks")
	if msg := strings.TrimSpace(errOut); code == 0 || strings.Contains(msg, "\n") || !strings.Contains(msg, "kinit") {
		t.Errorf("locks without a ticket: exit %d\n%s\n%s", code, out, errOut)
	}
	cc := kdc.Kinit(t, "zkscope", clientKT, "")
	env[len(env)-1] = "KRB5CCNAME=FILE:" + cc
	code, out, errOut = cmdtest.RunBinary(t, env, "-s", addr, "--sasl-mechanism", "GSSAPI", "locks", "/locks")
	if code != 0 || !strings.Contains(out, "/locks/job") {
		t.Fatalf("locks with kinit's ticket: exit %d\n%s\n%s", code, out, errOut)
	}
}
