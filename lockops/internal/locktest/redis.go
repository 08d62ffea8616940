package locktest

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// RedisPy runs a redis-py script against addr (host, port as H and P) and
// returns its output lines.
func RedisPy(t *testing.T, addr, script string) []string {
	t.Helper()
	if _, err := exec.LookPath("/usr/bin/python3"); err != nil {
		redistest.Unavailable(t, "/usr/bin/python3 not found")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import redis.lock").Run(); err != nil {
		redistest.Unavailable(t, "python3-redis not installed")
	}
	host, port, _ := strings.Cut(addr, ":")
	pre := "import redis, time\nr = redis.Redis(host='" + host + "', port=" + port + ")\n"
	out, err := exec.Command("/usr/bin/python3", "-c", pre+script).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-py: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

// WaitGone waits until key no longer exists on addr.
func WaitGone(t *testing.T, addr, key string) {
	t.Helper()
	r := goredis.NewClient(&goredis.Options{Addr: addr})
	defer r.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := r.Exists(context.Background(), key).Result()
		if err == nil && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still on %s: %v", key, addr, err)
		}
		time.Sleep(10 * time.Millisecond) // polling a key's expiry, bounded by the deadline
	}
}

// `zkscope lock`, `evict` and `revoke` on real redis-server processes, the
// real binary against real redis-py contenders.

// RedisCLI prepares `zkscope -s urls args...` (the audit log where the
// test's XDG_STATE_HOME says, no config file).
func RedisCLI(t *testing.T, urls string, args ...string) *exec.Cmd {
	cmd := exec.Command(ZkscopeBinary(t), append([]string{"-s", urls}, args...)...)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "ZKSCOPE_CONTEXT=", "ZKSCOPE_AUTH=")
	return cmd
}

// StartRedisPy starts a redis-py script against addr (r is the client) in
// the background; its output goes to the returned buffer, its stdin is the
// returned writer.
func StartRedisPy(t *testing.T, addr, script string) (io.WriteCloser, *LockedBuffer, <-chan struct{}) {
	t.Helper()
	RedisPy(t, addr, "pass") // skips (fails under CI) without python3-redis
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command("/usr/bin/python3", "-u", "-c", "import redis, os, sys\nr = redis.Redis(host='"+host+"', port="+port+")\n"+script)
	out := &LockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	return stdin, out, StartKilledAtEnd(t, cmd)
}

// WaitRenewals waits until key's remaining time on addr has gone up n
// times: the holder extended it n times.
func WaitRenewals(t *testing.T, addr, key string, n int) {
	t.Helper()
	r := goredis.NewClient(&goredis.Options{Addr: addr})
	defer r.Close()
	last, rises := time.Duration(-1), 0
	WaitFor(t, key+" extended "+strconv.Itoa(n)+" times", 60*time.Second, func() bool {
		ttl, err := r.PTTL(context.Background(), key).Result()
		if err != nil || ttl < 0 {
			t.Fatalf("%s on %s: ttl %v, err %v (not held any more)", key, addr, ttl, err)
		}
		if last >= 0 && ttl > last {
			rises++
		}
		last = ttl
		return rises >= n
	})
}

// RedisServerAndClient starts a redis-server with a client to it.
func RedisServerAndClient(t *testing.T) (*redistest.Server, *goredis.Client) {
	s := redistest.Start(t)
	r := goredis.NewClient(&goredis.Options{Addr: s.Addr})
	t.Cleanup(func() { r.Close() })
	return s, r
}

// RedisReads reads pattern from the servers at urls, as locks reads it.
func RedisReads(t *testing.T, pattern string, urls ...string) []redisview.Read {
	t.Helper()
	eps, err := redisview.ParseServers(strings.Join(urls, ","))
	if err != nil {
		t.Fatal(err)
	}
	c, err := redisview.Open(redisview.Config{Servers: eps, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.ReadLocks(context.Background(), pattern)
}
