package lockrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/redisview/redistest"
)

// redisServerAndClient starts a redis-server with a client to it, the
// audit log in a temporary directory.
func redisServerAndClient(t *testing.T) (*redistest.Server, *goredis.Client) {
	audittest.ToTemp(t)
	return locktest.RedisServerAndClient(t)
}

// readRedis reads pattern from urls and decodes it.
func readRedis(t *testing.T, pattern string, urls ...string) []lockops.Queue {
	t.Helper()
	return redislock.Decode(locktest.RedisReads(t, pattern, urls...), time.Now())
}

// TestRedisLockExcludesRedisPy: while `zkscope lock` holds a key (its TTL
// of 5 s extended again and again; with 1 s a loaded machine let it expire
// before the first extension), a redis-py Lock on the same key cannot
// take it and waits; it gets it only after CMD has finished. And the other
// way round: while redis-py holds, zkscope --no-wait fails with exit 1,
// zkscope without it waits and runs CMD once redis-py has released.
func TestRedisLockExcludesRedisPy(t *testing.T) {
	s := redistest.Start(t)
	auditLog := audittest.ToTemp(t)
	dir := t.TempDir()
	key, done := "lock:excl", filepath.Join(dir, "cmd-done")

	cmd := locktest.RedisCLI(t, s.URL(), "lock", key, "--ttl", "5s", "--", "sh", "-c", "echo started; read x; touch "+done)
	cmdIn, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, exited := locktest.StartUnderLock(t, cmd)
	_, py, pyDone := locktest.StartRedisPy(t, s.Addr, `l = r.lock('`+key+`', timeout=30)
print('nowait', l.acquire(blocking=False))
print('trying')
ok = l.acquire(blocking=True, blocking_timeout=60)
print('got', ok, os.path.exists('`+done+`'))
l.release()`)
	locktest.WaitFor(t, "redis-py to try", 60*time.Second, func() bool { return strings.Contains(py.String(), "trying") })
	if !strings.Contains(py.String(), "nowait False") {
		t.Fatalf("redis-py took the lock zkscope holds: %s", py.String())
	}
	locktest.WaitRenewals(t, s.Addr, key, 3) // held past its TTL: extended
	cmdIn.Close()
	if code := locktest.WaitExit(t, cmd, exited, stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	<-pyDone
	if !strings.Contains(py.String(), "got True True") {
		t.Fatalf("redis-py, want it to get the lock after CMD finished: %s", py.String())
	}

	// redis-py holds; zkscope waits.
	released := filepath.Join(dir, "py-releasing")
	pyIn, py, pyDone := locktest.StartRedisPy(t, s.Addr, `l = r.lock('`+key+`', timeout=30)
l.acquire()
print('held', l.local.token.decode())
sys.stdin.readline()
open('`+released+`', 'w').close()
l.release()`)
	locktest.WaitFor(t, "redis-py to hold", 60*time.Second, func() bool { return strings.Contains(py.String(), "held") })
	code, out := locktest.RunWithin(t, locktest.RedisCLI(t, s.URL(), "lock", key, "--no-wait", "--", "true"), 60*time.Second)
	if code != ExitNotAcquired || !strings.Contains(out, "held by someone else") {
		t.Fatalf("--no-wait while redis-py holds: exit %d\n%s", code, out)
	}
	cmd = locktest.RedisCLI(t, s.URL(), "lock", key, "--", "test", "-f", released)
	pyToken := strings.TrimSpace(strings.TrimPrefix(py.String(), "held"))
	stderr2, exited2 := locktest.StartCLI(t, cmd, "waiting for "+key+`: held by "`+pyToken+`"`)
	pyIn.Close()
	if code := locktest.WaitExit(t, cmd, exited2, stderr2); code != 0 {
		t.Fatalf("exit %d (1: CMD ran before redis-py released); stderr:\n%s", code, stderr2.String())
	}
	<-pyDone
	entries := audittest.Read(t, auditLog)
	if !audittest.Has(entries, lockops.OpTake, audit.OK, key) || !audittest.Has(entries, lockops.OpRelease, audit.OK, key) || !audittest.Has(entries, lockops.OpTake, audit.Failed, key) {
		t.Fatalf("audit log lacks take/release/failed take of %s: %+v", key, entries)
	}
}

// TestRedisLockLostWhenServerStops: the server stops (killed: connections
// refused) or stops answering (paused: requests time out) during a hold;
// the extension fails, the lock is LOST before its TTL could run out on
// the server, CMD is stopped and zkscope exits 75.
func TestRedisLockLostWhenServerStops(t *testing.T) {
	for _, how := range []string{"stopped", "paused"} {
		t.Run(how, func(t *testing.T) {
			s := redistest.Start(t)
			audittest.ToTemp(t)
			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd := locktest.RedisCLI(t, s.URL(), "lock", "lock:lost", "--ttl", "5s", "--", "sh", "-c", "echo $$ > "+pidFile+"; echo started; exec sleep 120")
			stderr, exited := locktest.StartUnderLock(t, cmd)
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if how == "paused" {
				s.Pause()
				defer s.Resume()
			} else {
				s.Stop()
			}
			if code := locktest.WaitExit(t, cmd, exited, stderr); code != ExitLost {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitLost, stderr.String())
			}
			for _, want := range []string{"SUSPENDED", "LOST the lock lock:lost", "sent SIGTERM to sh"} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("CMD (pid %d) still exists: %v", pid, err)
			}
			if strings.Contains(stderr.String(), "redis: ") { // go-redis's own log, silenced in main
				t.Errorf("go-redis wrote to stderr:\n%s", stderr.String())
			}
		})
	}
}

// TestRedlockTakeOneMasterStopped: over three masters with one stopped,
// `zkscope lock` takes a Redlock on the other two (a majority), extends it
// there and releases it; with two stopped it cannot (exit 1) and leaves no
// key on the one left.
func TestRedlockTakeOneMasterStopped(t *testing.T) {
	servers := redistest.StartN(t, 3)
	audittest.ToTemp(t)
	urls := servers[0].URL() + "," + servers[1].URL() + "," + servers[2].URL()
	key := "lock:redlock"
	servers[2].Stop()

	cmd := locktest.RedisCLI(t, urls, "lock", key, "--ttl", "5s", "--", "sh", "-c", "echo started; read x; exit 0")
	cmdIn, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, exited := locktest.StartUnderLock(t, cmd)
	qs := readRedis(t, key, servers[0].URL(), servers[1].URL(), servers[2].URL())
	if len(qs) != 1 || qs[0].Kind != lockops.KindRedlock || len(qs[0].Holders()) != 2 || !qs[0].HasValidity {
		t.Fatalf("decoded %+v", qs)
	}
	locktest.WaitRenewals(t, servers[0].Addr, key, 3)
	cmdIn.Close()
	if code := locktest.WaitExit(t, cmd, exited, stderr); code != 0 || !strings.Contains(stderr.String(), "(redlock,") {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	locktest.WaitGone(t, servers[0].Addr, key)
	locktest.WaitGone(t, servers[1].Addr, key)

	servers[1].Stop()
	code, out := locktest.RunWithin(t, locktest.RedisCLI(t, urls, "lock", key, "--timeout", "1s", "--", "true"), 60*time.Second)
	if code != ExitNotAcquired || !strings.Contains(out, "timed out") {
		t.Fatalf("one master of three: exit %d\n%s", code, out)
	}
	locktest.WaitGone(t, servers[0].Addr, key)
}

// TestRedisLockHoldUntilSignal: without CMD, `zkscope lock KEY` holds the
// key until SIGINT, then releases it and exits 0; interrupted while it
// waits, it exits 130 and leaves no key of its own.
func TestRedisLockHoldUntilSignal(t *testing.T) {
	s, r := redisServerAndClient(t)
	ctx := context.Background()
	key := "lock:hold"

	cmd := locktest.RedisCLI(t, s.URL(), "lock", key, "--ttl", "5s", "--note", "by hand")
	stderr, exited := locktest.StartCLI(t, cmd, "Ctrl-C releases")
	if v, _ := r.Get(ctx, key).Result(); !strings.Contains(v, "zkscope pid") || !strings.Contains(v, ": by hand #") {
		t.Fatalf("token %q", v)
	}
	locktest.WaitRenewals(t, s.Addr, key, 3)
	cmd.Process.Signal(os.Interrupt)
	if code := locktest.WaitExit(t, cmd, exited, stderr); code != 0 || !strings.Contains(stderr.String(), "released "+key) {
		t.Fatalf("exit %d after SIGINT; stderr:\n%s", code, stderr.String())
	}
	locktest.WaitGone(t, s.Addr, key)

	r.Set(ctx, key, "someone-else", time.Minute)
	cmd = locktest.RedisCLI(t, s.URL(), "lock", key, "--", "true")
	stderr, exited = locktest.StartCLI(t, cmd, `waiting for `+key+`: held by "someone-else"`)
	cmd.Process.Signal(os.Interrupt)
	if code := locktest.WaitExit(t, cmd, exited, stderr); code != 130 || !strings.Contains(stderr.String(), "giving up") {
		t.Fatalf("exit %d after SIGINT while waiting; stderr:\n%s", code, stderr.String())
	}
	if v, _ := r.Get(ctx, key).Result(); v != "someone-else" {
		t.Fatalf("the holder's key changed: %q", v)
	}
}

// TestRedisLockLostWhenOverwritten: another client overwrites the key
// during a hold (an operator's SET, an expiry and a new holder); the next
// extension finds another token: LOST at once, CMD stopped, exit 75, and
// the new holder's key is neither extended nor deleted.
func TestRedisLockLostWhenOverwritten(t *testing.T) {
	s, r := redisServerAndClient(t)
	ctx := context.Background()
	key := "lock:overwritten"
	cmd := locktest.RedisCLI(t, s.URL(), "lock", key, "--ttl", "5s", "--", "sh", "-c", "echo started; exec sleep 120")
	stderr, exited := locktest.StartUnderLock(t, cmd)
	r.Set(ctx, key, "intruder", time.Minute)
	if code := locktest.WaitExit(t, cmd, exited, stderr); code != ExitLost || !strings.Contains(stderr.String(), key+" no longer holds our token") {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitLost, stderr.String())
	}
	v, _ := r.Get(ctx, key).Result()
	if ttl, _ := r.PTTL(ctx, key).Result(); v != "intruder" || ttl <= 5*time.Second {
		t.Fatalf("the new holder's key: %q, ttl %s (want it untouched: its own minute, not our 5s)", v, ttl)
	}
}
