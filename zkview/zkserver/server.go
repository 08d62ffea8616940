package zkserver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is one running ZooKeeper process.
type Server struct {
	ID         int    // myid (1-based; 0 for standalone)
	ClientAddr string // 127.0.0.1:port of the plain client port
	SecureAddr string // 127.0.0.1:port of the TLS client port, when Options.Secure is set
	AdminAddr  string // 127.0.0.1:port of the AdminServer (HTTP)
	Dir        string // its directory: zoo.cfg, data/, server.log

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	opts Options
}

// Start (re)starts the member's process with its existing data directory.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return fmt.Errorf("server %s is already running", s.ClientAddr)
	}
	in, err := findInstall()
	if err != nil {
		return err
	}
	cp := append([]string(nil), in.classPath...)
	if s.opts.Secure != nil {
		// The Netty connection factory (required for a secure client port)
		// needs jars that Debian's zookeeper.jar manifest does not list.
		cp = append(cp, in.netty...)
	}
	args := []string{
		"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
		"-Dzookeeper.extendedTypesEnabled=true",
		// Fast container and TTL cleanup, so container resets are testable:
		// these are system properties (the server ignores them in zoo.cfg).
		"-Dznode.container.checkIntervalMs=500",
		"-Dznode.container.maxPerMinute=100000",
		"-Dzookeeper.admin.enableServer=true",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
	}
	args = append(args, s.opts.JVMFlags...)
	args = append(args, "-cp", strings.Join(cp, ":"),
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", filepath.Join(s.Dir, "zoo.cfg"))
	log, err := os.OpenFile(filepath.Join(s.Dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command("java", args...)
	cmd.Dir = s.Dir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = serverProcAttr()
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start java: %w", err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		log.Close()
		close(done)
	}()
	s.cmd, s.done = cmd, done
	return nil
}

// Running reports whether the member's process is alive.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// Kill stops the member at once (SIGKILL), as a crash would, and waits for it.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd, s.done = nil, nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}

// Pause freezes the member (SIGSTOP) so its clients time out without the
// TCP connection closing; Resume continues it.
//
// It returns once every thread of the member has stopped: the signal
// stops a running thread only at its next entry to the kernel, so a
// member busy on a core could otherwise still answer a request sent just
// after.
func (s *Server) Pause() error {
	if err := s.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	s.mu.Lock()
	pid := s.cmd.Process.Pid
	s.mu.Unlock()
	waitStopped(pid, 10*time.Second)
	return nil
}

// Resume continues a paused member.
func (s *Server) Resume() error { return s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return errors.New("server is not running")
	}
	return syscall.Kill(-s.cmd.Process.Pid, sig)
}

// WaitServing waits until the member answers `srvr` with a serving mode
// (standalone, leader or follower).
func (s *Server) WaitServing(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		if !s.Running() {
			return fmt.Errorf("server %s exited during start; log tail:\n%s", s.ClientAddr, s.LogTail(30))
		}
		out, err := FourLetterWord(s.ClientAddr, "srvr", time.Second)
		if err == nil {
			if m := Mode(out); m == "standalone" || m == "leader" || m == "follower" {
				if s.SecureAddr == "" || s.listening(s.SecureAddr) {
					return nil // the secure port opens after the plain one
				}
				out = "the secure client port " + s.SecureAddr + " does not accept connections yet"
			}
			last = out
		} else {
			last = err.Error()
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("server %s did not serve within %s (last: %q); log tail:\n%s", s.ClientAddr, timeout, last, s.LogTail(30))
}

// listening reports whether addr accepts a TCP connection.
func (s *Server) listening(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Mode returns the "Mode:" value of a srvr/stat reply ("" when absent).
func Mode(srvr string) string {
	for _, line := range strings.Split(srvr, "\n") {
		if v, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// LogTail returns the last n lines of the member's server log.
func (s *Server) LogTail(n int) string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// FourLetterWord sends word (4 bytes, no newline) to addr and reads the reply
// to EOF. It is the tests' own minimal client, independent of zkview's.
func FourLetterWord(addr, word string, timeout time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(c, word); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	_, err = io.Copy(&buf, bufio.NewReader(c))
	if err != nil && buf.Len() == 0 {
		return "", err
	}
	return buf.String(), nil
}
