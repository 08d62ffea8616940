package zktest

import (
	"io"
	"net"
	"sync"
)

// Proxy is a TCP relay in front of a real server, to cut the network between
// a client and the server (a partition) without touching either. It relays
// bytes only; it never answers on the server's behalf.
type Proxy struct {
	Target string
	ln     net.Listener

	mu      sync.Mutex
	blocked bool
	conns   map[net.Conn]struct{}
	closed  bool
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
	go func() { io.Copy(s, c); done <- struct{}{} }()
	go func() { io.Copy(c, s); done <- struct{}{} }()
	<-done
	p.drop(c)
	p.drop(s)
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

// Unblock lets connections through again.
func (p *Proxy) Unblock() {
	p.mu.Lock()
	p.blocked = false
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
