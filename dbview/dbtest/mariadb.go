package dbtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// MariaDBInstall is what installs the MariaDB parts these tests use.
const MariaDBInstall = "apt-get install -y mariadb-server mariadb-client"

// MariaDBUser and MariaDBPassword are the account every test server has
// (all privileges, from any host): tests connect as it, never as root.
const (
	MariaDBUser     = "zkscope"
	MariaDBPassword = "zkscope-test-pw"
)

// MariaDB is one running mariadbd in a temporary datadir, listening on a
// loopback port. It starts with the performance schema's metadata lock
// instrument on and the metadata_lock_info plugin loaded, so both ways of
// listing user-level locks can be read from it, and with
// --skip-name-resolve, so the process list shows clients as ip:port.
type MariaDB struct {
	Addr   string // 127.0.0.1:port
	Port   int
	Socket string // the unix socket (root may connect there without a password)
	dir    string
	cmd    *exec.Cmd
	done   chan struct{}
	stop   sync.Once
}

// URL is the server's mysql:// URL for MariaDBUser (no password: it comes
// from the environment or the auth file, never the URL).
func (m *MariaDB) URL() string { return "mysql://" + MariaDBUser + "@" + m.Addr + "/" }

var (
	mariaOnce   sync.Once
	mariaShared *MariaDB
	mariaErr    error
)

// MariaDBUnavailable skips t with why and the install command, or fails it
// under CI=true.
func MariaDBUnavailable(t testing.TB, why string) {
	t.Helper()
	msg := fmt.Sprintf("%s (install: %s)", why, MariaDBInstall)
	if InCI() {
		t.Fatalf("CI=true and a real part is missing: %s", msg)
	}
	t.Skip(msg)
}

// mariaBins finds the install script and the server (Debian names first,
// then MySQL's old ones).
func mariaBins() (install, server string, err error) {
	look := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
			for _, dir := range []string{"/usr/sbin", "/usr/bin"} {
				if p := filepath.Join(dir, n); isExec(p) {
					return p
				}
			}
		}
		return ""
	}
	install = look("mariadb-install-db", "mysql_install_db")
	server = look("mariadbd", "mysqld")
	if install == "" || server == "" {
		return "", "", fmt.Errorf("mariadb-install-db or mariadbd not found")
	}
	return install, server, nil
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// RequireMariaDB skips (or, under CI, fails) t when the server or the
// mariadb client is missing.
func RequireMariaDB(t testing.TB) {
	t.Helper()
	if _, _, err := mariaBins(); err != nil {
		MariaDBUnavailable(t, err.Error())
	}
	if _, err := exec.LookPath("mariadb"); err != nil {
		MariaDBUnavailable(t, "the mariadb client not found")
	}
}

// SharedMariaDB returns one server shared by every test of the package
// (started on first use, stopped by Main or StopSharedMariaDB; the server
// also dies with the test process).
// Tests that share it use lock names of their own.
func SharedMariaDB(t testing.TB) *MariaDB {
	t.Helper()
	RequireMariaDB(t)
	mariaOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zkscope-mariadb-")
		if err != nil {
			mariaErr = err
			return
		}
		mariaShared, mariaErr = startMariaDB(dir)
		if mariaErr != nil {
			os.RemoveAll(dir)
		}
	})
	if mariaErr != nil {
		t.Fatalf("start MariaDB: %v", mariaErr)
	}
	return mariaShared
}

// StopSharedMariaDB stops the shared server, if one was started, and
// removes its files.
func StopSharedMariaDB() {
	if mariaShared != nil {
		mariaShared.Stop()
		os.RemoveAll(mariaShared.dir)
	}
}

// StartMariaDB starts a server of t's own, stopped when t ends.
func StartMariaDB(t testing.TB) *MariaDB {
	t.Helper()
	RequireMariaDB(t)
	m, err := startMariaDB(t.TempDir())
	if err != nil {
		t.Fatalf("start MariaDB: %v", err)
	}
	t.Cleanup(m.Stop)
	return m
}

// startMariaDB makes a datadir in dir and starts a server on it (a port
// taken between choosing and binding: tried again on another).
func startMariaDB(dir string) (*MariaDB, error) {
	install, server, err := mariaBins()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	args := []string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--innodb-log-file-size=8M"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", filepath.Base(install), err, out)
	}
	initSQL := filepath.Join(dir, "init.sql")
	grant := fmt.Sprintf("CREATE USER IF NOT EXISTS '%s'@'%%' IDENTIFIED BY '%s';\nGRANT ALL ON *.* TO '%s'@'%%';\n",
		MariaDBUser, MariaDBPassword, MariaDBUser)
	if err := os.WriteFile(initSQL, []byte(grant), 0o600); err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		m, err := launchMariaDB(server, dir, data, initSQL)
		if err == nil {
			return m, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func launchMariaDB(server, dir, data, initSQL string) (*MariaDB, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "sock")
	logFile := filepath.Join(dir, "error.log")
	os.Remove(logFile)
	args := []string{"--no-defaults", "--datadir=" + data, "--socket=" + sock, "--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1", "--skip-name-resolve", "--skip-log-bin", "--innodb-buffer-pool-size=16M",
		"--log-error=" + logFile, "--pid-file=" + filepath.Join(dir, "pid"), "--init-file=" + initSQL,
		"--performance-schema=ON", "--performance-schema-instrument=wait/lock/metadata/sql/mdl=ON",
		"--plugin-load-add=metadata_lock_info", "--max-connections=500"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.Command(server, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlives the tests
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	m := &MariaDB{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Port: port, Socket: sock,
		dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(m.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if err := mariaGreets(m.Addr); err == nil {
			return m, nil
		} else if time.Now().After(deadline) {
			m.Stop()
			log, _ := os.ReadFile(logFile)
			return nil, fmt.Errorf("mariadbd on %s did not greet: %v\n%s", m.Addr, err, log)
		}
		select {
		case <-m.done:
			log, _ := os.ReadFile(logFile)
			return nil, fmt.Errorf("mariadbd on %s exited: %s", m.Addr, log)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop stops the server (SIGTERM, then SIGKILL after 30 s) and waits for
// it to exit; again: nothing.
func (m *MariaDB) Stop() {
	m.stop.Do(func() {
		m.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-m.done:
		case <-time.After(30 * time.Second):
			m.cmd.Process.Kill()
			<-m.done
		}
	})
}

// mariaGreets reads the server's first handshake packet: the server is up
// and accepting clients (the init file has run by then).
func mariaGreets(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	var hdr [5]byte
	if _, err := readFull(c, hdr[:]); err != nil {
		return err
	}
	if hdr[4] != 10 { // protocol version 10; 0xff is an error packet
		return fmt.Errorf("greeting starts with %#x", hdr[4])
	}
	return nil
}

func readFull(c net.Conn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := c.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
