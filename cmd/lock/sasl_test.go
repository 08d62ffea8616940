package lock_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/sasl"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestSASLCuratorLock: a real Curator client authenticated with SASL
// (JAAS Client section, DIGEST-MD5 as bob) holds a mutex whose nodes have
// the ACL sasl:bob (all) and world:anyone (read). zkscope as bob decodes
// it and takes the lock among Curator's contenders; as alice, a SASL user
// the ACL lets read only, taking it is refused in one line naming the
// identity allowed.
func TestSASLCuratorLock(t *testing.T) {
	srv := zktest.StartDigestSASL(t, map[string]string{"bob": "bob-secret", "alice": "alice-secret"})
	addr := srv.Servers[0].ClientAddr
	dir := t.TempDir()
	jaas, err := zktest.DigestClientJAAS(dir, "bob", "bob-secret")
	if err != nil {
		t.Fatal(err)
	}
	cur := zktest.StartCuratorWith(t, addr, jaas, "-Dzkscope.acl=sasl:bob,world:anyone:r")
	cur.Acquire(t, "holder", "mutex", "/locks/job")
	cur.Await(t, "holder", "acquired")

	pwFile := func(name, pw string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(pw+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := []string{"XDG_CONFIG_HOME=" + dir, "ZKSCOPE_CONTEXT=", "ZKSCOPE_AUTH=", "ZKSCOPE_SASL_PASSWORD="}
	bob := []string{"-s", addr, "--sasl-user", "bob", "--sasl-password-file", pwFile("bob", "bob-secret")}
	alice := []string{"-s", addr, "--sasl-user", "alice", "--sasl-password-file", pwFile("alice", "alice-secret")}

	code, out, errOut := cmdtest.RunBinary(t, env, append(bob, "locks", "/locks", "--json")...)
	if code != 0 || !strings.Contains(out, `"/locks/job"`) || !strings.Contains(out, "curator") {
		t.Fatalf("locks as bob: exit %d\n%s\n%s", code, out, errOut)
	}

	// As alice: the lock's ACL lets her read, not take.
	code, out, errOut = cmdtest.RunBinary(t, env, append(alice, "lock", "/locks/job", "--no-wait", "--", "true")...)
	msg := strings.TrimSpace(errOut)
	t.Logf("lock as alice: %s", msg)
	if code == 0 || strings.Contains(msg, "\n") || !strings.Contains(msg, "only to sasl:bob") || !strings.Contains(msg, "zkscope is sasl:alice") {
		t.Errorf("lock as alice: exit %d, want one line naming sasl:bob\n%s\n%s", code, out, errOut)
	}

	// As bob: zkscope waits behind Curator's holder and runs its command
	// once the holder releases.
	take := exec.Command(cmdtest.Binary(t), append(bob, "lock", "/locks/job", "--timeout", "60s", "--", "sh", "-c", "echo ran-under-lock")...)
	take.Env = append(os.Environ(), env...)
	var takeOut cmdtest.SyncBuffer
	take.Stdout, take.Stderr = &takeOut, &takeOut
	if err := take.Start(); err != nil {
		t.Fatal(err)
	}
	defer take.Process.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	watcher, err := zkview.Connect(ctx, zkview.Config{Servers: []string{addr},
		SASL: &sasl.Config{Mechanism: sasl.DigestMD5, User: "bob", Password: "bob-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	cmdtest.WaitUntil(t, "zkscope's node beside Curator's", func() bool {
		kids, _, err := watcher.Children("/locks/job")
		return err == nil && len(kids) == 2
	})
	cur.Release(t, "holder")
	done := make(chan error, 1)
	go func() { done <- take.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(takeOut.String(), "ran-under-lock") {
			t.Fatalf("lock as bob: %v\n%s", err, takeOut.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("zkscope did not get the lock within a minute of Curator's release:\n%s", takeOut.String())
	}
}
