// Package zktest runs real Apache ZooKeeper servers (the Debian `zookeeper`
// package) for tests: a standalone server or an N-member ensemble on free
// loopback ports, each with its own temporary data directory, every
// four-letter word whitelisted, and the AdminServer on its own port.
//
// When Java or the ZooKeeper jars are missing, tests are skipped with the
// install command — except under CI=true, where they fail: a suite that needs
// a real server must never pass by skipping it.
//
// This package is for tests only and imports nothing from zkscope.
package zktest

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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// InstallHint is the command that installs every real part the tests use.
const InstallHint = "sudo apt-get update && sudo apt-get install -y zookeeper libcurator-recipes-java python3-kazoo"

// JavaDir is where Debian installs the ZooKeeper, Curator and helper jars.
const JavaDir = "/usr/share/java"

// serverJars are the jars on the server's class path. servlet-api is needed
// for the AdminServer (Debian's package omits it) and slf4j-simple makes the
// server log to its log file.
var serverJars = []string{"zookeeper.jar", "zookeeper-jute.jar", "servlet-api.jar", "slf4j-simple.jar"}

// nettyJars are added for a secure client port (Netty connection factory).
var nettyJars = []string{"netty-codec.jar", "netty-resolver.jar"}

// InCI reports whether the tests run under CI (CI=true), where missing real
// parts are a failure, not a skip.
func InCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

// Unavailable skips t with why and the install command, or fails it under CI.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	msg := fmt.Sprintf("%s; install with: %s", why, InstallHint)
	if InCI() {
		t.Fatalf("CI=true and a real part is missing: %s", msg)
	}
	t.Skip(msg)
}

// Require checks that Java and the ZooKeeper jars are installed (see [Unavailable]).
func Require(t testing.TB) {
	t.Helper()
	if err := checkInstalled(); err != nil {
		Unavailable(t, err.Error())
	}
}

func checkInstalled() error {
	_, err := findInstall()
	return err
}

// install is a ZooKeeper installation found on this machine: the class
// path that runs its server (the AdminServer and logging included), and
// what a secure client port adds.
type install struct {
	where     string
	classPath []string
	netty     []string
}

// homebrewHomes are where Homebrew puts the zookeeper formula's release
// layout (Apple silicon, Intel).
var homebrewHomes = []string{"/opt/homebrew/opt/zookeeper/libexec", "/usr/local/opt/zookeeper/libexec"}

// findInstall finds ZooKeeper: $ZOOKEEPER_HOME (the Apache release
// tarball's layout, lib/*.jar), else Debian's package (JavaDir), else
// Homebrew's. Java must be on PATH.
func findInstall() (install, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return install{}, errors.New("java is not installed")
	}
	if home := os.Getenv("ZOOKEEPER_HOME"); home != "" {
		if in, ok := releaseLayout(home); ok {
			return in, nil
		}
		return install{}, fmt.Errorf("ZOOKEEPER_HOME=%s holds no lib/zookeeper-*.jar (want the Apache release's layout)", home)
	}
	debErr := func() error {
		for _, j := range serverJars {
			if _, err := os.Stat(filepath.Join(JavaDir, j)); err != nil {
				return fmt.Errorf("%s is missing", filepath.Join(JavaDir, j))
			}
		}
		return nil
	}()
	if debErr == nil {
		in := install{where: JavaDir, classPath: []string{"/etc/zookeeper/conf"}}
		for _, j := range serverJars {
			in.classPath = append(in.classPath, filepath.Join(JavaDir, j))
		}
		for _, j := range nettyJars {
			in.netty = append(in.netty, filepath.Join(JavaDir, j))
		}
		return in, nil
	}
	for _, home := range homebrewHomes {
		if in, ok := releaseLayout(home); ok {
			return in, nil
		}
	}
	return install{}, debErr
}

// releaseLayout is the install at home if it has the Apache release's
// layout (lib/zookeeper-*.jar; every jar the server needs is in lib/).
func releaseLayout(home string) (install, bool) {
	jars, _ := filepath.Glob(filepath.Join(home, "lib", "zookeeper-*.jar"))
	if len(jars) == 0 {
		return install{}, false
	}
	return install{where: home, classPath: []string{filepath.Join(home, "conf"), filepath.Join(home, "lib", "*")}}, true
}

// Options tune a started server or ensemble. The zero value is a good default.
type Options struct {
	// TickTime in milliseconds (default 200). Negotiated session timeouts are
	// clamped to [2×tick, MaxSessionTimeout].
	TickTime int
	// MaxSessionTimeout in milliseconds (default 30000).
	MaxSessionTimeout int
	// NoWhitelist leaves 4lw.commands.whitelist at the server default (srvr only),
	// to test what zkscope says when words are refused.
	NoWhitelist bool
	// Extra lines appended to zoo.cfg ("key=value").
	Extra []string
	// JVMFlags are extra -D flags and the like, placed before the main class.
	JVMFlags []string
	// Secure, when set, also opens a TLS client port (see [TLSFiles]).
	Secure *TLSFiles
}

// TLSFiles describe a TLS client port: the server's key store and trust store
// and their passwords. The store type is PEM, PKCS12 or JKS; when empty the
// server guesses it from the file name (.pem, .p12/.pfx, .jks). [GenerateTLS]
// makes PEM files that fit.
type TLSFiles struct {
	KeyStore, KeyStorePassword, KeyStoreType       string
	TrustStore, TrustStorePassword, TrustStoreType string
	// ClientAuth is "need", "want" or "none" (default "none").
	ClientAuth string
}

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

// Cluster is a standalone server (one member) or an ensemble.
type Cluster struct {
	Servers []*Server
}

// Addrs lists the members' client addresses.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		out[i] = s.ClientAddr
	}
	return out
}

// ConnectString is the comma-separated member list, as a user would pass it.
func (c *Cluster) ConnectString() string { return strings.Join(c.Addrs(), ",") }

// ByAddr returns the member whose client address is addr, or nil.
func (c *Cluster) ByAddr(addr string) *Server {
	for _, s := range c.Servers {
		if s.ClientAddr == addr || s.SecureAddr == addr {
			return s
		}
	}
	return nil
}

// Stop kills every member and waits for them to exit.
func (c *Cluster) Stop() {
	for _, s := range c.Servers {
		s.Kill()
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func freePorts(n int) ([]int, error) {
	// Hold all listeners open until every port is picked, so they are distinct.
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// StartStandalone starts a standalone server for t and stops it (deleting
// its files) when t ends.
func StartStandalone(t testing.TB, opts Options) *Cluster {
	t.Helper()
	Require(t)
	c, err := Launch(1, opts, t.TempDir())
	if err != nil {
		t.Fatalf("start ZooKeeper: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// StartEnsemble starts an n-member ensemble for t (n ≥ 3 for failover tests),
// waits until it has a leader, and stops it when t ends.
func StartEnsemble(t testing.TB, n int, opts Options) *Cluster {
	t.Helper()
	Require(t)
	c, err := Launch(n, opts, t.TempDir())
	if err != nil {
		t.Fatalf("start %d-member ZooKeeper ensemble: %v", n, err)
	}
	t.Cleanup(c.Stop)
	return c
}

// Launch starts n members (n == 1: standalone) under dir and waits until
// every member serves. The caller must call [Cluster.Stop]. It is the
// building block of [StartStandalone], [StartEnsemble] and `zkscope demo`.
func Launch(n int, opts Options, dir string) (*Cluster, error) {
	if err := checkInstalled(); err != nil {
		return nil, fmt.Errorf("%w (install with: %s)", err, InstallHint)
	}
	if opts.TickTime == 0 {
		opts.TickTime = 200
	}
	if opts.MaxSessionTimeout == 0 {
		opts.MaxSessionTimeout = 30000
	}
	per := 4 // client, admin, quorum, election
	if opts.Secure != nil {
		per++
	}
	ports, err := freePorts(n * per)
	if err != nil {
		return nil, fmt.Errorf("pick free ports: %w", err)
	}
	c := &Cluster{}
	var servers []string
	for i := 0; i < n; i++ {
		p := ports[i*per : (i+1)*per]
		s := &Server{
			ClientAddr: fmt.Sprintf("127.0.0.1:%d", p[0]),
			AdminAddr:  fmt.Sprintf("127.0.0.1:%d", p[1]),
			Dir:        filepath.Join(dir, fmt.Sprintf("zk%d", i+1)),
			opts:       opts,
		}
		if opts.Secure != nil {
			s.SecureAddr = fmt.Sprintf("127.0.0.1:%d", p[4])
		}
		if n > 1 {
			s.ID = i + 1
			servers = append(servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, p[2], p[3]))
		}
		c.Servers = append(c.Servers, s)
	}
	for _, s := range c.Servers {
		if err := s.writeConfig(servers); err != nil {
			return nil, err
		}
	}
	for _, s := range c.Servers {
		if err := s.Start(); err != nil {
			c.Stop()
			return nil, err
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, s := range c.Servers {
		if err := s.WaitServing(time.Until(deadline)); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

func (s *Server) writeConfig(servers []string) error {
	data := filepath.Join(s.Dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	if s.ID > 0 {
		if err := os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(s.ID)+"\n"), 0o644); err != nil {
			return err
		}
	}
	_, clientPort, _ := net.SplitHostPort(s.ClientAddr)
	_, adminPort, _ := net.SplitHostPort(s.AdminAddr)
	o := s.opts
	lines := []string{
		"tickTime=" + strconv.Itoa(o.TickTime),
		"initLimit=20",
		"syncLimit=10",
		"dataDir=" + data,
		"clientPort=" + clientPort,
		"clientPortAddress=127.0.0.1",
		"maxSessionTimeout=" + strconv.Itoa(o.MaxSessionTimeout),
		"admin.enableServer=true",
		"admin.serverAddress=127.0.0.1",
		"admin.serverPort=" + adminPort,
		"maxClientCnxns=0",
		"standaloneEnabled=true",
		"reconfigEnabled=false",
	}
	if !o.NoWhitelist {
		lines = append(lines, "4lw.commands.whitelist=*")
	}
	if sec := o.Secure; sec != nil {
		_, securePort, _ := net.SplitHostPort(s.SecureAddr)
		ca := sec.ClientAuth
		if ca == "" {
			ca = "none"
		}
		lines = append(lines,
			"secureClientPort="+securePort,
			"secureClientPortAddress=127.0.0.1",
			"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
			"ssl.keyStore.location="+sec.KeyStore,
			"ssl.keyStore.password="+sec.KeyStorePassword,
			"ssl.trustStore.location="+sec.TrustStore,
			"ssl.trustStore.password="+sec.TrustStorePassword,
			"ssl.clientAuth="+ca,
		)
		if sec.KeyStoreType != "" {
			lines = append(lines, "ssl.keyStore.type="+sec.KeyStoreType)
		}
		if sec.TrustStoreType != "" {
			lines = append(lines, "ssl.trustStore.type="+sec.TrustStoreType)
		}
	}
	lines = append(lines, servers...)
	lines = append(lines, o.Extra...)
	return os.WriteFile(filepath.Join(s.Dir, "zoo.cfg"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
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
func (s *Server) Pause() error { return s.signal(syscall.SIGSTOP) }

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

// Leader returns the ensemble member that currently reports Mode: leader
// (or the standalone server), or nil.
func (c *Cluster) Leader() *Server {
	for _, s := range c.Servers {
		if !s.Running() {
			continue
		}
		out, err := FourLetterWord(s.ClientAddr, "srvr", time.Second)
		if err != nil {
			continue
		}
		if m := Mode(out); m == "leader" || m == "standalone" {
			return s
		}
	}
	return nil
}
