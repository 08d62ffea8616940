// Package zkserver runs real Apache ZooKeeper servers as child processes
// of the calling one: a standalone server or an N-member ensemble on free
// loopback ports, each with its own data directory, every four-letter
// word whitelisted, and the AdminServer on its own port. It finds the
// server in $ZOOKEEPER_HOME, Debian's package or Homebrew's.
//
// `zkscope demo` starts its server here; zkview/zktest wraps it for
// tests (skipping or failing when ZooKeeper is not installed). It imports
// nothing from zkscope, and no test code.
package zkserver

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

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

// Launch starts n members (n == 1: standalone) under dir and waits until
// every member serves. The caller must call [Cluster.Stop]. Without a
// ZooKeeper install the error is [ErrNotInstalled], saying what is missing.
func Launch(n int, opts Options, dir string) (*Cluster, error) {
	if err := checkInstalled(); err != nil {
		return nil, err
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
