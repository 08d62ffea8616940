package redistest

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// HoldPyLock holds a real redis-py Lock on key (timeout seconds) on the
// server at addr, in a Python process, until t ends or release is called
// (the Python side then releases it); it returns the lock's token.
func HoldPyLock(t testing.TB, addr, key string, timeout int) (token string, release func()) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import redis.lock").Run(); err != nil {
		Unavailable(t, "python3-redis not installed")
	}
	host, port, _ := strings.Cut(addr, ":")
	script := fmt.Sprintf(`import redis, sys
r = redis.Redis(host=%q, port=%s)
l = r.lock(%q, timeout=%d)
assert l.acquire(blocking=False)
print(l.local.token.decode(), flush=True)
sys.stdin.read()
l.release()
`, host, port, key, timeout)
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	release = func() { stdin.Close(); cmd.Wait() }
	t.Cleanup(release)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		io.Copy(io.Discard, stdout)
		t.Fatalf("redis-py did not take %s: %v", key, err)
	}
	return strings.TrimSpace(line), release
}
