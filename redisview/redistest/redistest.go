// Package redistest starts real Debian redis-server processes for tests, on
// free loopback ports in temporary directories. Without redis-server the
// tests skip with the install command, except under CI=true where they
// fail: a suite that needs a real part must not pass without it.
package redistest

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// Install is what installs the real parts these tests use.
const Install = "apt-get install -y redis-server python3-redis"

// Unavailable skips t with why and the install command, or fails it under CI.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	msg := fmt.Sprintf("%s (install: %s)", why, Install)
	if zktest.InCI() { // the same rule as ZooKeeper's real parts
		t.Fatalf("CI=true and a real part is missing: %s", msg)
	}
	t.Skip(msg)
}

// Require skips (or, under CI, fails) t when redis-server is missing.
func Require(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		Unavailable(t, "redis-server not found")
	}
	return bin
}

// Server is one running redis-server.
type Server struct {
	Addr string // 127.0.0.1:port
	TLS  bool   // it speaks TLS only (StartTLS)
	cmd  *exec.Cmd
	done chan struct{}
}

// URL is the server's redis:// URL (rediss:// for a TLS server).
func (s *Server) URL() string {
	if s.TLS {
		return "rediss://" + s.Addr
	}
	return "redis://" + s.Addr
}

// Start starts a redis-server with no persistence on a free loopback port
// and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Require(t)
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // a port taken between choosing and binding
		s, err := start(bin, t.TempDir(), nil)
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		lastErr = err
	}
	t.Fatalf("start redis-server: %v", lastErr)
	return nil
}

// StartN starts n servers (the masters of a Redlock).
func StartN(t testing.TB, n int) []*Server {
	t.Helper()
	out := make([]*Server, n)
	for i := range out {
		out[i] = Start(t)
	}
	return out
}

// start starts redis-server in dir; with tlsFiles (cert, key, CA) it
// listens for TLS only.
func start(bin, dir string, tlsFiles []string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no", "--logfile", dir + "/redis.log"}
	if tlsFiles != nil {
		args[1] = "0" // no plain port
		args = append(args, "--tls-port", strconv.Itoa(port), "--tls-cert-file", tlsFiles[0],
			"--tls-key-file", tlsFiles[1], "--tls-ca-cert-file", tlsFiles[2], "--tls-auth-clients", "no")
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), TLS: tlsFiles != nil, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := ping(s.Addr, s.TLS); err == nil {
			return s, nil
		} else if time.Now().After(deadline) {
			s.Stop()
			log, _ := os.ReadFile(dir + "/redis.log")
			return nil, fmt.Errorf("redis-server on %s did not answer PING: %v\n%s", s.Addr, err, log)
		}
		select {
		case <-s.done:
			log, _ := os.ReadFile(dir + "/redis.log")
			return nil, fmt.Errorf("redis-server on %s exited: %s", s.Addr, log)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Stop stops the server and waits for it to exit (again: nothing).
func (s *Server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Kill()
	<-s.done
}

// Pause stops the server without closing its connections (SIGSTOP): it
// stops answering, as a frozen or partitioned server does; Resume
// (SIGCONT) lets it go on. Stop after Pause also works.
func (s *Server) Pause() { s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume lets a paused server go on.
func (s *Server) Resume() { s.cmd.Process.Signal(syscall.SIGCONT) }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func ping(addr string, useTLS bool) error {
	var c net.Conn
	var err error
	if useTLS {
		c, err = tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) // only: is it up?
	} else {
		c, err = net.DialTimeout("tcp", addr, time.Second)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}
