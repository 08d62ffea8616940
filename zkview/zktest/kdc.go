package zktest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// KDCInstallHint installs the Kerberos KDC and its tools (Debian).
const KDCInstallHint = "sudo apt-get install -y krb5-kdc krb5-admin-server krb5-user"

// KDC is a Kerberos KDC (MIT, Debian's krb5-kdc) with a realm of its own in
// a temporary directory, listening on a free loopback port.
type KDC struct {
	Realm    string
	Addr     string // 127.0.0.1:port (TCP and UDP)
	Krb5Conf string // a krb5.conf naming only this realm and KDC
	dir      string
	env      []string
}

// StartKDC creates a realm (kdb5_util) and runs krb5kdc for t, stopped
// when t ends. Without the tools the test is skipped (failed under CI).
func StartKDC(t testing.TB) *KDC {
	t.Helper()
	for _, tool := range []string{"kdb5_util", "kadmin.local", "krb5kdc"} {
		if _, err := lookTool(tool); err != nil {
			msg := fmt.Sprintf("%s not found (%v); install with: %s", tool, err, KDCInstallHint)
			if InCI() {
				t.Fatalf("CI=true and a real part is missing: %s", msg)
			}
			t.Skip(msg)
		}
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	k := &KDC{Realm: "ZKSCOPE.TEST", Addr: fmt.Sprintf("127.0.0.1:%d", port), dir: t.TempDir()}
	if err := k.writeConfig(); err != nil {
		t.Fatal(err)
	}
	if out, err := k.run("kdb5_util", "create", "-s", "-r", k.Realm, "-P", "zkscope-master"); err != nil {
		t.Fatalf("kdb5_util create: %v\n%s", err, out)
	}
	path, _ := lookTool("krb5kdc")
	cmd := exec.Command(path, "-n", "-r", k.Realm)
	cmd.Env = k.env
	log, err := os.Create(filepath.Join(k.dir, "krb5kdc.out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", k.Addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			b, _ := os.ReadFile(filepath.Join(k.dir, "krb5kdc.out"))
			l, _ := os.ReadFile(filepath.Join(k.dir, "kdc.log"))
			t.Fatalf("krb5kdc exited: %s\n%s", b, l)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("krb5kdc does not listen on %s within 30s", k.Addr)
		}
	}
	return k
}

// lookTool finds a Kerberos tool on PATH or in /usr/sbin (not on every
// user's PATH).
func lookTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := filepath.Join("/usr/sbin", name)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

func (k *KDC) writeConfig() error {
	kdcConf := fmt.Sprintf(`[kdcdefaults]
 kdc_listen = %[1]s
 kdc_tcp_listen = %[1]s
[realms]
 %[2]s = {
  database_name = %[3]s/principal
  key_stash_file = %[3]s/stash
  acl_file = %[3]s/kadm5.acl
  kdc_listen = %[1]s
  kdc_tcp_listen = %[1]s
  max_life = 1h
  max_renewable_life = 1h
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }
[logging]
 kdc = FILE:%[3]s/kdc.log
`, k.Addr, k.Realm, k.dir)
	krb5Conf := fmt.Sprintf(`[libdefaults]
 default_realm = %[2]s
 dns_lookup_kdc = false
 dns_lookup_realm = false
 rdns = false
 udp_preference_limit = 1
 default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
 default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
 permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
[realms]
 %[2]s = {
  kdc = %[1]s
 }
[domain_realm]
 localhost = %[2]s
`, k.Addr, k.Realm)
	k.Krb5Conf = filepath.Join(k.dir, "krb5.conf")
	kdcPath := filepath.Join(k.dir, "kdc.conf")
	k.env = append(os.Environ(), "KRB5_CONFIG="+k.Krb5Conf, "KRB5_KDC_PROFILE="+kdcPath)
	if err := os.WriteFile(filepath.Join(k.dir, "kadm5.acl"), nil, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(kdcPath, []byte(kdcConf), 0o600); err != nil {
		return err
	}
	return os.WriteFile(k.Krb5Conf, []byte(krb5Conf), 0o644)
}

// run runs a Kerberos tool with this realm's configuration.
func (k *KDC) run(tool string, args ...string) (string, error) {
	path, err := lookTool(tool)
	if err != nil {
		return "", err
	}
	cmd := exec.Command(path, args...)
	cmd.Env = k.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Principal adds name (random keys) to the realm and writes its keytab:
// the keytab's path.
func (k *KDC) Principal(t testing.TB, name string) string {
	t.Helper()
	kt := filepath.Join(k.dir, strings.NewReplacer("/", "_", "@", "_").Replace(name)+".keytab")
	for _, q := range []string{"addprinc -randkey " + name, "ktadd -k " + kt + " " + name} {
		if out, err := k.run("kadmin.local", "-r", k.Realm, "-q", q); err != nil || strings.Contains(out, "rror") {
			t.Fatalf("kadmin.local %q: %v\n%s", q, err, out)
		}
	}
	return kt
}

// Kinit gets name's ticket-granting ticket from keytab into a fresh
// credential cache (as kinit does for a user): the cache's path.
func (k *KDC) Kinit(t testing.TB, name, keytab string, lifetime string) string {
	t.Helper()
	cc := filepath.Join(k.dir, "cc_"+strings.NewReplacer("/", "_", "@", "_").Replace(name)+fmt.Sprint(time.Now().UnixNano()))
	args := []string{"-k", "-t", keytab, "-c", cc}
	if lifetime != "" {
		args = append(args, "-l", lifetime)
	}
	if out, err := k.run("kinit", append(args, name)...); err != nil {
		t.Fatalf("kinit %s: %v\n%s", name, err, out)
	}
	return cc
}

// KerberosSASL is the options of a ZooKeeper server whose JAAS Server
// section logs in as principal (service/host@REALM) from keytab and which
// refuses every client that did not authenticate with SASL.
func (k *KDC) KerberosSASL(dir, principal, keytab string) (SASLServer, error) {
	jaas := fmt.Sprintf(`Server {
  com.sun.security.auth.module.Krb5LoginModule required
  useKeyTab=true
  keyTab=%q
  storeKey=true
  useTicketCache=false
  principal=%q;
};
`, keytab, principal+"@"+k.Realm)
	s, err := saslServer(dir, jaas)
	if err != nil {
		return s, err
	}
	s.Options.JVMFlags = append(s.Options.JVMFlags, "-Djava.security.krb5.conf="+k.Krb5Conf)
	return s, nil
}
