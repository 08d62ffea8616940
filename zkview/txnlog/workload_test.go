package txnlog

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// The real logs every test of the package reads: one standalone server,
// one workload that writes every transaction type a client can cause,
// rolled over into several log files.
var (
	logsOnce sync.Once
	logsDir  string // the server's data/version-2
	logsErr  error
	logsTmp  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if logsTmp != "" {
		os.RemoveAll(logsTmp)
	}
	os.Exit(code)
}

// realLogs returns the directory of the workload's transaction logs (and
// snapshots), produced on first use by a real server, stopped afterwards.
func realLogs(t testing.TB) string {
	t.Helper()
	zktest.Require(t)
	logsOnce.Do(func() {
		// Stays the error if a peer helper ends the first test midway.
		logsErr = errors.New("the workload did not finish (see the first test that ran it)")
		tmp, err := os.MkdirTemp("", "zkscope-txnlog-")
		if err != nil {
			logsErr = err
			return
		}
		logsTmp = tmp
		logsDir, logsErr = produceLogs(t, tmp)
	})
	if logsErr != nil {
		t.Fatalf("produce transaction logs on a real server: %v", logsErr)
	}
	return logsDir
}

// produceLogs starts a server that rolls its log every few dozen
// transactions, runs the workload and stops the server.
func produceLogs(t testing.TB, tmp string) (string, error) {
	c, err := zktest.Launch(1, zktest.Options{
		JVMFlags: []string{"-Dzookeeper.snapCount=60", "-Dzookeeper.preAllocSize=16"},
	}, tmp)
	if err != nil {
		return "", err
	}
	defer c.Stop()
	addr := c.Servers[0].ClientAddr
	if err := workload(t, addr); err != nil {
		return "", err
	}
	return filepath.Join(c.Servers[0].Dir, "data", "version-2"), nil
}

// step is one part of the workload; the first error stops it.
type step func() error

func workload(t testing.TB, addr string) error {
	// The session owns /w/e and /w/es- to the end, which the snapshot tests
	// read: the server's longest timeout, so that a machine too busy to
	// ping for a while does not expire it.
	conn, _, err := zk.Connect([]string{addr}, 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		return err
	}
	defer conn.Close()
	open := zk.WorldACL(zk.PermAll)
	w := &work{t: t, conn: conn, addr: addr, open: open}
	for _, s := range []step{w.creates, w.containers, w.changes, w.errors, w.multis, w.kazoo, w.expiry, w.closes,
		w.locks, w.rollover} {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

type work struct {
	t    testing.TB
	conn *zk.Conn
	addr string
	open []zk.ACL
}

func (w *work) creates() error {
	for _, c := range []struct {
		path  string
		data  string
		flags int32
	}{
		{"/w", "root", 0},
		{"/w/p", "hello", 0},
		{"/w/bin", "caf\xc3\xa9 \xff\x00\x01 end", 0},
		{"/w/e", "ephemeral", zk.FlagEphemeral},
		{"/w/s-", "seq", zk.FlagSequence},
		{"/w/s-", "seq", zk.FlagSequence},
		{"/w/es-", "", zk.FlagEphemeral | zk.FlagSequence},
	} {
		if _, err := w.conn.Create(c.path, []byte(c.data), c.flags, w.open); err != nil {
			return err
		}
	}
	return nil
}

// containers creates a container and a TTL node and waits until the
// server removes both (its own deleteContainer transactions).
func (w *work) containers() error {
	if _, err := w.conn.CreateContainer("/w/c", []byte("box"), zk.FlagContainer, w.open); err != nil {
		return err
	}
	if _, err := w.conn.Create("/w/c/x", nil, 0, w.open); err != nil {
		return err
	}
	if err := w.conn.Delete("/w/c/x", -1); err != nil {
		return err
	}
	if _, err := w.conn.CreateTTL("/w/ttl", []byte("short"), zk.FlagTTL, w.open, 300*time.Millisecond); err != nil {
		return err
	}
	if err := w.gone("/w/c"); err != nil {
		return err
	}
	return w.gone("/w/ttl")
}

// gone waits (up to 30 s) until path no longer exists.
func (w *work) gone(path string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ok, _, err := w.conn.Exists(path)
		if err != nil || !ok {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New(path + " still exists after 30 s")
}

func (w *work) changes() error {
	if _, err := w.conn.Set("/w/p", []byte("world"), 0); err != nil {
		return err
	}
	acl := append(zk.DigestACL(zk.PermAll, "ops", "secret"), zk.WorldACL(zk.PermRead)...)
	if _, err := w.conn.SetACL("/w/bin", acl, 0); err != nil {
		return err
	}
	if _, err := w.conn.Create("/w/gone", nil, 0, w.open); err != nil {
		return err
	}
	return w.conn.Delete("/w/gone", 0)
}

// errors makes requests the server refuses after logging them as error
// transactions: a bad version, an existing node, a non-empty delete.
func (w *work) errors() error {
	if _, err := w.conn.Set("/w/p", []byte("x"), 99); !errors.Is(err, zk.ErrBadVersion) {
		return errors.New("set with a bad version did not fail")
	}
	if _, err := w.conn.Create("/w/p", nil, 0, w.open); !errors.Is(err, zk.ErrNodeExists) {
		return errors.New("create of an existing node did not fail")
	}
	if err := w.conn.Delete("/w", -1); !errors.Is(err, zk.ErrNotEmpty) {
		return errors.New("delete of a parent did not fail")
	}
	return nil
}

func (w *work) multis() error {
	_, err := w.conn.Multi(
		&zk.CreateRequest{Path: "/w/m1", Data: []byte("in multi"), Acl: w.open},
		&zk.SetDataRequest{Path: "/w/p", Data: []byte("multi"), Version: 1},
		&zk.CheckVersionRequest{Path: "/w/p", Version: 2},
		&zk.DeleteRequest{Path: "/w/m1", Version: 0},
	)
	if err != nil {
		return err
	}
	_, err = w.conn.Multi(
		&zk.CreateRequest{Path: "/w/m2", Data: []byte("never"), Acl: w.open},
		&zk.CheckVersionRequest{Path: "/w/p", Version: 42},
	)
	if err == nil {
		return errors.New("a multi with a failing check succeeded")
	}
	return nil
}

// kazoo creates through kazoo (create2 with include_data, an ephemeral)
// and closes its session: a closeSession that deletes the ephemeral.
func (w *work) kazoo() error {
	script := `
import sys
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1])
zk.start(timeout=30)
zk.create("/w/k", b"kazoo", include_data=True)
zk.create("/w/k/eph", b"mine", ephemeral=True)
zk.stop()
zk.close()
`
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/bin/python3", "-c", script, w.addr).CombinedOutput()
	if err != nil {
		return errors.New("kazoo: " + err.Error() + ": " + string(out))
	}
	return nil
}

// expiry leaves a session with an ephemeral node to expire.
func (w *work) expiry() error {
	s, err := zktest.DialSession(w.addr, 0, nil, time.Second)
	if err != nil {
		return err
	}
	if err := s.Create("/w/exp", []byte("expires"), zk.FlagEphemeral); err != nil {
		return err
	}
	s.Abandon()
	return w.gone("/w/exp")
}

// closes closes a session holding two ephemerals.
func (w *work) closes() error {
	conn, _, err := zk.Connect([]string{w.addr}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		return err
	}
	for _, p := range []string{"/w/cl1", "/w/cl2"} {
		if _, err := conn.Create(p, nil, zk.FlagEphemeral, w.open); err != nil {
			conn.Close()
			return err
		}
	}
	conn.Close()
	return w.gone("/w/cl2")
}

// locks runs real contention: two Curator mutex contenders and two kazoo
// lock contenders, each the second waiting until the first releases.
func (w *work) locks() error {
	for _, c := range []struct {
		peers      *zktest.Peers
		kind, path string
	}{
		{zktest.StartCurator(w.t, w.addr), "mutex", "/w/locks/curator"},
		{zktest.StartKazoo(w.t, w.addr), "lock", "/w/locks/kazoo"},
	} {
		c.peers.Acquire(w.t, "a", c.kind, c.path)
		c.peers.Await(w.t, "a", "acquired")
		c.peers.Acquire(w.t, "b", c.kind, c.path)
		c.peers.Release(w.t, "a")
		c.peers.Await(w.t, "b", "acquired")
		c.peers.Release(w.t, "b")
	}
	return nil
}

// rollover writes enough to roll the log several times (snapCount 60).
func (w *work) rollover() error {
	for i := 0; i < 200; i++ {
		if _, err := w.conn.Set("/w/p", []byte("roll"), -1); err != nil {
			return err
		}
	}
	return nil
}
