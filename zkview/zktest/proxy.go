package zktest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy is a TCP relay in front of a real server, to cut the network between
// a client and the server (a partition) without touching either. It relays
// bytes only; it never answers on the server's behalf.
//
// [Proxy.Block] cuts the connections (both ends see them close at once);
// [Proxy.Blackhole] is a silent partition: the sockets stay open and every
// byte is dropped, so each side learns only from its own timeouts.
type Proxy struct {
	Target string
	ln     net.Listener

	mu         sync.Mutex
	blocked    bool
	blackholed bool
	conns      map[net.Conn]struct{}
	closed     bool
}

// NewProxy listens on a free loopback port and relays to target.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{Target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	go p.serve()
	return p, nil
}

// StartProxy is [NewProxy] for a test: it fails tb when the proxy cannot
// listen and closes it when the test ends.
func StartProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	p, err := NewProxy(target)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	return p
}

// Addr is the address clients connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.blocked || p.closed {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c] = struct{}{}
		p.mu.Unlock()
		go p.relay(c)
	}
}

func (p *Proxy) relay(c net.Conn) {
	if p.isBlackholed() {
		// Accepted, but never reaches the server: what a client sees when
		// its SYN passes and nothing else does.
		io.Copy(io.Discard, c)
		p.drop(c)
		return
	}
	s, err := net.Dial("tcp", p.Target)
	if err != nil {
		p.drop(c)
		return
	}
	p.mu.Lock()
	if p.blocked || p.closed {
		p.mu.Unlock()
		s.Close()
		p.drop(c)
		return
	}
	p.conns[s] = struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { p.copy(s, c); done <- struct{}{} }()
	go func() { p.copy(c, s); done <- struct{}{} }()
	<-done
	p.drop(c)
	p.drop(s)
}

// copy relays src to dst, dropping what arrives while blackholed.
func (p *Proxy) copy(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.isBlackholed() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) isBlackholed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.blackholed
}

func (p *Proxy) drop(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// Block cuts every relayed connection and refuses new ones until Unblock.
func (p *Proxy) Block() {
	p.mu.Lock()
	p.blocked = true
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// Unblock lets connections through again (and ends a blackhole).
func (p *Proxy) Unblock() {
	p.mu.Lock()
	p.blocked, p.blackholed = false, false
	p.mu.Unlock()
}

// Blackhole starts a silent partition: connections (relayed ones and new
// ones) stay open, but every byte in either direction is dropped until
// Unblock. Neither side is told; no RST, no FIN.
func (p *Proxy) Blackhole() {
	p.mu.Lock()
	p.blackholed = true
	p.mu.Unlock()
}

// Close stops the proxy and cuts every connection.
func (p *Proxy) Close() {
	p.Block()
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.ln.Close()
}
